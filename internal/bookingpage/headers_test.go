package bookingpage_test

import (
	"net/http"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/frontdesk/frontdesk/internal/db"
	"github.com/frontdesk/frontdesk/internal/db/dbtest"
	"github.com/frontdesk/frontdesk/internal/ratelimit"
)

// TestFramingAndPrivacyHeaders: every answer — pages, refusals, redirects,
// 404s — carries no-store, no-referrer and noindex (the harness checks
// each), and a frame policy allowing exactly the account's embed origins
// ('self' when it lists none, and on a page of no account).
func TestFramingAndPrivacyHeaders(t *testing.T) {
	dbtest.Engines(t, func(t *testing.T, store *db.DB) {
		h := newHarness(t, store)
		demo := "frame-ancestors https://clinica.example https://www.clinica.example:8443"
		for _, test := range []struct {
			path, csp string
			status    int
		}{
			{"/book/demo", demo, 200},
			{"/book/demo?embed=1", demo, 200},
			{"/book/demo/slots?service=999", demo, 400},
			{"/book/other", "frame-ancestors 'self'", 200},
			{"/book/closed", "frame-ancestors 'self'", 404},
			{"/book/nobody", "frame-ancestors 'self'", 404},
			{"/book/demo/nonsense", "frame-ancestors 'self'", 404},
			{"/m/nonsense-token", "frame-ancestors 'self'", 404},
		} {
			p := h.get(test.path)
			if p.Status != test.status || p.Header.Get("Content-Security-Policy") != test.csp {
				t.Errorf("GET %s -> %d %q, want %d %q", test.path, p.Status, p.Header.Get("Content-Security-Policy"), test.status, test.csp)
			}
		}
	})
}

// TestEmbedded: ?embed=1 drops the page's header for an <iframe>, and
// every link and form of the page keeps it (the booking stays embedded).
func TestEmbedded(t *testing.T) {
	dbtest.Engines(t, func(t *testing.T, store *db.DB) {
		h := newHarness(t, store)
		full := h.get("/book/demo").must(t, 200).has(t, `<header class="top">`, "Clínica Sonrisa (demo)", "Saltar al contenido")
		if strings.Contains(full.Body, `class="embed"`) {
			t.Error("the full page is marked embedded")
		}
		h.get("/book/demo?embed=1").must(t, 200).has(t, `<body class="embed">`, `name="embed" value="1"`).hasNot(t, `<header class="top">`)
		cleaning := strconv.FormatInt(h.ids["demo"].Services["cleaning"], 10)
		slots := h.get("/book/demo/slots?embed=1&service="+cleaning).must(t, 200)
		for _, l := range slots.links("/book/") {
			if !strings.Contains(l, "embed=1") {
				t.Errorf("the embedded page links to %s", l)
			}
		}
		action, token := h.get(slots.link(t, "/book/demo/details?")).form(t, "/book/demo/details")
		if !strings.Contains(action, "embed=1") {
			t.Errorf("the embedded form posts to %s", action)
		}
		next := h.post(action, patientForm(token, "+34611555000", "Eva")).location(t)
		if !strings.Contains(next, "embed=1") {
			t.Errorf("the embedded form leads to %s", next)
		}
		h.get(next).must(t, 200).hasNot(t, `<header class="top">`)
	})
}

// TestLanguages: the account's language by default (the demo's Spanish,
// the other tenant's English), ?lang= over it, kept by links and forms;
// an unknown lang is ignored.
func TestLanguages(t *testing.T) {
	dbtest.Engines(t, func(t *testing.T, store *db.DB) {
		h := newHarness(t, store)
		h.get("/book/demo").must(t, 200).has(t, `<html lang="es">`, "Reservar una cita", `hreflang="en"`)
		en := h.get("/book/demo?lang=en").must(t, 200).has(t, `<html lang="en">`, "Book an appointment", "What would you like to book?", `hreflang="es"`).
			hasNot(t, "Reservar una cita")
		if !strings.Contains(en.Body, `name="lang" value="en"`) {
			t.Error("the English service form does not keep its language")
		}
		h.get("/book/demo?lang=fr").must(t, 200).has(t, `<html lang="es">`)
		h.get("/book/other").must(t, 200).has(t, `<html lang="en">`, "Book an appointment")
		h.get("/book/other?lang=es").must(t, 200).has(t, `<html lang="es">`, "Reservar una cita")
		cleaning := strconv.FormatInt(h.ids["demo"].Services["cleaning"], 10)
		slots := h.get("/book/demo/slots?lang=en&service="+cleaning).must(t, 200).has(t, "Choose a time", "Any professional")
		details := h.get(slots.link(t, "/book/demo/details?")).must(t, 200).has(t, "Your details", "Send me a code")
		action, token := details.form(t, "/book/demo/details")
		h.post(action, patientForm(token, "", "Eva")).must(t, http.StatusBadRequest).has(t, "Enter your phone number.")
		h.get("/book/nobody?lang=en").must(t, 404).has(t, `<html lang="en">`, "Page not found")
		h.get("/book/nobody").must(t, 404).has(t, `<html lang="es">`, "Página no encontrada")
	})
}

// TestTenancy: a page shows only its own account's services and
// professionals, and refuses another account's service, professional or
// sealed step as a slot it does not list.
func TestTenancy(t *testing.T) {
	dbtest.Engines(t, func(t *testing.T, store *db.DB) {
		h := newHarness(t, store)
		h.get("/book/other").must(t, 200).has(t, "Limpieza dental", "Other Clinic").hasNot(t, "Fisioterapia", "Clínica Sonrisa")
		otherService := strconv.FormatInt(h.ids["other"].Services["cleaning"], 10)
		h.get("/book/demo/slots?service="+otherService).must(t, http.StatusBadRequest)
		cleaning := strconv.FormatInt(h.ids["demo"].Services["cleaning"], 10)
		jones := strconv.FormatInt(h.ids["other"].Professionals["jones"], 10)
		// Another account's professional is not a choice: the slots are every professional's.
		h.get("/book/demo/slots?service="+cleaning+"&professional="+jones).must(t, 200).hasNot(t, "Dr. Jones")
		h.get("/book/demo/details?service="+cleaning+"&professional="+jones+"&start=2026-11-23T16:00:00").must(t, http.StatusBadRequest)
	})
}

// TestPerAddressLimit: the pages take from the patients' per-address
// bucket; a refused request is the translated 429 page with Retry-After
// (and the privacy headers), never the API's JSON.
func TestPerAddressLimit(t *testing.T) {
	dbtest.Engines(t, func(t *testing.T, store *db.DB) {
		h := newHarnessLimited(t, store, ratelimit.Limit{PerSecond: 1, Burst: 2})
		h.get("/book/demo").must(t, 200)
		h.get("/m/nonsense").must(t, 404)
		p := h.get("/book/demo?lang=en").must(t, http.StatusTooManyRequests).has(t, `<html lang="en">`, "Too many attempts. Please wait a few minutes and try again.")
		if p.Header.Get("Retry-After") == "" || !strings.HasPrefix(p.Header.Get("Content-Type"), "text/html") {
			t.Errorf("429 headers: %v", p.Header)
		}
		h.get("/book/demo").must(t, http.StatusTooManyRequests).has(t, "Demasiados intentos")
		h.clock.Advance(time.Second)
		h.get("/book/demo").must(t, 200)
	})
}

// TestLargeForm: a form body past the page's bound is refused as a bad
// form, never read whole and never a 500.
func TestLargeForm(t *testing.T) {
	dbtest.Engines(t, func(t *testing.T, store *db.DB) {
		h := newHarness(t, store)
		cleaning := strconv.FormatInt(h.ids["demo"].Services["cleaning"], 10)
		slot := h.get("/book/demo/slots?service="+cleaning).must(t, 200).link(t, "/book/demo/details?")
		action, token := h.get(slot).form(t, "/book/demo/details")
		form := patientForm(token, "+34611000999", "Ana")
		form.Set("notes", strings.Repeat("x", 200<<10))
		h.post(action, form).must(t, http.StatusBadRequest)
		if n := h.count("outbox", "kind = 'verification_code'"); n != 0 {
			t.Errorf("%d codes sent for a refused form", n)
		}
	})
}
