package dashboard_test

import (
	"net/http"
	"net/url"
	"testing"

	"github.com/frontdesk/frontdesk/internal/db"
	"github.com/frontdesk/frontdesk/internal/db/dbtest"
)

// TestSettingsAllowSeries: allow_series is a switch on Settings › Booking
// rules and on a service's rules form (empty inherits, yes, no); a value
// that does not read is refused; each save is audited like the other rules
// (docs/booking-rules.md).
func TestSettingsAllowSeries(t *testing.T) {
	dbtest.Engines(t, func(t *testing.T, store *db.DB) {
		h := newHarness(t, store)
		u := h.signedIn("ana@acme.test", "ana-password")
		const rulesPage = "/app/settings/booking-rules"
		svcPage := "/app/settings/services/" + itoa(h.acme().Services["cleaning"])
		summary := func(objectType string) string {
			var s string
			store.QueryRow(t.Context(), `SELECT summary FROM audit_log WHERE object_type = ? ORDER BY id DESC LIMIT 1`, objectType).Scan(&s)
			return s
		}
		u.get(rulesPage).must(t, http.StatusOK).contains(t, `<select id="rule-allow_series" name="allow_series"`, `<option value="" selected>`,
			"Weekly courses online", "Empty: no.")
		u.follow(u.post(rulesPage, url.Values{"allow_series": {"maybe"}})).contains(t, `class="flash error"`, "Weekly courses online: maybe is not true or false.")
		if n := h.auditRows("booking_rules"); n != 0 {
			t.Fatalf("a refused save wrote %d audit entries", n)
		}
		for _, test := range []struct {
			name, page, value, object, audit, selected string
		}{
			{"the account allows", rulesPage, "true", "booking_rules", "allow_series: unset → true", `<option value="true" selected>`},
			{"the service inherits it", svcPage, "", "", "", "Empty: yes."},
			{"the service refuses", svcPage, "false", "service", "booking rule allow_series: unset → false", `<option value="false" selected>`},
			{"the account back to unset", rulesPage, "", "booking_rules", "allow_series: true → unset", "Empty: no."},
		} {
			t.Run(test.name, func(t *testing.T) {
				if test.object == "" {
					u.get(test.page).must(t, http.StatusOK).contains(t, test.selected)
					return
				}
				target := test.page
				if test.page == svcPage {
					target += "/booking-rules"
				}
				u.follow(u.post(target, url.Values{"allow_series": {test.value}})).contains(t, "Saved.", test.selected)
				if got := summary(test.object); got != test.audit {
					t.Errorf("audit %q, want %q", got, test.audit)
				}
			})
		}
	})
}
