package bookingpage_test

import (
	"net/http"
	"net/url"
	"strconv"
	"testing"
	"time"

	"github.com/frontdesk/frontdesk/internal/db"
	"github.com/frontdesk/frontdesk/internal/db/dbtest"
	"github.com/frontdesk/frontdesk/internal/ratelimit"
)

// TestBookingRulesOnThePage: the clinic's rules hold on the page — a
// patient with as many future appointments as max_future_per_client is
// told so on the code form (BOOKING_LIMIT_REACHED), and inside the
// cancel cut-off the manage page says until when changes were possible
// and refuses them (409).
func TestBookingRulesOnThePage(t *testing.T) {
	dbtest.Engines(t, func(t *testing.T, store *db.DB) {
		h := newHarnessLimited(t, store, ratelimit.Limit{PerSecond: 1000, Burst: 1_000_000}, "testdata/demo_rules.yaml")
		const phone = "+34611444000"
		done, _ := bookThroughThePage(t, h, phone, "Elena")
		link := done.link(t, "/m/")

		// A second appointment for the same patient.
		cleaning := strconv.FormatInt(h.ids["demo"].Services["cleaning"], 10)
		slots := h.get("/book/demo/slots?service="+cleaning).must(t, 200).links("/book/demo/details?")
		slot := slots[len(slots)/2] // ahead of now
		action, token := h.get(slot).form(t, "/book/demo/details")
		step := h.post(action, patientForm(token, phone, "Elena")).location(t)
		action, token = h.get(step).form(t, "/book/demo/code?")
		h.post(action, url.Values{"form_token": {token}, "code": {h.lastCode(phone)}}).must(t, http.StatusBadRequest).
			has(t, "Ya tienes tantas citas próximas como la clínica admite en línea.")

		// Inside the cut-off (a day before the start, less a minute).
		h.get(link).must(t, 200).has(t, "Puedes hacer cambios en línea hasta el")
		_, _, start := h.appointmentState(phone)
		formToken := h.get(link).formToken()
		h.clock.Set(start.Add(-24*time.Hour + time.Minute))
		h.get(link).must(t, 200).has(t, "Los cambios en línea eran posibles hasta el").hasNot(t, "Cancelar la cita")
		h.get(link+"/cancel").must(t, http.StatusConflict).has(t, "Llama a la clínica para cambiar esta cita.")
		h.post(link+"/cancel", url.Values{"form_token": {formToken}}).must(t, http.StatusConflict)
		if s, _, _ := h.appointmentState(phone); s != "booked" {
			t.Errorf("status %q after a refused cancel", s)
		}
	})
}
