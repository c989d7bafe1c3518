package dashboard_test

import (
	"html"
	"maps"
	"net/http"
	"net/url"
	"strings"
	"testing"

	"github.com/frontdesk/frontdesk/internal/db"
	"github.com/frontdesk/frontdesk/internal/db/dbtest"
)

// TestSettingsDurations: the settings forms check durations with the
// ranges their areas declare (jobs.ReminderLead, waitlist.RunEvery,
// waitlist.SeatTTL), the same the workspace file is held to, and refuse in
// the user's language.
func TestSettingsDurations(t *testing.T) {
	dbtest.Engines(t, func(t *testing.T, store *db.DB) {
		h := newHarness(t, store)
		ana := h.signedIn("ana@acme.test", "ana-password")
		eva := h.signedIn("eva@acme.test", "eva-password")
		list := "/app/settings/waitlists/" + itoa(h.acme().Waitlists["main"])
		schedule := func(every, ttl string) url.Values {
			return url.Values{"active": {"on"}, "horizon_days": {"30"}, "run_every_minutes": {every}, "seat_ttl_minutes": {ttl}, "max_offers": {"3"}}
		}
		const (
			leadEN  = "A reminder goes out 1 minute to 30 days before the appointment: write a number and a unit, like 24h, 2h, 30m or 2d."
			leadES  = "Un recordatorio sale de 1 minuto a 30 días antes de la cita: escribe un número y una unidad, como 24h, 2h, 30m o 2d."
			twiceEN = "Two reminders at the same time before the appointment."
			twiceES = "Dos recordatorios con la misma antelación."
			everyEN = "A list runs every 1 minute to 7 days."
			everyES = "Una lista se ejecuta cada 1 minuto a 7 días."
			ttlEN   = "A seat is held 1 minute to 7 days."
			ttlES   = "Un hueco se reserva de 1 minuto a 7 días."
		)
		for _, test := range []struct {
			name, path string
			form       url.Values
			en, es     string // "": saved
		}{
			{"reminder of 1ns", "/app/settings/notifications", url.Values{"reminders": {"1ns"}}, leadEN, leadES},
			{"reminder of 0", "/app/settings/notifications", url.Values{"reminders": {"24h, 0m"}}, leadEN, leadES},
			{"reminder of 59s", "/app/settings/notifications", url.Values{"reminders": {"59s"}}, leadEN, leadES},
			{"reminder of 31 days", "/app/settings/notifications", url.Values{"reminders": {"31d"}}, leadEN, leadES},
			{"negative reminder", "/app/settings/notifications", url.Values{"reminders": {"-1h"}}, leadEN, leadES},
			{"the same reminder twice", "/app/settings/notifications", url.Values{"reminders": {"1d, 24h"}}, twiceEN, twiceES},
			{"reminders of 1m and 30d", "/app/settings/notifications", url.Values{"reminders": {"1m, 30d"}}, "", ""},
			{"list runs every 0 minutes", list, schedule("0", "120"), everyEN, everyES},
			{"list runs every 8 days", list, schedule("11521", "120"), everyEN, everyES},
			{"seat held -1 minutes", list, schedule("15", "-1"), ttlEN, ttlES},
			{"seat held 8 days", list, schedule("15", "11521"), ttlEN, ttlES},
			{"list every minute, seat a week", list, schedule("1", "10080"), "", ""},
		} {
			t.Run(test.name, func(t *testing.T) {
				for _, u := range []struct {
					who  *user
					want string
				}{{ana, test.en}, {eva, test.es}} {
					u.who.get(test.path)
					p := u.who.post(test.path, maps.Clone(test.form)) // post adds the user's token
					if p.Status == http.StatusSeeOther {
						p = u.who.follow(p)
					}
					body := html.UnescapeString(p.Body)
					if u.want == "" {
						if p.Status != http.StatusOK || strings.Contains(body, "flash error") {
							t.Errorf("refused: %d %.600s", p.Status, body)
						}
						continue
					}
					if !strings.Contains(body, u.want) {
						t.Errorf("want %q: %d %.1500s", u.want, p.Status, body)
					}
				}
			})
		}
		// The form states the range.
		ana.get("/app/settings/notifications").contains(t, "each from 1m to 30d before the appointment, at most 5")
	})
}
