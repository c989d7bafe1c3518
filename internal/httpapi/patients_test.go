package httpapi_test

import (
	"fmt"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/frontdesk/frontdesk/internal/db"
	"github.com/frontdesk/frontdesk/internal/db/dbtest"
)

const bookPath = "/api/v2/book"

// TestPatientPage: the page's services, no key; an unknown slug, a page
// that is off, an unknown path and a wrong method are the envelope's
// 404/405, with the patient headers.
func TestPatientPage(t *testing.T) {
	dbtest.Engines(t, func(t *testing.T, store *db.DB) {
		h := newHarness(t, store, patientFixtures...)
		const addr = "192.0.2.10:4000"
		res := h.patient("GET", bookPath+"/acme", addr, nil).must(t, 200)
		if res.str("status") != "success" || res.str("data", "account", "name") != "Acme Clinic" ||
			res.str("data", "account", "timezone") != "Europe/Madrid" || res.str("data", "account", "language") != "es" {
			t.Fatalf("page: %s", res.Raw)
		}
		services := res.list("data", "services")
		if len(services) != 1 || res.num("data", "services", 0, "id") != float64(h.acme().Services["cleaning"]) ||
			res.num("data", "services", 0, "duration_minutes") != 30 || res.str("data", "services", 0, "professionals", 0, "name") != "Dr. López" {
			t.Fatalf("services: %s", res.Raw)
		}
		if strings.Contains(string(res.Raw), "event_types") || strings.Contains(string(res.Raw), "Dr. Jones") {
			t.Fatalf("the page shows more than its services: %s", res.Raw)
		}
		other := h.patient("GET", bookPath+"/other", addr, nil).must(t, 200)
		if other.str("data", "services", 0, "professionals", 0, "name") != "Dr. Jones" || strings.Contains(string(other.Raw), "López") {
			t.Fatalf("other's page: %s", other.Raw)
		}
		for _, test := range []struct{ method, path, code string }{
			{"GET", bookPath + "/closed", "NOT_FOUND"},
			{"GET", bookPath + "/nobody", "NOT_FOUND"},
			{"GET", bookPath + "/nobody/slots?service_id=1", "NOT_FOUND"},
			{"POST", bookPath + "/closed/verification", "NOT_FOUND"},
			{"POST", bookPath + "/closed/appointments", "NOT_FOUND"},
			{"GET", bookPath + "/acme/nothing", "NOT_FOUND"},
			{"GET", bookPath, "NOT_FOUND"},
			{"DELETE", bookPath + "/acme", "METHOD_NOT_ALLOWED"},
			{"GET", bookPath + "/acme/appointments", "METHOD_NOT_ALLOWED"},
		} {
			res := h.patient(test.method, test.path, addr, "{}")
			if res.errorCode() != test.code || res.str("status") != "error" {
				t.Errorf("%s %s -> %d %s, want %s", test.method, test.path, res.Status, res.Raw, test.code)
			}
		}
		// A key is not needed, and a wrong one is not looked at.
		h.do("GET", bookPath+"/acme", "pk_wrong", nil).must(t, 200)
	})
}

// TestPatientSlots: the free-slots shape (docs/contract.md, Free slots) in the account's zone, only the page's
// services, 422 for the query's schema.
func TestPatientSlots(t *testing.T) {
	dbtest.Engines(t, func(t *testing.T, store *db.DB) {
		h := newHarness(t, store, patientFixtures...)
		const addr = "192.0.2.11:4000"
		cleaning, lopez := h.acme().Services["cleaning"], h.acme().Professionals["lopez"]
		res := h.patient("GET", fmt.Sprintf("%s/acme/slots?service_id=%d&professional_id=%d&start_date=2026-11-23&days=1&timezone=Asia/Tokyo&limit=1",
			bookPath, cleaning, lopez), addr, nil).must(t, 200)
		// Monday from 10:00 (now) to 13:00 and 15:00 to 19:00, Madrid time:
		// the zone and limit sent are not the patient API's.
		slots := res.list("data", "slots")
		if res.str("data", "timezone") != "Europe/Madrid" || len(slots) != 14 || res.str("data", "slots", 0, "start_at") != "2026-11-23T10:00:00" ||
			res.str("data", "slots", 0, "start_at_utc") != "2026-11-23T09:00:00Z" || res.str("data", "slots", 0, "professional", "name") != "Dr. López" ||
			res.get("data", "has_more") != false || res.str("data", "service_name") != "Limpieza dental" || res.str("data", "end_date") != "2026-11-23" {
			t.Fatalf("slots: %s", res.Raw)
		}
		res = h.patient("GET", fmt.Sprintf("%s/acme/slots?service_id=%d&days=31", bookPath, cleaning), addr, nil).must(t, 200)
		if res.str("data", "end_date") != "2026-12-23" || len(res.list("data", "slots")) == 0 {
			t.Fatalf("31 days: %s", res.Raw)
		}
		res = h.patient("GET", fmt.Sprintf("%s/acme/slots?service_id=%d", bookPath, cleaning), addr, nil).must(t, 200)
		if res.str("data", "end_date") != "2026-11-29" {
			t.Fatalf("default days: %s", res.Raw)
		}

		res = h.patient("GET", fmt.Sprintf("%s/acme/slots?service_id=%d", bookPath, h.other().Services["cleaning"]), addr, nil).must(t, 400)
		if res.errorCode() != "SERVICE_NOT_FOUND" || strings.Contains(string(res.Raw), "Jones") {
			t.Fatalf("other's service: %s", res.Raw)
		}
		h.patient("GET", fmt.Sprintf("%s/acme/slots?service_id=%d&professional_id=%d", bookPath, cleaning, h.other().Professionals["jones"]), addr, nil).must(t, 400)
		for _, test := range []struct {
			query string
			want  []string
		}{
			{"", []string{`["query","service_id"] missing`}},
			{"service_id=x&days=0", []string{`["query","service_id"] int_parsing`, `["query","days"] greater_than_equal`}},
			{fmt.Sprintf("service_id=%d&days=32&start_date=2026-13-01&professional_id=y", cleaning),
				[]string{`["query","days"] less_than_equal`, `["query","professional_id"] int_parsing`, `["query","start_date"] date_from_datetime_parsing`}},
		} {
			got := patientProblems(t, h.patient("GET", bookPath+"/acme/slots?"+test.query, addr, nil))
			slices.Sort(got)
			slices.Sort(test.want)
			if !slices.Equal(got, test.want) {
				t.Errorf("?%s: %v, want %v", test.query, got, test.want)
			}
		}
	})
}

// TestPatientVerification: 202 with expires_at; three codes per phone and
// twenty per address an hour (429 with Retry-After), 404 where phones are
// not verified, 422 for the body.
func TestPatientVerification(t *testing.T) {
	dbtest.Engines(t, func(t *testing.T, store *db.DB) {
		h := newHarness(t, store, patientFixtures...)
		const addr = "192.0.2.12:4000"
		path := bookPath + "/acme/verification"
		res := h.patient("POST", path, addr, map[string]any{"phone": "611 000 001"}).must(t, 202)
		if res.str("status") != "success" || res.str("data", "expires_at") != "2026-11-23T09:10:00Z" {
			t.Fatalf("verification: %s", res.Raw)
		}
		if code := h.lastCode("+34611000001"); len(code) != 6 {
			t.Fatalf("no code sent: %q", code)
		}
		h.clock.Advance(time.Minute)
		h.patient("POST", path, addr, map[string]any{"phone": "+34611000001"}).must(t, 202)
		h.patient("POST", path, addr, map[string]any{"phone": "+34611000001"}).must(t, 202)
		res = h.patient("POST", path, addr, map[string]any{"phone": "+34611000001"}).must(t, 429)
		if res.errorCode() != "RATE_LIMITED" || res.num("details", "retry_after_seconds") != 59*60 || res.Header.Get("Retry-After") != "3540" {
			t.Fatalf("fourth code: %s %v", res.Raw, res.Header)
		}
		h.clock.Advance(59 * time.Minute)
		h.patient("POST", path, addr, map[string]any{"phone": "+34611000001"}).must(t, 202)

		// Twenty per address in the last hour: three of the five from addr
		// are in it (09:01, 09:01, 10:00).
		for i := range 17 {
			h.patient("POST", path, addr, map[string]any{"phone": fmt.Sprintf("+346120000%02d", i)}).must(t, 202)
		}
		h.patient("POST", path, addr, map[string]any{"phone": "+34612000099"}).must(t, 429)
		h.patient("POST", path, "192.0.2.13:4000", map[string]any{"phone": "+34612000099"}).must(t, 202)

		h.patient("POST", bookPath+"/other/verification", addr, map[string]any{"phone": "+447700900123"}).must(t, 404)
		res = h.patient("POST", path, addr, map[string]any{"phone": "12"}).must(t, 400)
		if res.errorCode() != "INVALID_PHONE" {
			t.Fatalf("bad phone: %s", res.Raw)
		}
		for body, want := range map[string]string{
			`{}`:             `["body","phone"] missing`,
			`{"phone": 600}`: `["body","phone"] string_type`,
			`[]`:             `["body"] model_type`,
			`{"phone":`:      `["body"] json_invalid`,
		} {
			if got := patientProblems(t, h.patient("POST", path, addr, body)); !slices.Equal(got, []string{want}) {
				t.Errorf("%s: %v, want %s", body, got, want)
			}
		}
	})
}

// TestPatientRateLimit: ten requests a second with bursts of fifty per
// client address, on every path of the patient API.
func TestPatientRateLimit(t *testing.T) {
	dbtest.Engines(t, func(t *testing.T, store *db.DB) {
		h := newHarness(t, store, patientFixtures...)
		const addr = "198.51.100.20:5000"
		for i := range 50 {
			path := bookPath + "/acme"
			if i%2 == 1 {
				path = bookPath + "/nobody/slots"
			}
			if res := h.patient("GET", path, addr, nil); res.Status == 429 {
				t.Fatalf("request %d refused", i+1)
			}
		}
		res := h.patient("GET", bookPath+"/acme", addr, nil).must(t, 429)
		if res.errorCode() != "RATE_LIMITED" || res.Header.Get("Retry-After") == "" || res.num("details", "retry_after_seconds") < 1 {
			t.Fatalf("51st: %s %v", res.Raw, res.Header)
		}
		h.patient("GET", bookPath+"/acme", "198.51.100.21:5000", nil).must(t, 200)
		h.clock.Advance(time.Second)
		for range 10 {
			h.patient("GET", bookPath+"/acme", addr, nil).must(t, 200)
		}
		h.patient("GET", bookPath+"/acme", addr, nil).must(t, 429)
	})
}
