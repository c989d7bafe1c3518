package bookingpage_test

import (
	"context"
	"html"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"net/url"
	"os"
	"regexp"
	"strings"
	"testing"
	"time"

	"golang.org/x/crypto/bcrypt"

	"github.com/frontdesk/frontdesk/internal/bookingpage"
	"github.com/frontdesk/frontdesk/internal/clock"
	"github.com/frontdesk/frontdesk/internal/db"
	"github.com/frontdesk/frontdesk/internal/httpapi"
	"github.com/frontdesk/frontdesk/internal/outbound"
	"github.com/frontdesk/frontdesk/internal/password"
	"github.com/frontdesk/frontdesk/internal/ratelimit"
	"github.com/frontdesk/frontdesk/internal/secrets"
	"github.com/frontdesk/frontdesk/internal/workspace"
)

// testNow is Monday 23 November 2026, 10:00 in Madrid.
var testNow = time.Date(2026, 11, 23, 9, 0, 0, 0, time.UTC)

func TestMain(m *testing.M) {
	password.Cost = bcrypt.MinCost
	os.Exit(m.Run())
}

// pageHeaders are on every answer of the pages.
var pageHeaders = map[string]string{"Cache-Control": "no-store", "Referrer-Policy": "no-referrer", "X-Robots-Tag": "noindex"}

// harness is the real server (the API with the pages mounted) on a real
// store, provisioned with the demo workspace (its page embeddable by two
// origins), the other tenant (its page on, no codes, in English) and a
// clinic whose page is off.
type harness struct {
	t     *testing.T
	store *db.DB
	clock *clock.Fake
	srv   http.Handler
	ids   map[string]workspace.IDs
}

// newHarness is the harness with a per-address limit no test reaches (the
// fake clock never refills a bucket); newHarnessLimited sets it.
func newHarness(t *testing.T, store *db.DB) *harness {
	t.Helper()
	return newHarnessLimited(t, store, ratelimit.Limit{PerSecond: 1000, Burst: 1_000_000})
}

func newHarnessLimited(t *testing.T, store *db.DB, perAddress ratelimit.Limit, extra ...string) *harness {
	t.Helper()
	h := &harness{t: t, store: store, clock: clock.NewFake(testNow), ids: map[string]workspace.IDs{}}
	files := [][]byte{workspace.Demo()}
	for _, f := range append([]string{"../httpapi/testdata/other.yaml", "testdata/demo_page.yaml", "testdata/other_page.yaml", "testdata/closed.yaml"}, extra...) {
		data, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		files = append(files, data)
	}
	for _, data := range files {
		res, err := (&workspace.Applier{DB: store, Now: h.clock.Now, HashPassword: password.Hash, Targets: outbound.Policy{AllowPrivate: true}}).Apply(context.Background(), data)
		if err != nil {
			t.Fatalf("apply: %v", err)
		}
		if _, ok := h.ids[res.Account.Slug]; !ok {
			h.ids[res.Account.Slug] = res.IDs
		}
	}
	box, err := secrets.New([]byte("0123456789abcdef0123456789abcdef"))
	if err != nil {
		t.Fatal(err)
	}
	log := slog.New(slog.NewTextHandler(io.Discard, nil))
	pages, err := bookingpage.New(bookingpage.Config{DB: store, Clock: h.clock, Log: log, Secrets: box})
	if err != nil {
		t.Fatal(err)
	}
	h.srv = httpapi.NewServer(httpapi.Config{DB: store, Clock: h.clock, Log: log, Secrets: box, PublicURL: "https://citas.example", BookingPage: pages,
		RateLimit: httpapi.RateLimit{Patients: perAddress}})
	return h
}

// page is one answer of the pages.
type page struct {
	Status int
	Header http.Header
	Body   string
}

// get fetches path as a browser without JavaScript would (no redirect
// followed: the tests follow them, so they see each 303).
func (h *harness) get(path string) page {
	h.t.Helper()
	return h.send(httptest.NewRequest("GET", path, nil))
}

// post sends a form as a browser does.
func (h *harness) post(path string, form url.Values) page {
	h.t.Helper()
	req := httptest.NewRequest("POST", path, strings.NewReader(form.Encode()))
	req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
	return h.send(req)
}

func (h *harness) send(req *http.Request) page {
	h.t.Helper()
	req.RemoteAddr = "192.0.2.10:4711"
	rec := httptest.NewRecorder()
	h.srv.ServeHTTP(rec, req)
	p := page{Status: rec.Code, Header: rec.Header(), Body: rec.Body.String()}
	for k, v := range pageHeaders {
		if got := p.Header.Get(k); got != v {
			h.t.Errorf("%s %s -> %d: %s = %q, want %q", req.Method, req.URL, p.Status, k, got, v)
		}
	}
	if p.Status >= 500 {
		h.t.Errorf("%s %s -> %d: %s", req.Method, req.URL, p.Status, p.Body)
	}
	return p
}

// must fails the test unless the page answered status.
func (p page) must(t *testing.T, status int) page {
	t.Helper()
	if p.Status != status {
		t.Fatalf("status %d, want %d:\n%s", p.Status, status, p.Body)
	}
	return p
}

// location is where a 303 sends the browser.
func (p page) location(t *testing.T) string {
	t.Helper()
	if p.Status != http.StatusSeeOther {
		t.Fatalf("status %d, want 303:\n%s", p.Status, p.Body)
	}
	return p.Header.Get("Location")
}

// has fails the test unless the page shows each text (HTML-escaped as a
// template writes it).
func (p page) has(t *testing.T, texts ...string) page {
	t.Helper()
	for _, text := range texts {
		if !strings.Contains(p.Body, html.EscapeString(text)) && !strings.Contains(p.Body, text) {
			t.Errorf("the page lacks %q:\n%s", text, p.Body)
		}
	}
	return p
}

// hasNot fails the test if the page shows a text.
func (p page) hasNot(t *testing.T, texts ...string) page {
	t.Helper()
	for _, text := range texts {
		if strings.Contains(p.Body, html.EscapeString(text)) || strings.Contains(p.Body, text) {
			t.Errorf("the page shows %q", text)
		}
	}
	return p
}

var (
	hrefAttr   = regexp.MustCompile(`href="([^"]*)"`)
	actionAttr = regexp.MustCompile(`<form method="post" action="([^"]*)"`)
	tokenField = regexp.MustCompile(`name="form_token" value="([^"]*)"`)
	sixDigits  = regexp.MustCompile(`\b\d{6}\b`)
)

// links are the page's links that start with prefix.
func (p page) links(prefix string) []string {
	var out []string
	for _, m := range hrefAttr.FindAllStringSubmatch(p.Body, -1) {
		if l := html.UnescapeString(m[1]); strings.HasPrefix(l, prefix) {
			out = append(out, l)
		}
	}
	return out
}

// link is the page's first link starting with prefix.
func (p page) link(t *testing.T, prefix string) string {
	t.Helper()
	l := p.links(prefix)
	if len(l) == 0 {
		t.Fatalf("no link to %s on the page:\n%s", prefix, p.Body)
	}
	return l[0]
}

// form is the action and token of the page's POST form whose action
// starts with prefix.
func (p page) form(t *testing.T, prefix string) (string, string) {
	t.Helper()
	forms := strings.Split(p.Body, "<form ")
	for _, f := range forms[1:] {
		f = "<form " + f
		a := actionAttr.FindStringSubmatch(f)
		if a == nil || !strings.HasPrefix(html.UnescapeString(a[1]), prefix) {
			continue
		}
		tok := tokenField.FindStringSubmatch(f)
		if tok == nil {
			t.Fatalf("the form to %s has no token", prefix)
		}
		return html.UnescapeString(a[1]), tok[1]
	}
	t.Fatalf("no form to %s on the page:\n%s", prefix, p.Body)
	return "", ""
}

// lastCode is the last verification code queued to phone, as the patient
// reads it in the message.
func (h *harness) lastCode(phone string) string {
	h.t.Helper()
	var body string
	if err := h.store.QueryRow(context.Background(), `SELECT body FROM outbox WHERE kind = 'verification_code' AND recipient = ?
		ORDER BY id DESC LIMIT 1`, phone).Scan(&body); err != nil {
		h.t.Fatalf("no code for %s: %v", phone, err)
	}
	code := sixDigits.FindString(body)
	if code == "" {
		h.t.Fatalf("no code in %q", body)
	}
	return code
}

// count is the number of rows of table matching where.
func (h *harness) count(table, where string, args ...any) int {
	h.t.Helper()
	var n int
	if err := h.store.QueryRow(context.Background(), "SELECT COUNT(*) FROM "+table+" WHERE "+where, args...).Scan(&n); err != nil {
		h.t.Fatal(err)
	}
	return n
}

// patientForm is the details form of a patient.
func patientForm(token, phone, first string) url.Values {
	return url.Values{"form_token": {token}, "phone": {phone}, "first_name": {first}, "last_name": {"Prueba"}, "email": {"paciente@example.test"}}
}
