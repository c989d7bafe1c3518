package httpapi_test

import (
	"fmt"
	"strings"
	"testing"

	"github.com/frontdesk/frontdesk/internal/db"
	"github.com/frontdesk/frontdesk/internal/db/dbtest"
)

// TestWorkspaceDurations: every duration a workspace file sets is checked
// against the range its area declares (docs/api-notes.md "Dates and
// durations"), through the admin route: a value outside is 400
// VALIDATION_ERROR naming the field's path.
func TestWorkspaceDurations(t *testing.T) {
	dbtest.Engines(t, func(t *testing.T, store *db.DB) {
		h := newHarness(t, store)
		stage := func(after string) string {
			return `"pipelines": [{"key": "sales", "stages": [{"key": "new", "automations": [{"kind": "sequence", "steps": [{"after": "` + after + `", "template": "Hola"}]}]}]}]`
		}
		for _, test := range []struct {
			name, body string
			problem    string // "" accepted; else the path the problem names
		}{
			{"reminder of 1ns", `"notifications": {"reminders": ["1ns"]}`, "notifications.reminders[0]"},
			{"reminder of 0", `"notifications": {"reminders": ["24h", "0s"]}`, "notifications.reminders[1]"},
			{"reminder of 59s", `"notifications": {"reminders": ["59s"]}`, "notifications.reminders[0]"},
			{"negative reminder", `"notifications": {"reminders": ["-2h"]}`, "notifications.reminders[0]"},
			{"reminder of 31 days", `"notifications": {"reminders": ["31d"]}`, "notifications.reminders[0]"},
			{"reminder of centuries", `"notifications": {"reminders": ["99999999d"]}`, "notifications.reminders[0]"},
			{"the same reminder twice", `"notifications": {"reminders": ["2h", "120m"]}`, "notifications.reminders"},
			{"six reminders", `"notifications": {"reminders": ["1h", "2h", "3h", "4h", "5h", "6h"]}`, "notifications.reminders"},
			{"reminders of 1m and 30d", `"notifications": {"reminders": ["1m", "30d"]}`, ""},
			{"list runs every 1ns", `"waitlists": [{"key": "main", "run_every": "1ns"}]`, "waitlists[0].run_every"},
			{"list runs every 8 days", `"waitlists": [{"key": "main", "run_every": "8d"}]`, "waitlists[0].run_every"},
			{"seat held 0s", `"waitlists": [{"key": "main", "seat_ttl": "0s"}]`, "waitlists[0].seat_ttl"},
			{"seat held 30s", `"waitlists": [{"key": "main", "seat_ttl": "30s"}]`, "waitlists[0].seat_ttl"},
			{"list every minute, seat a week", `"waitlists": [{"key": "main", "run_every": "1m", "seat_ttl": "7d"}]`, ""},
			{"sequence step after 1ns", stage("1ns"), "pipelines[0].stages[0].automations[0].steps[0].after"},
			{"sequence step after 366 days", stage("366d"), "pipelines[0].stages[0].automations[0].steps[0].after"},
			{"sequence step after a year", stage("365d"), ""},
			{"quiet hours all day but 30 minutes", `"messaging": {"quiet_hours": "00:00-23:30"}`, "messaging.quiet_hours"},
			{"quiet hours of 23 hours", `"messaging": {"quiet_hours": "09:00-08:00"}`, ""},
			{"quiet hours of no length", `"messaging": {"quiet_hours": "21:00-21:00"}`, "messaging.quiet_hours"},
		} {
			t.Run(test.name, func(t *testing.T) {
				res := h.do("PUT", "/api/v2/admin/workspaces/acme", adminKey, `{"account": {"slug": "acme"}, `+test.body+`}`)
				if test.problem == "" {
					res.must(t, 200)
					return
				}
				res.must(t, 400)
				if res.errorCode() != "VALIDATION_ERROR" {
					t.Fatalf("code %s: %s", res.errorCode(), res.Raw)
				}
				found := false
				for _, p := range res.list("details", "problems") {
					found = found || strings.HasPrefix(fmt.Sprint(p), test.problem+": ")
				}
				if !found {
					t.Errorf("no problem at %s: %s", test.problem, res.Raw)
				}
			})
		}
	})
}
