package dashboard_test

import (
	"context"
	"encoding/json"
	"net/http"
	"net/url"
	"strings"
	"testing"

	"github.com/frontdesk/frontdesk/internal/account"
	"github.com/frontdesk/frontdesk/internal/db"
	"github.com/frontdesk/frontdesk/internal/db/dbtest"
	"github.com/frontdesk/frontdesk/internal/privacy"
	pt "github.com/frontdesk/frontdesk/internal/privacy/privacytest"
)

// TestClientDataRights: an owner downloads a client's data and erases it
// from the client's page (docs/data-rights.md); staff are refused both,
// another account's owner finds no such client, and a wrong confirmation
// erases nothing.
func TestClientDataRights(t *testing.T) {
	dbtest.Engines(t, func(t *testing.T, store *db.DB) {
		h := newHarness(t, store)
		ctx := context.Background()
		acme, err := account.BySlug(ctx, store, "acme")
		if err != nil {
			t.Fatal(err)
		}
		pt.SeedAccount(t, store, acme)
		zeb := pt.Seed(t, store, acme, pt.Erasable, 10)
		pt.Seed(t, store, acme, pt.Kept, 11)
		client := "/app/clients/" + itoa(zeb.ClientID)
		erased := func() bool {
			t.Helper()
			at, err := privacy.ErasedAt(ctx, store, acme, zeb.ClientID)
			if err != nil {
				t.Fatal(err)
			}
			return at != nil
		}
		ana := h.signedIn("ana@acme.test", "ana-password")
		sara := h.signedIn("sara@acme.test", "sara-password")
		bob := h.signedIn("bob@other.test", "bob-password")

		ana.get(client).must(t, 200).contains(t, `id="client-export"`, `id="client-erase"`)
		if p := sara.get(client).must(t, 200); strings.Contains(p.Body, `id="client-export"`) || strings.Contains(p.Body, `id="client-erase"`) {
			t.Fatal("staff see the data-rights buttons")
		}
		for _, c := range []struct {
			name   string
			u      *user
			method string
			path   string
			status int
		}{
			{"staff export", sara, "GET", client + "/export", http.StatusForbidden},
			{"staff erase page", sara, "GET", client + "/erase", http.StatusForbidden},
			{"staff erase", sara, "POST", client + "/erase", http.StatusForbidden},
			{"another account's export", bob, "GET", client + "/export", http.StatusNotFound},
			{"another account's erase page", bob, "GET", client + "/erase", http.StatusNotFound},
			{"another account's erase", bob, "POST", client + "/erase", http.StatusNotFound},
			{"unknown client's export", ana, "GET", "/app/clients/999999/export", http.StatusNotFound},
			{"unknown client's erase", ana, "POST", "/app/clients/999999/erase", http.StatusNotFound},
		} {
			t.Run(c.name, func(t *testing.T) {
				var p page
				if c.method == "GET" {
					p = c.u.get(c.path)
				} else {
					c.u.get("/app/today")
					p = c.u.post(c.path, url.Values{"confirm": {strings.TrimPrefix(strings.TrimSuffix(c.path, "/erase"), "/app/clients/")}})
				}
				p.must(t, c.status)
				if strings.Contains(p.Body, pt.Erasable.Marker) || p.Header.Get("Content-Disposition") != "" {
					t.Fatal("a refused request answered with the client's data")
				}
				if erased() {
					t.Fatal("a refused request erased the client")
				}
			})
		}

		p := ana.get(client+"/export").must(t, 200)
		var doc map[string]any
		if !strings.HasPrefix(p.Header.Get("Content-Disposition"), "attachment;") || !strings.HasPrefix(p.Header.Get("Content-Type"), "application/json") ||
			json.Unmarshal([]byte(p.Body), &doc) != nil || !strings.Contains(p.Body, pt.Erasable.Marker) || strings.Contains(p.Body, pt.Kept.Marker) {
			t.Fatalf("export: %v %.500s", p.Header, p.Body)
		}
		if n := h.count("audit_log", "account_id = ? AND action = 'exported' AND object_type = 'client' AND object_id = ?", acme.ID, itoa(zeb.ClientID)); n != 1 {
			t.Fatalf("export audit entries: %d", n)
		}

		ana.get(client+"/erase").must(t, 200).contains(t, "Type the client&#39;s id, "+itoa(zeb.ClientID))
		back := ana.post(client+"/erase", url.Values{"confirm": {"ERASE"}}).must(t, http.StatusSeeOther)
		ana.follow(back).contains(t, "nothing was erased")
		if erased() {
			t.Fatal("a wrong confirmation erased")
		}
		ana.get(client + "/erase")
		done := ana.post(client+"/erase", url.Values{"confirm": {itoa(zeb.ClientID)}}).must(t, http.StatusSeeOther)
		if done.Location != client {
			t.Fatalf("erase went to %q", done.Location)
		}
		ana.follow(done).contains(t, `id="client-erased"`, "The client&#39;s personal data was erased.")
		if !erased() {
			t.Fatal("the confirmed erasure did not erase")
		}
		if n := h.count("audit_log", "account_id = ? AND action = 'erased' AND object_id = ? AND user_name = 'Ana Ruiz' AND summary = ''", acme.ID, itoa(zeb.ClientID)); n != 1 {
			t.Fatalf("erase audit entries: %d", n)
		}
		// The API shows the erased client's card as stored: same id, no
		// personal data (docs/data-rights.md, "Through the API").
		var pipe int64
		if err := store.QueryRow(ctx, `SELECT pipeline_id FROM cards WHERE id = ?`, zeb.Card).Scan(&pipe); err != nil {
			t.Fatal(err)
		}
		status, body := h.api("GET", "/api/v2/public/leadflow/pipelines/"+itoa(pipe)+"/clients?limit=100", acmeKey, nil)
		raw, _ := json.Marshal(body)
		if status != 200 || !strings.Contains(string(raw), `"id":`+itoa(zeb.ClientID)) || strings.Contains(string(raw), pt.Erasable.Phone) ||
			strings.Contains(string(raw), pt.Erasable.First) || !strings.Contains(string(raw), pt.Kept.First) {
			t.Fatalf("pipeline clients after erasure: %d %s", status, raw)
		}
		// The Spanish dashboard says "erased" in Spanish.
		eva := h.signedIn("eva@acme.test", "eva-password")
		req, _ := http.NewRequest("GET", h.srv.URL+client, nil)
		req.Header.Set("Accept-Language", "es")
		eva.do(req).must(t, 200).contains(t, ">borrado<", "Exportar datos")
	})
}
