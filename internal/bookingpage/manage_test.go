package bookingpage_test

import (
	"net/http"
	"net/url"
	"strings"
	"testing"
	"time"

	"github.com/frontdesk/frontdesk/internal/db"
	"github.com/frontdesk/frontdesk/internal/db/dbtest"
)

// manageLink books through the page and returns the manage page's path.
func manageLink(t *testing.T, h *harness, phone, first string) string {
	t.Helper()
	done, _ := bookThroughThePage(t, h, phone, first)
	return done.link(t, "/m/")
}

// appointmentState is the status and confirmation of the only appointment
// booked through the page by phone.
func (h *harness) appointmentState(phone string) (string, string, time.Time) {
	h.t.Helper()
	var status, confirmation string
	var start int64
	if err := h.store.QueryRow(h.t.Context(), `SELECT a.status, a.confirmation_status, a.start_at FROM appointments a
		JOIN clients c ON c.account_id = a.account_id AND c.id = a.client_id WHERE a.source = 'booking_page' AND c.phone_national = ?`, strings.TrimPrefix(phone, "+34")).Scan(&status, &confirmation, &start); err != nil {
		h.t.Fatal(err)
	}
	return status, confirmation, db.Time(start)
}

// TestManagePage: the patient confirms, declines, moves to a listed slot
// and cancels (a confirm step, a reason) through plain forms, each answer
// a 303 to the page saying what changed.
func TestManagePage(t *testing.T) {
	dbtest.Engines(t, func(t *testing.T, store *db.DB) {
		h := newHarness(t, store)
		const phone = "+34611333000"
		link := manageLink(t, h, phone, "Lucía")
		view := h.get(link).must(t, 200).has(t, "Confirmo que iré", "No puedo ir", "Elegir otra hora", "Cancelar la cita", "Puedes hacer cambios en línea hasta el")

		action, token := view.form(t, link+"/confirm")
		h.get(h.post(action, url.Values{"form_token": {token}}).location(t)).must(t, 200).
			has(t, "Gracias: tu cita está confirmada.", "Reservada y confirmada").hasNot(t, "Confirmo que iré")
		if _, c, _ := h.appointmentState(phone); c != "confirmed" {
			t.Errorf("confirmation %q after confirming", c)
		}
		action, token = h.get(link).form(t, link+"/decline")
		h.get(h.post(action, url.Values{"form_token": {token}}).location(t)).must(t, 200).has(t, "Gracias por avisarnos de que no puedes venir.")
		if _, c, _ := h.appointmentState(phone); c != "declined" {
			t.Errorf("confirmation %q after declining", c)
		}

		// Move: a week of slots, one picked, a confirm step, the move.
		_, _, before := h.appointmentState(phone)
		week := h.get(link+"/reschedule").must(t, 200).has(t, "Elige una nueva hora", "Volver a tu cita")
		week = h.get(week.link(t, link+"/reschedule?week=")).must(t, 200) // the next week
		step := h.get(week.link(t, link+"/reschedule/confirm?")).must(t, 200).has(t, "Mover tu cita", "Hora actual", "Nueva hora")
		action, token = step.form(t, link+"/reschedule/confirm")
		h.get(h.post(action, url.Values{"form_token": {token}}).location(t)).must(t, 200).has(t, "Tu cita se ha movido.")
		if _, _, after := h.appointmentState(phone); !after.After(before.Add(24 * time.Hour)) {
			t.Errorf("moved from %s to %s, want a day of the next week", before, after)
		}
		t.Run("a time that is not listed", func(t *testing.T) {
			step := h.get(link+"/reschedule/confirm?start=2026-11-29T03:00:00").must(t, 200)
			action, token := step.form(t, link+"/reschedule/confirm")
			h.post(action, url.Values{"form_token": {token}}).must(t, http.StatusBadRequest).has(t, "Lo sentimos, esa hora ya no está libre.")
		})

		// Cancel: the confirm step, then the cancellation with a reason.
		cancel := h.get(h.get(link).link(t, link+"/cancel")).must(t, 200).has(t, "Cancelar tu cita", "Motivo (opcional)", "No, mantenerla")
		action, token = cancel.form(t, link+"/cancel")
		h.get(h.post(action, url.Values{"form_token": {token}, "reason": {"Me he curado"}}).location(t)).must(t, 200).
			has(t, "Tu cita está cancelada.", "Cancelada").hasNot(t, "Cancelar la cita", "Añadir al calendario")
		if s, _, _ := h.appointmentState(phone); s != "cancelled" {
			t.Errorf("status %q after cancelling", s)
		}
		// A cancelled appointment cannot change: its steps say so (409).
		h.get(link+"/cancel").must(t, http.StatusConflict).has(t, "Esta cita está cancelada.")
		h.get(link+"/reschedule").must(t, http.StatusConflict)
		h.post(action, url.Values{"form_token": {h.get(link).formToken()}, "reason": {""}}).must(t, http.StatusConflict)
	})
}

// TestManageAfterTheStart: once the appointment has started it can no
// longer be changed online, and the page says why.
func TestManageAfterTheStart(t *testing.T) {
	dbtest.Engines(t, func(t *testing.T, store *db.DB) {
		h := newHarness(t, store)
		const phone = "+34611333111"
		link := manageLink(t, h, phone, "Ana")
		_, _, start := h.appointmentState(phone)
		token := h.get(link).formToken()
		h.clock.Set(start.Add(5 * time.Minute))
		h.get(link).must(t, 200).has(t, "Empezada o terminada").hasNot(t, "Cancelar la cita", "Confirmo que iré")
		h.get(link+"/cancel").must(t, http.StatusConflict).has(t, "Esta cita ya ha empezado o ha tenido lugar")
		h.post(link+"/cancel", url.Values{"form_token": {token}}).must(t, http.StatusConflict).
			has(t, "Esta cita ya ha empezado o ha tenido lugar")
		h.post(link+"/reschedule/confirm?start=2026-12-01T10:00:00", url.Values{"form_token": {token}}).must(t, http.StatusConflict)
		if s, _, _ := h.appointmentState(phone); s != "booked" {
			t.Errorf("status %q after a refused cancel", s)
		}
		// In English when asked.
		h.get(link+"?lang=en").must(t, 200).has(t, `<html lang="en">`, "Your appointment", "Started or over")
	})
}

// TestManageLinks404: an unknown token, and a token of the right length
// that was never issued, are the translated 404 page.
func TestManageLinks404(t *testing.T) {
	dbtest.Engines(t, func(t *testing.T, store *db.DB) {
		h := newHarness(t, store)
		for _, path := range []string{"/m/nope", "/m/" + strings.Repeat("A", 32), "/m/" + strings.Repeat("A", 32) + "/cancel"} {
			h.get(path).must(t, http.StatusNotFound).has(t, "Página no encontrada")
		}
		h.post("/m/"+strings.Repeat("A", 32)+"/confirm", url.Values{}).must(t, http.StatusNotFound)
	})
}

// formToken is the token of the page's first form.
func (p page) formToken() string {
	m := tokenField.FindStringSubmatch(p.Body)
	if m == nil {
		return ""
	}
	return m[1]
}
