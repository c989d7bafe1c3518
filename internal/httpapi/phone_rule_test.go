package httpapi_test

import (
	"fmt"
	"strings"
	"testing"

	"github.com/frontdesk/frontdesk/internal/db"
	"github.com/frontdesk/frontdesk/internal/db/dbtest"
)

// TestOnePhoneRule drives the same phone numbers through every door that
// creates a client from one (public and MCP booking, ingest rows by API and
// MCP, waiting-list adds by API and MCP, the dashboard's client form use
// case, the workspace file) and wants the same accept or refuse from each:
// the rule is the phone package's (ParseWithRegion with the account's region
// ES; ingest's ParseIngest with area code 34 reads the same numbers alike).
func TestOnePhoneRule(t *testing.T) {
	dbtest.Engines(t, func(t *testing.T, store *db.DB) {
		d := newClientDoors(t, store)
		for row, test := range []struct {
			phone string // %s is a Spanish mobile's 9 national digits, its own per door
			ok    bool
		}{
			{"+34%s", true},
			{"0034%s", true},
			{"%s", true}, // national: the account's region
			{"  +34 %s  ", true},
			{"+34-%s", true},
			{"(+34) %s", true},
			{"+34%.5s", false},       // too short
			{"+34%s12345678", false}, // too long
			{"+999%s", false},        // no such country code
			{"+34%s ext", false},
			{"abc%.0s", false},
		} {
			for i, door := range d.doors(row) {
				national := fmt.Sprintf("61%d%06d", i+1, row)
				if strings.Contains(test.phone, "%s ext") || strings.HasPrefix(test.phone, "(") {
					national = national[:3] + " " + national[3:6] + " " + national[6:]
				}
				phone := fmt.Sprintf(test.phone, national)
				if got := door.create(newClient{phone: phone, first: "Nora"}); got != test.ok {
					t.Errorf("%s: phone %q accepted = %v, want %v", door.name, phone, got, test.ok)
				}
			}
		}
	})
}
