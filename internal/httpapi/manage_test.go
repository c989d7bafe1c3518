package httpapi_test

import (
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/frontdesk/frontdesk/internal/db"
	"github.com/frontdesk/frontdesk/internal/db/dbtest"
	"github.com/frontdesk/frontdesk/internal/httpapi"
	"github.com/frontdesk/frontdesk/internal/ratelimit"
	"github.com/frontdesk/frontdesk/internal/secrets"
)

var linkInMessage = regexp.MustCompile(`https://fd\.example/m/([A-Za-z0-9_-]{32})$`)

// manageHarness is the harness with links configured (public URL and
// server key), and one appointment booked through the public API on
// Tuesday 2026-11-24 at 10:00 Madrid; it returns the token of the link its
// confirmation request carries.
func manageHarness(t *testing.T, store *db.DB, limit httpapi.RateLimit) (*harness, string, int64) {
	t.Helper()
	h := newHarness(t, store)
	box, err := secrets.New([]byte("0123456789abcdef0123456789abcdef"))
	if err != nil {
		t.Fatal(err)
	}
	h.srv = httpapi.NewServer(httpapi.Config{DB: store, Clock: h.clock, Secrets: box, PublicURL: "https://fd.example", RateLimit: limit,
		Log: slog.New(slog.NewTextHandler(io.Discard, nil))})
	ids := h.acme()
	// The fixture's webhook hears every event.
	if _, err := store.Exec(t.Context(), `UPDATE webhooks SET events = '[]'`); err != nil {
		t.Fatal(err)
	}
	res := h.do("POST", "/api/v2/public/calendar/events", acmeKey, map[string]any{
		"client":     map[string]any{"phone": "+34611777001", "first_name": "Eva", "last_name": "Sanz", "email": "eva@example.test"},
		"service_id": ids.Services["cleaning"], "professional_id": ids.Professionals["lopez"], "event_type_id": ids.EventTypes["visit"],
		"start_at": "2026-11-24T10:00:00", "end_at": "2026-11-24T10:30:00", "timezone": "Europe/Madrid"}).must(t, 200)
	id := int64(res.num("data", "id"))
	var body string
	if err := store.QueryRow(t.Context(), `SELECT body FROM outbox WHERE source_type = 'booking' AND source_id = ? AND kind = 'booking_confirmation'`, id).Scan(&body); err != nil {
		t.Fatal(err)
	}
	m := linkInMessage.FindStringSubmatch(body)
	if m == nil {
		t.Fatalf("the confirmation request carries no link: %q", body)
	}
	return h, m[1], id
}

func mustPatientHeaders(t *testing.T, r response) {
	t.Helper()
	for k, v := range map[string]string{"Cache-Control": "no-store", "Referrer-Policy": "no-referrer", "X-Robots-Tag": "noindex"} {
		if got := r.Header.Get(k); got != v {
			t.Errorf("%s = %q, want %q", k, got, v)
		}
	}
}

// TestManageAPI drives every endpoint of the manage link in order: the
// answer's shape, confirm and decline, the 422s, a move off the list and
// onto it, the calendar file, the cancel, and the refusals after it.
func TestManageAPI(t *testing.T) {
	dbtest.Engines(t, func(t *testing.T, store *db.DB) {
		h, token, id := manageHarness(t, store, httpapi.RateLimit{})
		base := "/api/v2/manage/" + token
		got := h.do("GET", base, "", nil).must(t, 200)
		mustPatientHeaders(t, got)
		// The router's own answers under the prefix say the same.
		mustPatientHeaders(t, h.do("DELETE", base, "", nil).must(t, 405))
		mustPatientHeaders(t, h.do("GET", base+"/nothing-here", "", nil).must(t, 404))
		data := got.Body["data"].(map[string]any)
		var keys []string
		for k := range data {
			keys = append(keys, k)
		}
		slices.Sort(keys)
		if fmt.Sprint(keys) != "[appointment can_cancel can_reschedule cancel_cutoff_at client]" || fmt.Sprint(data["client"]) != "map[first_name:Eva]" ||
			got.str("data", "appointment", "start_at") != "2026-11-24T09:00:00Z" || got.str("data", "appointment", "timezone") != "Europe/Madrid" ||
			got.num("data", "appointment", "id") != float64(id) || got.str("data", "appointment", "professional", "name") != "Dr. López" ||
			got.str("data", "cancel_cutoff_at") != "2026-11-24T09:00:00Z" || got.Body["status"] != "success" {
			t.Errorf("GET: %s", got.Raw)
		}
		long := strings.Repeat("x", 501)
		for _, tc := range []struct {
			name, method, path string
			body               any
			status             int
			check              func(response) bool
		}{
			{"unknown token", "GET", "/api/v2/manage/" + strings.Repeat("A", 32), nil, 404, func(r response) bool { return r.errorCode() == "NOT_FOUND" }},
			{"wrong method", "DELETE", base, nil, 405, func(r response) bool { return r.errorCode() == "METHOD_NOT_ALLOWED" }},
			{"decline", "POST", base + "/decline", nil, 200, func(r response) bool { return r.str("data", "appointment", "confirmation_status") == "declined" }},
			{"confirm", "POST", base + "/confirm", nil, 200, func(r response) bool { return r.str("data", "appointment", "confirmation_status") == "confirmed" }},
			{"not JSON", "POST", base + "/reschedule", "{", 422, func(r response) bool { return has422(r, "json_invalid", "body") }},
			{"no start", "POST", base + "/reschedule", map[string]any{}, 422, func(r response) bool { return has422(r, "missing", "body", "start_at") }},
			{"bad fields", "POST", base + "/reschedule", map[string]any{"start_at": "tomorrow", "professional_id": "x"}, 422, func(r response) bool {
				return len(problems(t, r)) == 2 && has422(r, "datetime_parsing", "body", "start_at")
			}},
			{"not an object", "POST", base + "/cancel", "[]", 422, func(r response) bool { return has422(r, "model_type", "body") }},
			{"reason not text", "POST", base + "/cancel", map[string]any{"reason": 5}, 422, func(r response) bool { return has422(r, "string_type", "body", "reason") }},
			{"reason too long", "POST", base + "/cancel", map[string]any{"reason": long}, 422, func(r response) bool { return has422(r, "string_too_long", "body", "reason") }},
			{"off the list", "POST", base + "/reschedule", map[string]any{"start_at": "2026-11-24T10:07:00"}, 400, func(r response) bool { return r.errorCode() == "SLOT_NOT_AVAILABLE" }},
			{"slots", "GET", base + "/slots?start_date=2026-11-24&days=1", nil, 200, func(r response) bool {
				return r.str("data", "slots", 0, "start_at") == "2026-11-24T09:00:00" && r.num("data", "service_id") == float64(h.acme().Services["cleaning"])
			}},
			{"slots bad days", "GET", base + "/slots?days=99", nil, 422, func(r response) bool { return has422(r, "less_than_equal", "query", "days") }},
			{"move", "POST", base + "/reschedule", map[string]any{"start_at": "2026-11-24T12:00:00", "professional_id": h.acme().Professionals["lopez"]}, 200, func(r response) bool {
				return r.str("data", "appointment", "start_at") == "2026-11-24T11:00:00Z" && r.str("data", "appointment", "confirmation_status") == "pending"
			}},
			{"cancel", "POST", base + "/cancel", map[string]any{"reason": "Fiebre"}, 200, func(r response) bool {
				return r.str("data", "appointment", "status") == "cancelled" && r.Body["data"].(map[string]any)["can_cancel"] == false &&
					r.Body["data"].(map[string]any)["can_reschedule"] == false
			}},
			{"cancel again", "POST", base + "/cancel", nil, 409, func(r response) bool { return r.errorCode() == "CHANGE_NOT_ALLOWED" }},
			{"move after cancel", "POST", base + "/reschedule", map[string]any{"start_at": "2026-11-24T13:00:00"}, 409, func(r response) bool { return r.errorCode() == "CHANGE_NOT_ALLOWED" }},
			{"slots after cancel", "GET", base + "/slots", nil, 409, func(r response) bool { return r.errorCode() == "CHANGE_NOT_ALLOWED" }},
			{"cancelled view", "GET", base, nil, 200, func(r response) bool { return r.str("data", "appointment", "status") == "cancelled" }},
		} {
			t.Run(tc.name, func(t *testing.T) {
				r := h.do(tc.method, tc.path, "", tc.body)
				if r.Status != tc.status || !tc.check(r) {
					t.Errorf("%s %s -> %d %s", tc.method, tc.path, r.Status, r.Raw)
				}
				if tc.status != 405 {
					mustPatientHeaders(t, r)
				}
			})
		}
		// The webhooks say it was the patient.
		var by, reason string
		if err := store.QueryRow(t.Context(), `SELECT body FROM outbox WHERE source_type = 'event:appointment.cancelled' AND source_id = ?`, id).Scan(&by); err != nil {
			t.Fatal(err)
		}
		if !strings.Contains(by, `"by":"patient"`) || !strings.Contains(by, `"reason":"Fiebre"`) {
			t.Errorf("appointment.cancelled: %s", by)
		}
		if err := store.QueryRow(t.Context(), `SELECT body FROM outbox WHERE source_type = 'event:appointment.rescheduled' AND source_id = ?`, id).Scan(&reason); err != nil {
			t.Fatal(err)
		}
		if !strings.Contains(reason, `"by":"patient"`) {
			t.Errorf("appointment.rescheduled: %s", reason)
		}
	})
}

// TestManageCalendarFile: /m/{token}/appointment.ics is the appointment as
// an iCalendar file, with the privacy headers; an unknown token is 404.
func TestManageCalendarFile(t *testing.T) {
	dbtest.Engines(t, func(t *testing.T, store *db.DB) {
		h, token, _ := manageHarness(t, store, httpapi.RateLimit{})
		rec := httptest.NewRecorder()
		h.srv.ServeHTTP(rec, httptest.NewRequest("GET", "/m/"+token+"/appointment.ics", nil))
		body := rec.Body.String()
		if rec.Code != 200 || !strings.HasPrefix(rec.Header().Get("Content-Type"), "text/calendar") || rec.Header().Get("Cache-Control") != "no-store" {
			t.Fatalf("%d %v", rec.Code, rec.Header())
		}
		for _, want := range []string{"BEGIN:VCALENDAR\r\n", "DTSTART:20261124T090000Z", "DTEND:20261124T093000Z", "SUMMARY:Limpieza dental · Dr. López",
			"STATUS:CONFIRMED", "fd.example/m/"} {
			if !strings.Contains(strings.ReplaceAll(body, "\r\n ", ""), want) {
				t.Errorf("no %q in\n%s", want, body)
			}
		}
		rec = httptest.NewRecorder()
		h.srv.ServeHTTP(rec, httptest.NewRequest("GET", "/m/"+strings.Repeat("A", 32)+"/appointment.ics", nil))
		if rec.Code != http.StatusNotFound {
			t.Errorf("unknown token: %d", rec.Code)
		}
	})
}

// TestManageRateLimit: the manage API is limited per client address, and
// an address that spent its bucket is 429 whatever token it sends.
func TestManageRateLimit(t *testing.T) {
	dbtest.Engines(t, func(t *testing.T, store *db.DB) {
		h, token, _ := manageHarness(t, store, httpapi.RateLimit{Patients: ratelimit.Limit{PerSecond: 1, Burst: 3}})
		for i := 0; i < 3; i++ {
			h.do("GET", "/api/v2/manage/"+token, "", nil).must(t, 200)
		}
		r := h.do("GET", "/api/v2/manage/"+strings.Repeat("B", 32), "", nil)
		r.mustRateLimited(t, 1)
		mustPatientHeaders(t, r)
	})
}
