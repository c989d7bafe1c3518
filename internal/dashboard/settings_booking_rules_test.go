package dashboard_test

import (
	"net/http"
	"net/url"
	"strings"
	"testing"
	"time"

	"github.com/frontdesk/frontdesk/internal/db"
	"github.com/frontdesk/frontdesk/internal/db/dbtest"
)

// TestSettingsBookingRules: an owner sets the account's booking rules and a
// service's override in Settings; a value that does not read is refused
// with the calendar's reason and writes nothing; each save is one audit
// entry; the public API's slots follow at once; and a dashboard booking
// that breaks a rule is made, with the rule in an amber flash. The harness
// clock is Monday 2026-11-23 10:00 in Madrid; Dr. López works 09-13 and
// 15-19.
func TestSettingsBookingRules(t *testing.T) {
	dbtest.Engines(t, func(t *testing.T, store *db.DB) {
		h := newHarness(t, store)
		a := h.acme()
		u := h.signedIn("ana@acme.test", "ana-password")
		svc := a.Services["cleaning"]
		const rulesPage = "/app/settings/booking-rules"
		u.get(rulesPage).must(t, http.StatusOK).contains(t, `aria-current="page">Booking rules`, `name="min_notice"`, `name="max_future_per_client"`,
			"Empty: none.")

		for _, test := range []struct{ name, field, value, want string }{
			{"a duration in words", "min_notice", "2 hours", "Minimum notice: &#34;2 hours&#34; is not a duration like 30m, 2h or 60d"},
			{"a buffer in hours", "buffer_after", "1h", "Buffer after (minutes): 1h is not a whole number of minutes from 0 to 1440."},
			{"no limit of 0", "max_future_per_client", "0", "Future appointments per client: 0 is not a whole number from 1 to 1000."},
		} {
			t.Run(test.name, func(t *testing.T) {
				p := u.post(rulesPage, url.Values{test.field: {test.value}})
				u.follow(p).contains(t, `class="flash error"`, test.want)
			})
		}
		if n := h.auditRows("booking_rules"); n != 0 {
			t.Fatalf("refused saves wrote %d audit entries", n)
		}

		before := h.slotCount(svc, "2026-11-23")
		u.follow(u.post(rulesPage, url.Values{"min_notice": {"2h"}, "buffer_after": {"10"}, "max_future_per_client": {"1"}})).
			must(t, http.StatusOK).contains(t, "Saved.", `value="2h"`, `value="10"`)
		var summary string
		store.QueryRow(t.Context(), `SELECT summary FROM audit_log WHERE object_type = 'booking_rules'`).Scan(&summary)
		if want := "min_notice: unset → 2h; buffer_after: unset → 10; max_future_per_client: unset → 1"; summary != want {
			t.Errorf("audit summary %q, want %q", summary, want)
		}
		// From 12:00 (two hours of notice), 30 minutes and 10 of buffer:
		// 12:00, then 15:00, 15:40, … 18:20.
		if got := h.slotCount(svc, "2026-11-23"); got != 7 || got >= before {
			t.Errorf("slots today = %d (before the rules %d), want 7", got, before)
		}
		u.follow(u.post(rulesPage, url.Values{"min_notice": {"2h"}, "buffer_after": {"10"}, "max_future_per_client": {"1"}})).contains(t, "Nothing changed.")
		if n := h.auditRows("booking_rules"); n != 1 {
			t.Fatalf("audit entries = %d, want 1", n)
		}

		// The service's page: the account's rules in grey, its own override.
		svcPage := "/app/settings/services/" + itoa(svc)
		u.get(svcPage).must(t, http.StatusOK).contains(t, `id="booking-rules"`, `placeholder="2h"`, `placeholder="10"`)
		u.follow(u.post(svcPage+"/booking-rules", url.Values{"min_notice": {"0m"}})).contains(t, "Saved.", `value="0m"`)
		store.QueryRow(t.Context(), `SELECT summary FROM audit_log WHERE object_type = 'service' ORDER BY id DESC LIMIT 1`).Scan(&summary)
		if summary != "booking rule min_notice: unset → 0m" {
			t.Errorf("service audit summary %q", summary)
		}
		if got := h.slotCount(svc, "2026-11-23"); got != 10 {
			t.Errorf("slots today without notice = %d, want 10 (10:00 to 12:00 and 15:00 to 18:20)", got)
		}
		o := h.other()
		for _, id := range o.Services {
			if p := u.post("/app/settings/services/"+itoa(id)+"/booking-rules", url.Values{"min_notice": {"1h"}}); p.Status != http.StatusNotFound {
				t.Errorf("another account's service: %d", p.Status)
			}
		}

		// Booking from Today: a new client's first appointment keeps the
		// rules; the second breaks max_future_per_client, is booked, and
		// the flash says so in amber.
		loc, _ := time.LoadLocation("Europe/Madrid")
		book := func(hour, minute int) page {
			start := time.Date(2026, 11, 23, hour, minute, 0, 0, loc).UTC().Format(time.RFC3339)
			return u.follow(u.post("/app/book", url.Values{"professional_id": {itoa(a.Professionals["lopez"])}, "service_id": {itoa(svc)},
				"event_type_id": {itoa(a.EventTypes["visit"])}, "start": {start}, "client_id": {"new"}, "phone": {"+34611777888"}, "first_name": {"Rosa"}}))
		}
		first := book(15, 0)
		first.contains(t, `class="flash ok"`, "Booked Rosa")
		if strings.Contains(first.Body, "future appointments") {
			t.Errorf("the first booking warns: %.300s", first.Body)
		}
		book(15, 40).contains(t, `class="flash warn"`, "Booked Rosa", "The client already has 1 future appointments (the most one client may hold is 1).")
		if n := h.count("appointments", "source = 'dashboard' AND status = 'booked'"); n != 2 {
			t.Errorf("dashboard appointments = %d, want 2 (a broken rule never stops staff)", n)
		}
	})
}
