package dashboard_test

import (
	"context"
	"fmt"
	"net/http"
	"net/url"
	"testing"

	"github.com/frontdesk/frontdesk/internal/db"
	"github.com/frontdesk/frontdesk/internal/db/dbtest"
)

// Owners add, rename and retire rooms and equipment, each change audited;
// a nameless one or a kind that is not one is refused; staff get 403.
func TestResourcesSettings(t *testing.T) {
	dbtest.Engines(t, func(t *testing.T, store *db.DB) {
		h := newHarness(t, store)
		const path = "/app/settings/resources"
		ana := h.signedIn("ana@acme.test", "ana-password")
		ana.get(path).must(t, http.StatusOK).contains(t, "No rooms or equipment yet.", `aria-current="page">Rooms and equipment`)
		ana.get("/app/settings").contains(t, `href="`+path+`"`)

		ana.follow(ana.post(path, url.Values{"name": {" Box 1 "}, "kind": {"room"}, "active": {"true"}})).contains(t, "Room or equipment added.", `value="Box 1"`)
		for _, test := range []struct{ name, kind, want string }{
			{"   ", "room", "Give the room or equipment a name."},
			{"Chair", "chair", "Choose whether it is a room or equipment."},
			{"box 1", "room", "That name is already used"},
		} {
			ana.get(path)
			ana.follow(ana.post(path, url.Values{"name": {test.name}, "kind": {test.kind}})).contains(t, `class="flash error"`, test.want)
		}
		var id int64
		acme := h.account("acme").ID
		if err := store.QueryRow(context.Background(), `SELECT id FROM resources WHERE account_id = ? AND name = 'Box 1' AND kind = 'room' AND active`, acme).Scan(&id); err != nil {
			t.Fatal(err)
		}
		ana.get(path)
		ana.follow(ana.post(fmt.Sprintf("%s/%d", path, id), url.Values{"name": {"Box A"}, "kind": {"room"}})).contains(t, "Saved.", `value="Box A"`)
		var active bool
		store.QueryRow(context.Background(), `SELECT active FROM resources WHERE id = ?`, id).Scan(&active)
		if active {
			t.Error("the resource is still active after being retired")
		}
		if n := h.count("audit_log", "object_type = 'resource' AND object_id = ?", fmt.Sprint(id)); n != 2 {
			t.Errorf("audit entries: %d", n)
		}
		sara := h.signedIn("sara@acme.test", "sara-password")
		sara.get(path).must(t, http.StatusForbidden)
		sara.post(path, url.Values{"name": {"X"}, "kind": {"room"}}).must(t, http.StatusForbidden)
	})
}
