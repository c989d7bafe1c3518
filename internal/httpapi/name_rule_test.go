package httpapi_test

import (
	"context"
	"fmt"
	"strings"
	"testing"

	"github.com/frontdesk/frontdesk/internal/db"
	"github.com/frontdesk/frontdesk/internal/db/dbtest"
)

// TestOneClientNameRule drives the same client names through every door
// that creates a client and wants the same answer from each, and the same
// stored names: the rule is contact.Names (trimmed, at most 100 characters
// each). A new client needs a name only where the use case says so
// (booking: NAME_REQUIRED; the dashboard's client form); a lead, a
// waiting-list entry or a file's client may have a phone alone.
func TestOneClientNameRule(t *testing.T) {
	needsName := map[string]bool{"public booking": true, "mcp booking": true, "dashboard client form": true}
	dbtest.Engines(t, func(t *testing.T, store *db.DB) {
		d := newClientDoors(t, store)
		for row, test := range []struct {
			first, last         string
			ok                  bool   // accepted by every door (when a name is given)
			noName              bool   // no name after trimming
			storedFirst, stored string // what every accepting door stores
		}{
			{first: "Nora", ok: true, storedFirst: "Nora"},
			{last: "Ruiz", ok: true, stored: "Ruiz"},
			{first: "  Nora ", last: " Ruiz  ", ok: true, storedFirst: "Nora", stored: "Ruiz"},
			{first: strings.Repeat("ñ", 100), ok: true, storedFirst: strings.Repeat("ñ", 100)}, // characters, not bytes
			{first: "", last: "", ok: true, noName: true},
			{first: "   ", last: " ", ok: true, noName: true},
			{first: strings.Repeat("n", 101), ok: false},
			{first: "Nora", last: strings.Repeat("r", 101), ok: false},
		} {
			for i, door := range d.doors(100 + row) {
				national := fmt.Sprintf("62%d%06d", i+1, row)
				want := test.ok && !(test.noName && needsName[door.name])
				got := door.create(newClient{phone: "+34" + national, first: test.first, last: test.last})
				if got != want {
					t.Errorf("%s: names %q %q accepted = %v, want %v", door.name, test.first, test.last, got, want)
				}
				if !got {
					continue
				}
				var first, last string
				if err := store.QueryRow(context.Background(), `SELECT first_name, last_name FROM clients WHERE phone_national = ?`, national).Scan(&first, &last); err != nil {
					t.Fatalf("%s: %v", door.name, err)
				}
				if first != test.storedFirst || last != test.stored {
					t.Errorf("%s: names %q %q stored as %q %q, want %q %q", door.name, test.first, test.last, first, last, test.storedFirst, test.stored)
				}
			}
		}
	})
}
