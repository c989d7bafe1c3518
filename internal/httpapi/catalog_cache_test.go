package httpapi_test

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/frontdesk/frontdesk/internal/db"
	"github.com/frontdesk/frontdesk/internal/db/dbtest"
	"github.com/frontdesk/frontdesk/internal/readcache"
)

// GET /calendar/services answers from the account's in-memory catalogue: a
// write through this process shows at once, a write it did not see (another
// instance, another process) within readcache.MaxAge, and one account's
// snapshot never answers another's.
func TestServicesCatalogue(t *testing.T) {
	const services = "/api/v2/public/calendar/services"
	dbtest.Engines(t, func(t *testing.T, store *db.DB) {
		h := newHarness(t, store)
		acme := h.do("GET", services, acmeKey, nil).must(t, 200).Raw
		other := h.do("GET", services, otherKey, nil).must(t, 200).Raw
		if string(acme) == string(other) || !strings.Contains(string(acme), "Dr. López") || strings.Contains(string(other), "Dr. López") {
			t.Fatalf("acme %s\nother %s", acme, other)
		}
		// Alternate the two accounts: each always gets its own bytes.
		for i := 0; i < 3; i++ {
			if got := h.do("GET", services, otherKey, nil).must(t, 200).Raw; string(got) != string(other) {
				t.Fatalf("other read %s, want %s", got, other)
			}
			if got := h.do("GET", services, acmeKey, nil).must(t, 200).Raw; string(got) != string(acme) {
				t.Fatalf("acme read %s, want %s", got, acme)
			}
		}

		// Another instance renames the service: unseen here until the
		// snapshot is MaxAge old.
		if _, err := store.Exec(context.Background(), `UPDATE services SET name = 'Renamed elsewhere' WHERE id = ?`, h.acme().Services["cleaning"]); err != nil {
			t.Fatal(err)
		}
		h.clock.Advance(readcache.MaxAge - time.Millisecond)
		if got := h.do("GET", services, acmeKey, nil).must(t, 200).Raw; string(got) != string(acme) {
			t.Errorf("within MaxAge: %s", got)
		}
		h.clock.Advance(time.Millisecond)
		renamed := h.do("GET", services, acmeKey, nil).must(t, 200).Raw
		if !strings.Contains(string(renamed), "Renamed elsewhere") {
			t.Errorf("after MaxAge: %s", renamed)
		}
		if got := h.do("GET", services, otherKey, nil).must(t, 200).Raw; string(got) != string(other) {
			t.Errorf("other after acme's change: %s", got)
		}

		// A workspace applied through this instance shows at once, through
		// the admin route as through the applier.
		h.do("PUT", "/api/v2/admin/workspaces/acme", adminKey,
			`{"account": {"slug": "acme"}, "services": [{"key": "cleaning", "name": "Limpieza (admin)"}]}`).must(t, 200)
		if got := h.do("GET", services, acmeKey, nil).must(t, 200).Raw; !strings.Contains(string(got), `"Limpieza (admin)"`) {
			t.Errorf("after the admin apply: %s", got)
		}
		h.applyData([]byte(`{"account": {"slug": "acme"}, "services": [{"key": "cleaning", "name": "Limpieza (file)"}]}`))
		if got := h.do("GET", services, acmeKey, nil).must(t, 200).Raw; !strings.Contains(string(got), `"Limpieza (file)"`) {
			t.Errorf("after the file apply: %s", got)
		}
		// The contract's bytes: the same as a fresh read from the database.
		h.clock.Advance(readcache.MaxAge)
		fresh := h.do("GET", services, acmeKey, nil).must(t, 200).Raw
		if got := h.do("GET", services, acmeKey, nil).must(t, 200).Raw; string(got) != string(fresh) {
			t.Errorf("kept bytes %s\nfresh bytes %s", got, fresh)
		}
	})
}
