package bookingpage_test

import (
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/frontdesk/frontdesk/internal/db"
	"github.com/frontdesk/frontdesk/internal/db/dbtest"
	"github.com/frontdesk/frontdesk/internal/ratelimit"
)

// TestWeeklyCourseOnThePage: the details step offers "Repeat weekly" only
// for a service whose rules allow_series; a course of three sessions is
// booked with one code and the confirmation lists every session; a course
// whose second session is taken books nothing and names that day on the
// code form (docs/booking-page.md, docs/series.md).
func TestWeeklyCourseOnThePage(t *testing.T) {
	dbtest.Engines(t, func(t *testing.T, store *db.DB) {
		h := newHarnessLimited(t, store, ratelimit.Limit{PerSecond: 1000, Burst: 1_000_000}, "testdata/demo_series.yaml")
		ids := h.ids["demo"]
		cleaning, physio := strconv.FormatInt(ids.Services["cleaning"], 10), strconv.FormatInt(ids.Services["physio"], 10)
		slot := func(service string) string {
			t.Helper()
			all := h.get("/book/demo/slots?service="+service).must(t, 200).links("/book/demo/details?")
			if len(all) < 3 {
				t.Fatalf("%d slots of service %s", len(all), service)
			}
			return all[len(all)/2]
		}
		h.get(slot(cleaning)).must(t, 200).hasNot(t, `name="sessions"`, "Repetir cada semana")
		first := slot(physio)
		h.get(first).must(t, 200).has(t, `<select id="sessions" name="sessions"`, "Repetir cada semana", `<option value="1" selected>Solo esta vez</option>`,
			`<option value="12">12 sesiones, una por semana</option>`)

		// A course whose first session is free but whose second is taken:
		// someone books the second week's slot on its own first.
		u, _ := url.Parse(first)
		start, _ := time.Parse("2006-01-02T15:04:05", u.Query().Get("start"))
		q := u.Query()
		q.Set("start", start.AddDate(0, 0, 7).Format("2006-01-02T15:04:05"))
		book := func(link, phone string, sessions string) page {
			t.Helper()
			action, token := h.get(link).must(t, 200).form(t, "/book/demo/details")
			form := patientForm(token, phone, "Curso")
			form.Set("sessions", sessions)
			step := h.post(action, form).location(t)
			code := h.get(step).must(t, 200)
			if sessions != "1" {
				code.has(t, sessions+" sesiones, una por semana")
			}
			action, token = code.form(t, "/book/demo/code?")
			return h.post(action, url.Values{"form_token": {token}, "code": {h.lastCode(phone)}})
		}
		h.get(book("/book/demo/details?"+q.Encode(), "+34611555001", "1").location(t)).must(t, 200)
		refused := book(first, "+34611555002", "3").must(t, http.StatusBadRequest)
		refused.has(t, "Lo sentimos, algunas sesiones del curso no están libres: "+dayOf(start.AddDate(0, 0, 7)))
		if n := h.count("appointments", "source = 'booking_page'"); n != 1 {
			t.Fatalf("%d patient appointments after a refused course, want 1", n)
		}

		// The same slot, two sessions a week apart would take the taken
		// one too; a course from the week after that is free.
		q.Set("start", start.AddDate(0, 0, 14).Format("2006-01-02T15:04:05"))
		done := h.get(book("/book/demo/details?"+q.Encode(), "+34611555003", "3").location(t)).must(t, 200)
		done.has(t, "Tu cita está reservada", "Sesiones", "Fisioterapia")
		_, list, _ := strings.Cut(done.Body, `<ol class="sessions">`)
		list, _, _ = strings.Cut(list, "</ol>")
		if n := strings.Count(list, "<li>"); n != 3 {
			t.Errorf("the confirmation lists %d sessions, want 3:\n%s", n, done.Body)
		}
		if n := h.count("appointments", "source = 'booking_page' AND series_id IS NOT NULL"); n != 3 {
			t.Errorf("%d sessions stored, want 3", n)
		}
		if n := h.count("outbox", "kind = 'verification_code' AND recipient = ?", "+34611555003"); n != 1 {
			t.Errorf("%d codes for one course, want 1", n)
		}
		if n := h.count("outbox", "kind = 'booking_confirmation' AND recipient = ?", "+34611555003"); n != 1 {
			t.Errorf("%d confirmation requests for one course, want 1", n)
		}
	})
}

// dayOf is a day as the Spanish page writes it ("lunes, 7 de diciembre").
func dayOf(t time.Time) string {
	days := []string{"domingo", "lunes", "martes", "miércoles", "jueves", "viernes", "sábado"}
	months := []string{"", "enero", "febrero", "marzo", "abril", "mayo", "junio", "julio", "agosto", "septiembre", "octubre", "noviembre", "diciembre"}
	return days[t.Weekday()] + ", " + strconv.Itoa(t.Day()) + " de " + months[t.Month()]
}
