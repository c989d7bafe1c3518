package httpapi_test

import (
	"fmt"
	"io"
	"log/slog"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/frontdesk/frontdesk/internal/db"
	"github.com/frontdesk/frontdesk/internal/db/dbtest"
	"github.com/frontdesk/frontdesk/internal/httpapi"
	"github.com/frontdesk/frontdesk/internal/secrets"
)

// TestPatientBook: 201 with the booking response's appointment (source
// booking_page) and manage_url; the slot is gone from the API's free
// slots; a known phone books as that client; every refusal.
func TestPatientBook(t *testing.T) {
	dbtest.Engines(t, func(t *testing.T, store *db.DB) {
		h := newHarness(t, store, patientFixtures...)
		const addr = "192.0.2.30:4000"
		cleaning := h.acme().Services["cleaning"]
		path := bookPath + "/acme/appointments"
		code := func(phone string) string {
			h.patient("POST", bookPath+"/acme/verification", addr, map[string]any{"phone": phone}).must(t, 202)
			return h.lastCode(phone)
		}
		body := func(start, phone, code string) map[string]any {
			return map[string]any{"service_id": cleaning, "start_at": start, "code": code, "notes": "from the web",
				"client": map[string]any{"phone": phone, "first_name": "Someone", "last_name": "Else", "email": "else@example.com"}}
		}

		// María's phone: she books as herself, whatever names are sent.
		maria := code("+34600111222")
		res := h.patient("POST", path, addr, body("2026-11-23T11:00:00", "600 111 222", maria)).must(t, 201)
		if res.str("status") != "success" || res.str("data", "appointment", "source") != "booking_page" ||
			res.num("data", "appointment", "client", "id") != float64(h.acme().Clients["maria"]) ||
			res.str("data", "appointment", "client", "name") != "María García" ||
			res.str("data", "appointment", "start_at") != "2026-11-23T10:00:00Z" || res.str("data", "appointment", "timezone") != "Europe/Madrid" ||
			res.str("data", "appointment", "calendar_profile", "name") != "Dr. López" || res.str("data", "appointment", "notes") != "from the web" {
			t.Fatalf("booked: %s", res.Raw)
		}
		if _, ok := res.get("data").(map[string]any)["manage_url"].(string); !ok {
			t.Fatalf("no manage_url: %s", res.Raw)
		}
		// Gone from the free slots, the API's and the patients'.
		free := h.do("GET", fmt.Sprintf("%s?service_id=%d&start_date=2026-11-23&days=1", slotsPath, cleaning), acmeKey, nil).must(t, 200)
		patient := h.patient("GET", fmt.Sprintf("%s/acme/slots?service_id=%d&days=1", bookPath, cleaning), addr, nil).must(t, 200)
		for _, r := range []response{free, patient} {
			if strings.Contains(string(r.Raw), `"start_at":"2026-11-23T11:00:00"`) || !strings.Contains(string(r.Raw), `"start_at":"2026-11-23T11:30:00"`) {
				t.Fatalf("11:00 still listed, or 11:30 not: %s", r.Raw)
			}
		}

		// The same code again: used.
		res = h.patient("POST", path, addr, body("2026-11-23T11:30:00", "+34600111222", maria)).must(t, 400)
		if res.errorCode() != "VERIFICATION_FAILED" {
			t.Fatalf("used code: %s", res.Raw)
		}
		// A fresh code, but María already has her one future appointment.
		res = h.patient("POST", path, addr, body("2026-11-23T11:30:00", "+34600111222", code("+34600111222"))).must(t, 400)
		if res.errorCode() != "BOOKING_LIMIT_REACHED" {
			t.Fatalf("second appointment: %s", res.Raw)
		}
		newPhone := "+34650000001"
		c := code(newPhone)
		for _, test := range []struct {
			name string
			body map[string]any
			code string
		}{
			{"wrong code", body("2026-11-23T11:30:00", newPhone, fmt.Sprintf("%06d", (atoi6(c)+1)%1000000)), "VERIFICATION_FAILED"},
			{"taken", body("2026-11-23T11:00:00", newPhone, c), "SLOT_NOT_AVAILABLE"},
			{"not a slot start", body("2026-11-23T11:45:00", newPhone, c), "SLOT_NOT_AVAILABLE"},
			{"past", body("2026-11-23T09:00:00", newPhone, c), "SLOT_NOT_AVAILABLE"},
			{"other's service", func() map[string]any {
				b := body("2026-11-23T11:30:00", newPhone, c)
				b["service_id"] = h.other().Services["cleaning"]
				return b
			}(), "SERVICE_NOT_FOUND"},
			{"other's professional", func() map[string]any {
				b := body("2026-11-23T11:30:00", newPhone, c)
				b["professional_id"] = h.other().Professionals["jones"]
				return b
			}(), "SLOT_NOT_AVAILABLE"},
		} {
			res := h.patient("POST", path, addr, test.body).must(t, 400)
			if res.errorCode() != test.code || res.str("status") != "error" {
				t.Errorf("%s: %s, want %s", test.name, res.Raw, test.code)
			}
		}
		// The code survived the refused bookings (one wrong guess spent).
		res = h.patient("POST", path, addr, body("2026-11-23T11:30:00", newPhone, c)).must(t, 201)
		if res.str("data", "appointment", "client", "name") != "Someone Else" {
			t.Fatalf("new client: %s", res.Raw)
		}
		// Ten minutes on, a code is dead.
		c = code("+34650000002")
		h.clock.Advance(10 * time.Minute)
		if res := h.patient("POST", path, addr, body("2026-11-23T12:00:00", "+34650000002", c)); res.errorCode() != "VERIFICATION_FAILED" {
			t.Fatalf("expired code: %s", res.Raw)
		}
		// Five wrong guesses end a code.
		c = code("+34650000003")
		for range 5 {
			h.patient("POST", path, addr, body("2026-11-23T12:00:00", "+34650000003", "000000x")).must(t, 400)
		}
		if res := h.patient("POST", path, addr, body("2026-11-23T12:00:00", "+34650000003", c)); res.errorCode() != "VERIFICATION_FAILED" {
			t.Fatalf("after five tries: %s", res.Raw)
		}
		if n := h.count("appointments", "source = 'booking_page'"); n != 2 {
			t.Fatalf("%d patient appointments, want 2", n)
		}
	})
}

// TestPatientBookTenancy: other's page books other's service, without a
// code (its page verifies no phones), in its own zone; acme's ids are
// unknown there.
func TestPatientBookTenancy(t *testing.T) {
	dbtest.Engines(t, func(t *testing.T, store *db.DB) {
		h := newHarness(t, store, patientFixtures...)
		const addr = "192.0.2.31:4000"
		path := bookPath + "/other/appointments"
		b := map[string]any{"service_id": h.acme().Services["cleaning"], "start_at": "2026-11-23T13:00:00",
			"client": map[string]any{"phone": "+34600111222", "first_name": "María"}}
		if res := h.patient("POST", path, addr, b).must(t, 400); res.errorCode() != "SERVICE_NOT_FOUND" || strings.Contains(string(res.Raw), "López") {
			t.Fatalf("acme's service on other's page: %s", res.Raw)
		}
		b["service_id"] = h.other().Services["cleaning"]
		res := h.patient("POST", path, addr, b).must(t, 201)
		if res.num("data", "appointment", "client", "id") != float64(h.other().Clients["maria"]) ||
			res.str("data", "appointment", "timezone") != "Europe/London" || res.str("data", "appointment", "start_at") != "2026-11-23T13:00:00Z" {
			t.Fatalf("other's booking: %s", res.Raw)
		}
		if n := h.count("appointments", "account_id = ?", accountOf(t, h, "acme").ID); n != 0 {
			t.Fatalf("acme has %d appointments", n)
		}
	})
}

// TestPatientBookSchema: every schema problem at once, at ['body', …].
func TestPatientBookSchema(t *testing.T) {
	dbtest.Engines(t, func(t *testing.T, store *db.DB) {
		h := newHarness(t, store, patientFixtures...)
		const addr = "192.0.2.32:4000"
		path := bookPath + "/acme/appointments"
		for _, test := range []struct {
			body string
			want []string
		}{
			{`{"client": {"phone": "+34600111222"}}`, []string{`["body","service_id"] missing`, `["body","start_at"] missing`}},
			{`{}`, []string{`["body","client"] missing`, `["body","service_id"] missing`, `["body","start_at"] missing`}},
			{`{"service_id": "x", "professional_id": 1.5, "start_at": "tomorrow", "client": {"first_name": 3}, "code": 123456, "notes": []}`,
				[]string{`["body","client","first_name"] string_type`, `["body","client","phone"] missing`, `["body","code"] string_type`,
					`["body","notes"] string_type`, `["body","professional_id"] int_parsing`, `["body","service_id"] int_parsing`,
					`["body","start_at"] datetime_parsing`}},
			{`{"service_id": 1, "start_at": "2026-11-23T11:00:00", "client": "+34600111222"}`, []string{`["body","client"] model_type`}},
			{`{"service_id": 1, "start_at": "2026-11-23T11:00:00", "client": {"phone": "+34600111222"}, "notes": "` + strings.Repeat("n", 2001) + `"}`,
				[]string{`["body","notes"] string_too_long`}},
			{`not json`, []string{`["body"] json_invalid`}},
		} {
			got := patientProblems(t, h.patient("POST", path, addr, test.body))
			slices.Sort(got)
			slices.Sort(test.want)
			if !slices.Equal(got, test.want) {
				t.Errorf("%.80s: %v, want %v", test.body, got, test.want)
			}
		}
	})
}

func atoi6(s string) int {
	n := 0
	for _, r := range s {
		n = n*10 + int(r-'0')
	}
	return n
}

// TestPatientBookManageURL: with a public URL and a server key, the
// booking answers the appointment's manage link, which opens it.
func TestPatientBookManageURL(t *testing.T) {
	dbtest.Engines(t, func(t *testing.T, store *db.DB) {
		h := newHarness(t, store, patientFixtures...)
		box, err := secrets.New([]byte("0123456789abcdef0123456789abcdef"))
		if err != nil {
			t.Fatal(err)
		}
		h.srv = httpapi.NewServer(httpapi.Config{DB: store, Clock: h.clock, Secrets: box, PublicURL: "https://fd.example",
			Log: slog.New(slog.NewTextHandler(io.Discard, nil))})
		const addr = "192.0.2.33:4000"
		h.patient("POST", bookPath+"/acme/verification", addr, map[string]any{"phone": "+34650000010"}).must(t, 202)
		res := h.patient("POST", bookPath+"/acme/appointments", addr, map[string]any{"service_id": h.acme().Services["cleaning"],
			"start_at": "2026-11-23T12:00:00", "code": h.lastCode("+34650000010"),
			"client": map[string]any{"phone": "+34650000010", "first_name": "Eva"}}).must(t, 201)
		m := linkInMessage.FindStringSubmatch(res.str("data", "manage_url"))
		if m == nil {
			t.Fatalf("manage_url: %s", res.Raw)
		}
		view := h.patient("GET", "/api/v2/manage/"+m[1], addr, nil).must(t, 200)
		if view.num("data", "appointment", "id") != res.num("data", "appointment", "id") {
			t.Fatalf("the link opens %s", view.Raw)
		}
	})
}
