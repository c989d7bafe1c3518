package bookingpage_test

import (
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"testing"

	"github.com/frontdesk/frontdesk/internal/db"
	"github.com/frontdesk/frontdesk/internal/db/dbtest"
)

// bookThroughThePage walks the whole booking as a browser without
// JavaScript does — service, professional, slot, details, code — and
// returns the confirmation page and its address.
func bookThroughThePage(t *testing.T, h *harness, phone, first string) (page, string) {
	t.Helper()
	cleaning := strconv.FormatInt(h.ids["demo"].Services["cleaning"], 10)
	lopez := strconv.FormatInt(h.ids["demo"].Professionals["lopez"], 10)
	h.get("/book/demo").must(t, 200).has(t, `<html lang="es">`, "Limpieza dental", "Fisioterapia", "¿Qué quieres reservar?")
	// The service form is a GET form: its submission is this address.
	slots := h.get("/book/demo/slots?service="+cleaning).must(t, 200).has(t, "Elige una hora", "Cualquier profesional", "Dra. López", "Dr. Martín")
	// Choosing a professional is a GET form too.
	slots = h.get("/book/demo/slots?service="+cleaning+"&professional="+lopez).must(t, 200)
	// The week's last slot: an appointment that is still ahead.
	all := slots.links("/book/demo/details?")
	if len(all) == 0 {
		t.Fatalf("no slot on the page:\n%s", slots.Body)
	}
	slot := all[len(all)-1]
	details := h.get(slot).must(t, 200).has(t, "Tus datos", "Limpieza dental", "con Dra. López", "Enviarme un código")
	action, token := details.form(t, "/book/demo/details")
	codeStep := h.post(action, patientForm(token, phone, first)).location(t)
	if !strings.HasPrefix(codeStep, "/book/demo/code?d=") {
		t.Fatalf("the details lead to %s", codeStep)
	}
	if strings.Contains(codeStep, strings.TrimPrefix(phone, "+")) || strings.Contains(codeStep, first) {
		t.Errorf("the code step's address shows the patient's details: %s", codeStep)
	}
	code := h.get(codeStep).must(t, 200).has(t, "Escribe el código", "•••"+phone[len(phone)-3:])
	action, token = code.form(t, "/book/demo/code?")
	booked := h.post(action, url.Values{"form_token": {token}, "code": {h.lastCode(phone)}}).location(t)
	if !strings.HasPrefix(booked, "/book/demo/booked?b=") {
		t.Fatalf("the code leads to %s", booked)
	}
	return h.get(booked).must(t, 200), booked
}

// TestBookingWithoutJavaScript books through plain links and form posts
// on both engines: every POST answers 303, the confirmation carries the
// manage link and the calendar file, and the appointment is the patient
// API's (source booking_page).
func TestBookingWithoutJavaScript(t *testing.T) {
	dbtest.Engines(t, func(t *testing.T, store *db.DB) {
		h := newHarness(t, store)
		done, _ := bookThroughThePage(t, h, "+34611222333", "Lucía")
		done.has(t, "Tu cita está reservada", "Limpieza dental", "Dra. López", "Añadir al calendario", "https://citas.example/m/")
		manage := done.link(t, "/m/")
		ics := done.link(t, "/m/"+strings.TrimPrefix(manage, "/m/")+"/appointment.ics")
		if n := h.count("appointments", "source = 'booking_page'"); n != 1 {
			t.Fatalf("%d appointments booked through the page, want 1", n)
		}
		// The calendar file the link names is served (by the patient API).
		if p := h.get(ics); p.Status != http.StatusOK || !strings.Contains(p.Body, "BEGIN:VCALENDAR") {
			t.Errorf("GET %s -> %d %q", ics, p.Status, p.Body)
		}
		h.get(manage).must(t, 200).has(t, "Tu cita", "Hola, Lucía.", "Limpieza dental", "Dra. López")
	})
}

// TestDoubleSubmit: the same form sent twice (a double click, a reload
// that posts again) books once and lands both on the confirmation.
func TestDoubleSubmit(t *testing.T) {
	dbtest.Engines(t, func(t *testing.T, store *db.DB) {
		h := newHarness(t, store)
		cleaning := strconv.FormatInt(h.ids["demo"].Services["cleaning"], 10)
		slot := h.get("/book/demo/slots?service="+cleaning).must(t, 200).link(t, "/book/demo/details?")
		action, token := h.get(slot).form(t, "/book/demo/details")
		form := patientForm(token, "+34611222444", "Pedro")
		first := h.post(action, form).location(t)
		if again := h.post(action, form).location(t); again != first {
			t.Errorf("the second send leads to %s, the first to %s", again, first)
		}
		if n := h.count("outbox", "kind = 'verification_code' AND recipient = ?", "+34611222444"); n != 1 {
			t.Errorf("%d codes sent for one form sent twice", n)
		}
		action, token = h.get(first).form(t, "/book/demo/code?")
		form = url.Values{"form_token": {token}, "code": {h.lastCode("+34611222444")}}
		booked := h.post(action, form).location(t)
		if again := h.post(action, form).location(t); again != booked {
			t.Errorf("the second send leads to %s, the first to %s", again, booked)
		}
		if n := h.count("appointments", "source = 'booking_page'"); n != 1 {
			t.Errorf("%d appointments for one form sent twice", n)
		}
	})
}

// TestNewCode: "Send a new code" sends another code to the same phone and
// comes back to the code step saying so; the new code books.
func TestNewCode(t *testing.T) {
	dbtest.Engines(t, func(t *testing.T, store *db.DB) {
		h := newHarness(t, store)
		cleaning := strconv.FormatInt(h.ids["demo"].Services["cleaning"], 10)
		slot := h.get("/book/demo/slots?service="+cleaning).must(t, 200).link(t, "/book/demo/details?")
		action, token := h.get(slot).form(t, "/book/demo/details")
		step := h.post(action, patientForm(token, "+34611222555", "Nuria")).location(t)
		first := h.lastCode("+34611222555")
		page := h.get(step).must(t, 200)
		again := tokenField.FindAllStringSubmatch(page.Body, -1)
		if len(again) != 2 || again[0][1] == again[1][1] {
			t.Fatalf("the code step's two forms share a token: %v", again)
		}
		action, _ = page.form(t, "/book/demo/code?")
		back := h.post(action, url.Values{"form_token": {again[1][1]}, "again": {"1"}}).location(t)
		if n := h.count("outbox", "kind = 'verification_code' AND recipient = ?", "+34611222555"); n != 2 {
			t.Fatalf("%d codes after asking for a new one", n)
		}
		page = h.get(back).must(t, 200).has(t, "Te hemos enviado un código nuevo.")
		action, token = page.form(t, "/book/demo/code?")
		code := h.lastCode("+34611222555")
		if code == first {
			t.Skip("the new code happens to equal the first")
		}
		h.post(action, url.Values{"form_token": {token}, "code": {code}}).location(t)
		if n := h.count("appointments", "source = 'booking_page'"); n != 1 {
			t.Errorf("%d appointments booked with the new code", n)
		}
	})
}
