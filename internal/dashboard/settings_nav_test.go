package dashboard_test

import (
	"net/http"
	"testing"

	"github.com/frontdesk/frontdesk/internal/db"
	"github.com/frontdesk/frontdesk/internal/db/dbtest"
)

// Every settings page carries the settings menu with itself marked, and
// the navigation marks Settings as the section.
func TestEverySettingsPageHasTheMenu(t *testing.T) {
	dbtest.Engines(t, func(t *testing.T, store *db.DB) {
		h := newHarness(t, store)
		ana := h.signedIn("ana@acme.test", "ana-password")
		for path, current := range map[string]string{
			"/app/settings/services":       "Services",
			"/app/settings/professionals":  "Professionals",
			"/app/settings/event-types":    "Event types",
			"/app/settings/resources":      "Rooms and equipment",
			"/app/settings/waitlists":      "Waiting lists",
			"/app/settings/calendar-feeds": "Calendar feeds",
			"/app/settings/booking-rules":  "Booking rules",
			"/app/settings/booking-page":   "Booking page",
			"/app/settings/notifications":  "Notifications",
			"/app/settings/channels":       "Channels",
			"/app/settings/webhooks":       "Webhooks",
			"/app/settings/team":           "Team",
			"/app/keys":                    "API keys",
			"/app/settings/audit":          "Audit log",
			"/app/settings/retention":      "Data retention",
		} {
			ana.get(path).must(t, http.StatusOK).contains(t, `<nav class="subnav" aria-label="Settings">`,
				`aria-current="page">`+current+`</a>`, `aria-current="true">Settings`)
		}
		ana.get("/app/settings").must(t, http.StatusOK).contains(t, `<nav class="subnav"`, `aria-current="page">Settings`)
	})
}
