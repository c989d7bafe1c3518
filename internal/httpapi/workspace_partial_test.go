package httpapi_test

import (
	"context"
	"net/http"
	"net/http/httptest"
	"os"
	"strings"
	"testing"

	"github.com/frontdesk/frontdesk/internal/account"
	"github.com/frontdesk/frontdesk/internal/db"
	"github.com/frontdesk/frontdesk/internal/db/dbtest"
	"github.com/frontdesk/frontdesk/internal/httpapi"
	"github.com/frontdesk/frontdesk/internal/secrets"
)

// A bug found once: PUT /api/v2/admin/workspaces/{slug} with only the
// account's slug reset its name, time zone (to UTC) and region. Through the
// real admin handler (with a server key, so its webhook secrets are sealed).
func TestAdminPutPartialWorkspaceKeepsAccount(t *testing.T) {
	const token = "admin-token-of-at-least-thirty-two-characters"
	full, err := os.ReadFile("../workspace/testdata/acme.yaml")
	if err != nil {
		t.Fatal(err)
	}
	box, err := secrets.New([]byte("0123456789abcdef0123456789abcdef"))
	if err != nil {
		t.Fatal(err)
	}
	dbtest.Engines(t, func(t *testing.T, store *db.DB) {
		srv := httpapi.NewServer(httpapi.Config{DB: store, AdminToken: token, Secrets: box})
		put := func(body string) {
			t.Helper()
			req := httptest.NewRequest(http.MethodPut, "/api/v2/admin/workspaces/acme", strings.NewReader(body))
			req.Header.Set("Authorization", "Bearer "+token)
			rec := httptest.NewRecorder()
			srv.ServeHTTP(rec, req)
			if rec.Code != http.StatusOK {
				t.Fatalf("PUT: %d %s", rec.Code, rec.Body)
			}
		}
		put(string(full))
		put(`{"account": {"slug": "acme"}}`)
		acct, err := account.BySlug(context.Background(), store, "acme")
		if err != nil {
			t.Fatal(err)
		}
		if acct.Name != "Acme Clinic" || acct.Timezone != "Europe/Madrid" || acct.DefaultRegion != "ES" {
			t.Errorf("after a PUT of only the slug: name %q, timezone %q, region %q; want Acme Clinic, Europe/Madrid, ES",
				acct.Name, acct.Timezone, acct.DefaultRegion)
		}
		var secret string
		store.QueryRow(context.Background(), `SELECT secret FROM webhooks WHERE account_id = ?`, acct.ID).Scan(&secret)
		if !secrets.IsSealed(secret) || strings.Contains(secret, "s3cret") {
			t.Errorf("webhook secret stored as %q, want it sealed", secret)
		}
	})
}
