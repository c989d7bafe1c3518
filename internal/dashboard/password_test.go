package dashboard_test

import (
	"context"
	"encoding/json"
	"net/http"
	"testing"

	"github.com/frontdesk/frontdesk/internal/account"
	"github.com/frontdesk/frontdesk/internal/dashboard"
	"github.com/frontdesk/frontdesk/internal/db"
	"github.com/frontdesk/frontdesk/internal/db/dbtest"
	"github.com/frontdesk/frontdesk/internal/password"
	"github.com/frontdesk/frontdesk/internal/workspace"
)

// A changed password ends every dashboard session of its user, whichever
// door changed it (account.ChangePassword); re-applying a workspace file
// with the same password signs nobody out. cmd/frontdesk's
// TestPasswordCommandsEndSessions runs the commands themselves.
func TestPasswordChangeEndsSessions(t *testing.T) {
	ctx := context.Background()
	file := func(pw string) map[string]any {
		return map[string]any{"account": map[string]any{"slug": "acme"}, "users": []any{map[string]any{"key": "ana", "password": pw}}}
	}
	doors := []struct {
		name string
		set  func(h *harness, pw string)
		// reapplies: giving the same password again is a no-op (a file
		// re-applied), not a reset.
		reapplies bool
	}{
		{"workspace file (frontdesk workspace apply)", func(h *harness, pw string) {
			data, _ := json.Marshal(file(pw))
			if _, err := (&workspace.Applier{DB: h.store, Now: h.clock.Now, HashPassword: password.Hash}).Apply(ctx, data); err != nil {
				t.Fatal(err)
			}
		}, true},
		{"admin route (PUT /api/v2/admin/workspaces/acme)", func(h *harness, pw string) {
			if status, body := h.api("PUT", "/api/v2/admin/workspaces/acme", adminToken, file(pw)); status != http.StatusOK {
				t.Fatalf("admin apply: %d %v", status, body)
			}
		}, true},
		{"frontdesk users set-password", func(h *harness, pw string) {
			acct, err := account.BySlug(ctx, h.store, "acme")
			if err != nil {
				t.Fatal(err)
			}
			if err := dashboard.SetPassword(ctx, h.store, acct, "ANA@acme.test", pw); err != nil {
				t.Fatal(err)
			}
		}, false},
	}
	for _, door := range doors {
		t.Run(door.name, func(t *testing.T) {
			dbtest.Engines(t, func(t *testing.T, store *db.DB) {
				h := newHarness(t, store)
				ana1, ana2 := h.signedIn("ana@acme.test", "ana-password"), h.signedIn("ana@acme.test", "ana-password")
				sara := h.signedIn("sara@acme.test", "sara-password")
				if door.reapplies {
					door.set(h, "ana-password")
					ana1.get("/app/today").must(t, http.StatusOK)
					ana2.get("/app/today").must(t, http.StatusOK)
				}
				door.set(h, "ana-new-password")
				for _, u := range []*user{ana1, ana2} {
					u.get("/app/today").must(t, http.StatusSeeOther) // to the sign-in page
				}
				sara.get("/app/today").must(t, http.StatusOK)
				h.newUser().signIn("ana@acme.test", "ana-password", "").must(t, http.StatusUnauthorized)
				ana3 := h.signedIn("ana@acme.test", "ana-new-password")
				if door.reapplies {
					door.set(h, "ana-new-password")
					ana3.get("/app/today").must(t, http.StatusOK)
				}
			})
		})
	}
}
