package dashboard_test

import (
	"net/http"
	"net/url"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/frontdesk/frontdesk/internal/dashboard"
	"github.com/frontdesk/frontdesk/internal/db"
	"github.com/frontdesk/frontdesk/internal/db/dbtest"
)

// addOrthodontist gives acme a second professional, Dr. Ruiz (Mondays
// 09:00-14:00), who offers only a 60-minute service, Ortodoncia.
func (h *harness) addOrthodontist() (pro, svc int64) {
	h.t.Helper()
	h.applyYAML(`
account: {slug: acme, name: Acme Clinic, timezone: Europe/Madrid, default_region: ES}
professionals:
  - {key: ruiz, name: Dr. Ruiz, active: true, working_hours: {mon: ["09:00-14:00"]}}
services:
  - {key: ortho, name: Ortodoncia, color: "#8e24aa", default_duration_minutes: 60, professionals: [ruiz], event_types: [visit]}
`)
	return h.acme().Professionals["ruiz"], h.acme().Services["ortho"]
}

// rowSpan reads the grid rows an element with that id attribute takes.
func rowSpan(t *testing.T, body, id string) (from, to int) {
	t.Helper()
	m := regexp.MustCompile(`id="` + regexp.QuoteMeta(id) + `"[^>]*style="grid-row: (\d+) / (\d+)`).FindStringSubmatch(body)
	if m == nil {
		t.Fatalf("no grid rows for %s", id)
	}
	from, _ = strconv.Atoi(m[1])
	to, _ = strconv.Atoi(m[2])
	return from, to
}

// TestTodayGaps: every professional's free gaps are bookable whatever the
// service asked about (the service is chosen in the form); heights are
// proportional to time; the now line is on today only; held offers can be
// accepted or released and free time offered to the waiting list, also
// right after a cancel.
func TestTodayGaps(t *testing.T) {
	dbtest.Engines(t, func(t *testing.T, store *db.DB) {
		h := newHarness(t, store) // now: Mon 23 Nov 10:00 in Madrid
		a := h.acme()
		ruiz, ortho := h.addOrthodontist()
		lopez, cleaning, visit := a.Professionals["lopez"], a.Services["cleaning"], a.EventTypes["visit"]
		u := h.signedIn("ana@acme.test", "ana-password")
		long := h.addAppointment("acme", a.Clients["maria"], ortho, ruiz, visit, at("2026-11-23", "11:00"), "pending")
		store.Exec(t.Context(), `UPDATE appointments SET end_at = ? WHERE id = ?`, db.Micros(at("2026-11-23", "12:00")), long)
		short := h.addAppointment("acme", a.Clients["maria"], cleaning, lopez, visit, at("2026-11-23", "11:00"), "pending")
		held := h.addHeldEntry("acme", a.Waitlists["main"], a.Clients["maria"], cleaning, lopez, at("2026-11-23", "12:00"), testNow.Add(2*time.Hour))

		for _, tc := range []struct {
			name, query string
			want, not   []string
		}{
			{"the first service", "", []string{
				bookLink(ruiz, ortho, at("2026-11-23", "10:00")), bookLink(ruiz, ortho, at("2026-11-23", "12:00")), bookLink(ruiz, ortho, at("2026-11-23", "13:00")),
				bookLink(lopez, cleaning, at("2026-11-23", "10:30")), bookLink(lopez, cleaning, at("2026-11-23", "15:00")),
			}, []string{bookLink(ruiz, ortho, at("2026-11-23", "11:00")), bookLink(ruiz, ortho, at("2026-11-23", "09:00"))}},
			{"a service only one offers", "?service=" + itoa(ortho), []string{
				bookLink(ruiz, ortho, at("2026-11-23", "10:00")), bookLink(lopez, cleaning, at("2026-11-23", "10:30")),
			}, []string{bookLink(lopez, cleaning, at("2026-11-23", "12:00"))}},
		} {
			t.Run(tc.name, func(t *testing.T) {
				p := u.get("/app/today"+tc.query).must(t, http.StatusOK).contains(t, "Dr. Ruiz", "Dr. López", "Free 10:00–11:00")
				p.contains(t, tc.want...)
				for _, s := range tc.not {
					if strings.Contains(p.Body, s) {
						t.Errorf("%q on the page", s)
					}
				}
			})
		}
		p := u.get("/app/today?service="+itoa(cleaning)).must(t, http.StatusOK)
		// Each gap offers its time to the waiting list.
		offer := "/app/waitlists/offer?" + strings.ReplaceAll(url.Values{"professional_id": {itoa(ruiz)}, "service_id": {itoa(ortho)},
			"start": {at("2026-11-23", "12:00").UTC().Format(time.RFC3339)}}.Encode(), "&", "&amp;")
		p.contains(t, offer, `class="tg-offer"`)
		// The booking form from Dr. Ruiz's gap lists the services he offers.
		u.get(strings.ReplaceAll(bookLink(ruiz, ortho, at("2026-11-23", "13:00")), "&amp;", "&")).must(t, http.StatusOK).contains(t, "Ortodoncia (60 min)")
		// A linear scale: 60 minutes are twice the rows of 30.
		lf, lt := rowSpan(t, p.Body, "appt-"+itoa(long))
		sf, st := rowSpan(t, p.Body, "appt-"+itoa(short))
		if lf != sf || lt-lf != 2*(st-sf) || st-sf != 6 {
			t.Errorf("60 min takes rows %d-%d, 30 min %d-%d", lf, lt, sf, st)
		}
		// The now line: on today at 10:00, on no other day.
		if nf, _ := rowSpanNow(t, p.Body); nf != lf-12 {
			t.Errorf("now line on row %d, 11:00 on %d", nf, lf)
		}
		p.contains(t, "Now: 10:00")
		for _, day := range []string{"2026-11-24", "2026-11-16"} {
			if strings.Contains(u.get("/app/today?date="+day).must(t, http.StatusOK).Body, `id="tg-now"`) {
				t.Errorf("a now line on %s", day)
			}
		}
		// A held offer: accept or release it, back to Today.
		hold := p.item("hold-" + itoa(held))
		for _, s := range []string{`action="/app/offers/` + itoa(held) + `/accept"`, `action="/app/offers/` + itoa(held) + `/release"`, `name="csrf_token"`} {
			if !strings.Contains(hold, s) {
				t.Errorf("held offer lacks %q: %s", s, hold)
			}
		}
		// Cancelling from Today offers the freed time to the waiting list.
		back := regexp.MustCompile(`/app/appointments/` + itoa(short) + `/cancel"[^>]*>\s*<input type="hidden" name="csrf_token" value="[^"]*">\s*<input type="hidden" name="back" value="([^"]*)"`).FindStringSubmatch(p.Body)
		if back == nil {
			t.Fatal("no cancel form")
		}
		got := u.follow(u.post("/app/appointments/"+itoa(short)+"/cancel", url.Values{"back": {strings.ReplaceAll(back[1], "&amp;", "&")}}))
		freed := "/app/waitlists/offer?" + strings.ReplaceAll(url.Values{"professional_id": {itoa(lopez)}, "service_id": {itoa(cleaning)},
			"start": {at("2026-11-23", "11:00").UTC().Format(time.RFC3339)}}.Encode(), "&", "&amp;")
		got.must(t, http.StatusOK).contains(t, "Appointment cancelled", "Offer this time to the waiting list", freed)
		if !strings.Contains(got.Body, `/confirm">`) {
			t.Fatal("no confirm form to look at")
		}
		if regexp.MustCompile(`/(?:status|undo|confirm)">\s*<input type="hidden" name="csrf_token" value="[^"]*">\s*<input type="hidden" name="back" value="[^"]*freed=`).MatchString(got.Body) {
			t.Error("the page's actions return to the offer of the freed time")
		}
		// Not for an appointment still booked, nor in another account.
		if strings.Contains(u.get("/app/today?freed="+itoa(long)).Body, "Offer this time to the waiting list") {
			t.Error("a booked appointment offered as freed")
		}
		eva := h.signedIn("eva@acme.test", "eva-password")
		misses, stop := dashboard.RecordMisses()
		eva.get("/app/today?freed="+itoa(short)).must(t, http.StatusOK).
			contains(t, "Ofrecer esta hora a la lista de espera", "Libre 10:00–11:00", "Ahora: 10:00", "Liberar", "Aceptar", "Reservar 10:00")
		stop()
		if m := misses(); len(m) > 0 {
			t.Errorf("no Spanish for %v", m)
		}
		if strings.Contains(h.signedIn("bob@other.test", "bob-password").get("/app/today?freed="+itoa(short)).Body, "waitlists/offer?professional_id="+itoa(lopez)) {
			t.Error("another account sees the freed time")
		}
	})
}

// rowSpanNow reads the now line's row and its fraction of a row.
func rowSpanNow(t *testing.T, body string) (int, string) {
	t.Helper()
	m := regexp.MustCompile(`id="tg-now" style="grid-row: (\d+); grid-column: \d+ / \d+; --tg-frac: ([0-9.]+)"`).FindStringSubmatch(body)
	if m == nil {
		t.Fatal("no now line")
	}
	n, _ := strconv.Atoi(m[1])
	return n, m[2]
}
