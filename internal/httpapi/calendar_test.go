package httpapi_test

import (
	"strings"
	"testing"

	"github.com/frontdesk/frontdesk/internal/db"
	"github.com/frontdesk/frontdesk/internal/db/dbtest"
)

const calendarPath = "/api/v2/public/calendar"

// drop removes a field from a booking body.
type dropField struct{}

var drop = dropField{}

// booking is a valid booking body for a new client (Limpieza dental with
// Dr. López, Tuesday 2026-12-01 10:00-10:30 in Madrid), changed by over.
func booking(over map[string]any) map[string]any {
	b := map[string]any{
		"client":            map[string]any{"first_name": "Lucía", "last_name": "Pérez", "phone": "+34611000001", "email": "lucia@example.com"},
		"service_name":      "Limpieza dental",
		"professional_name": "Dr. López",
		"event_type_name":   "In person",
		"start_at":          "2026-12-01T10:00:00",
		"end_at":            "2026-12-01T10:30:00",
		"timezone":          "Europe/Madrid",
	}
	for k, v := range over {
		if _, ok := v.(dropField); ok {
			delete(b, k)
		} else {
			b[k] = v
		}
	}
	return b
}

func TestCalendarServices(t *testing.T) {
	dbtest.Engines(t, func(t *testing.T, store *db.DB) {
		h := newHarness(t, store, "testdata/calendar.yaml")
		a := h.acme()
		res := h.do("GET", calendarPath+"/services", acmeKey, nil).must(t, 200)
		if res.str("status") != "success" {
			t.Fatalf("envelope: %s", res.Raw)
		}
		// Active services only (Blanqueamiento is inactive), ordered by id.
		var gotIDs []any
		for _, s := range res.list("data") {
			gotIDs = append(gotIDs, s.(map[string]any)["id"])
		}
		want := ids([]int64{a.Services["cleaning"], a.Services["ortho"], a.Services["rev1"], a.Services["rev2"]})
		if !same(gotIDs, want) {
			t.Fatalf("service ids = %v, want %v", gotIDs, want)
		}
		cleaning := res.get("data", 0).(map[string]any)
		if cleaning["name"] != "Limpieza dental" || cleaning["default_duration_minutes"] != 30.0 {
			t.Errorf("cleaning = %v", cleaning)
		}
		// Dr. Ruiz is inactive and Llamada is inactive: neither is listed.
		wantPros := []any{map[string]any{"id": float64(a.Professionals["lopez"]), "name": "Dr. López"},
			map[string]any{"id": float64(a.Professionals["garcia"]), "name": "Dra. García"}}
		if !same(cleaning["professionals"], wantPros) {
			t.Errorf("cleaning professionals = %v, want %v", cleaning["professionals"], wantPros)
		}
		wantTypes := []any{map[string]any{"id": float64(a.EventTypes["visit"]), "name": "In person"},
			map[string]any{"id": float64(a.EventTypes["video"]), "name": "Videollamada"}}
		if !same(cleaning["event_types"], wantTypes) {
			t.Errorf("cleaning event types = %v, want %v", cleaning["event_types"], wantTypes)
		}
		if res.num("data", 1, "default_duration_minutes") != 60 || len(res.list("data", 2, "professionals")) != 2 {
			t.Errorf("ortho / rev1: %s", res.Raw)
		}

		// The other tenant sees only its own service.
		o := h.do("GET", calendarPath+"/services", otherKey, nil).must(t, 200)
		if len(o.list("data")) != 1 || o.num("data", 0, "id") != float64(h.other().Services["cleaning"]) ||
			o.str("data", 0, "professionals", 0, "name") != "Dr. Jones" {
			t.Errorf("other services: %s", o.Raw)
		}
		h.do("GET", calendarPath+"/services", "", nil).must(t, 401)
	})
}

func TestBookingResponse(t *testing.T) {
	dbtest.Engines(t, func(t *testing.T, store *db.DB) {
		h := newHarness(t, store, "testdata/calendar.yaml")
		a := h.acme()
		body := booking(map[string]any{"notes": "Primera visita; alérgica al látex"})
		res := h.do("POST", calendarPath+"/events", acmeKey, body).must(t, 200)
		d := res.get("data").(map[string]any)
		cid := res.num("client_id")
		if res.str("status") != "success" || res.get("client_created") != true || cid == 0 {
			t.Fatalf("envelope: %s", res.Raw)
		}
		checks := map[string]any{
			"start_at": "2026-12-01T09:00:00Z", "end_at": "2026-12-01T09:30:00Z",
			"status": "booked", "source": "api", "confirmation_status": "pending",
			"created_at": "2026-11-23T09:00:00Z", "notes": "Primera visita; alérgica al látex",
		}
		for k, v := range checks {
			if d[k] != v {
				t.Errorf("data.%s = %v, want %v", k, d[k], v)
			}
		}
		if d["id"] == nil || d["id"].(float64) <= 0 {
			t.Errorf("id = %v", d["id"])
		}
		wantObjs := map[string]any{
			"client":           map[string]any{"id": cid, "name": "Lucía Pérez", "phone": "+34611000001"},
			"calendar_profile": map[string]any{"calendar_profile_id": float64(a.Professionals["lopez"]), "name": "Dr. López"},
			"service":          map[string]any{"id": float64(a.Services["cleaning"]), "name": "Limpieza dental", "color": "#1565c0"},
			"event_type":       map[string]any{"id": float64(a.EventTypes["visit"]), "name": "In person", "color": "#2e7d32"},
			"custom_fields":    map[string]any{"booked_by": "api"},
		}
		for k, v := range wantObjs {
			if !same(d[k], v) {
				t.Errorf("data.%s = %v, want %v", k, d[k], v)
			}
		}
		// Stored as sent: notes, the request's zone, the client's names and e-mail.
		if n := h.count("appointments", "id = ? AND account_id = ? AND notes = ? AND timezone = ? AND status = 'booked' AND client_id = ?",
			int64(d["id"].(float64)), h.ids["acme"].Account.ID, "Primera visita; alérgica al látex", "Europe/Madrid", int64(cid)); n != 1 {
			t.Errorf("stored appointment rows = %d", n)
		}
		if n := h.count("clients", "id = ? AND first_name = 'Lucía' AND last_name = 'Pérez' AND email = 'lucia@example.com' AND phone_cc = 34 AND phone_national = '611000001'", int64(cid)); n != 1 {
			t.Errorf("stored client rows = %d", n)
		}
	})
}

func TestBookingRules(t *testing.T) {
	dbtest.Engines(t, func(t *testing.T, store *db.DB) {
		h := newHarness(t, store, "testdata/calendar.yaml")
		a, o := h.acme(), h.other()
		maria := float64(a.Clients["maria"])
		acmeID := h.ids["acme"].Account.ID

		// Refusals first: none of them may write anything.
		clientsBefore := h.count("clients", "account_id = ?", acmeID)
		refusals := []struct {
			name    string
			body    map[string]any
			code    string
			details map[string]any // expected entries of details
		}{
			{"unknown service name", booking(map[string]any{"service_name": "Implante"}), "SERVICE_NOT_FOUND",
				map[string]any{"field": "service_name",
					"valid_service_names": []any{"Limpieza dental", "Ortodoncia", "Revisión", "REVISION"},
					"valid_service_ids":   ids([]int64{a.Services["cleaning"], a.Services["ortho"], a.Services["rev1"], a.Services["rev2"]})}},
			{"inactive service id", booking(map[string]any{"service_id": a.Services["whitening"]}), "SERVICE_NOT_FOUND",
				map[string]any{"field": "service_id", "valid_service_names": []any{"Limpieza dental", "Ortodoncia", "Revisión", "REVISION"}}},
			{"other tenant's service id", booking(map[string]any{"service_id": o.Services["cleaning"], "service_name": drop}), "SERVICE_NOT_FOUND",
				map[string]any{"field": "service_id"}},
			{"ambiguous service name", booking(map[string]any{"service_name": " revisión "}), "AMBIGUOUS_MATCH",
				map[string]any{"field": "service_name", "candidates": []any{
					map[string]any{"id": float64(a.Services["rev1"]), "name": "Revisión"},
					map[string]any{"id": float64(a.Services["rev2"]), "name": "REVISION"}}}},
			{"inactive professional", booking(map[string]any{"professional_id": a.Professionals["ruiz"]}), "PROFESSIONAL_NOT_FOUND",
				map[string]any{"field": "professional_id", "valid_professional_names": []any{"Dr. López", "Dra. García"},
					"valid_professional_ids": ids([]int64{a.Professionals["lopez"], a.Professionals["garcia"]})}},
			{"inactive professional by name", booking(map[string]any{"professional_name": "dr. ruiz"}), "PROFESSIONAL_NOT_FOUND",
				map[string]any{"field": "professional_name", "valid_professional_names": []any{"Dr. López", "Dra. García"}}},
			{"professional not a member", booking(map[string]any{"service_name": "Ortodoncia", "professional_name": "Dr. López"}), "PROFESSIONAL_NOT_FOUND",
				map[string]any{"field": "professional_name", "valid_professional_names": []any{"Dra. García"},
					"valid_professional_ids": ids([]int64{a.Professionals["garcia"]})}},
			{"other tenant's professional", booking(map[string]any{"professional_id": o.Professionals["jones"]}), "PROFESSIONAL_NOT_FOUND",
				map[string]any{"field": "professional_id"}},
			{"ambiguous professional", booking(map[string]any{"service_id": a.Services["rev1"], "professional_name": "DRA. GARCIA"}), "AMBIGUOUS_MATCH",
				map[string]any{"field": "professional_name", "candidates": []any{
					map[string]any{"id": float64(a.Professionals["garcia"]), "name": "Dra. García"},
					map[string]any{"id": float64(a.Professionals["garcia2"]), "name": "Dra. Garcia"}}}},
			{"inactive event type", booking(map[string]any{"event_type_name": "llamada"}), "EVENT_TYPE_NOT_FOUND",
				map[string]any{"field": "event_type_name", "valid_event_type_names": []any{"In person", "Videollamada"},
					"valid_event_type_ids": ids([]int64{a.EventTypes["visit"], a.EventTypes["video"]})}},
			{"event type not offered", booking(map[string]any{"service_name": "Ortodoncia", "professional_name": "Dra. García", "event_type_id": a.EventTypes["video"]}),
				"EVENT_TYPE_NOT_FOUND", map[string]any{"field": "event_type_id", "valid_event_type_names": []any{"In person"}}},
			{"bad timezone", booking(map[string]any{"timezone": "Mars/Olympus_Mons"}), "INVALID_TIMEZONE", map[string]any{"field": "timezone"}},
			{"empty timezone", booking(map[string]any{"timezone": ""}), "INVALID_TIMEZONE", nil},
			{"end equals start", booking(map[string]any{"end_at": "2026-12-01T10:00:00"}), "INVALID_TIME_RANGE", map[string]any{"field": "end_at"}},
			{"end before start", booking(map[string]any{"end_at": "2026-12-01T09:00:00"}), "INVALID_TIME_RANGE", nil},
			{"end before start by offset", booking(map[string]any{"end_at": "2026-12-01T10:15:00+02:00"}), "INVALID_TIME_RANGE", nil},
			{"DST gap", booking(map[string]any{"start_at": "2026-03-29T02:30:00", "end_at": "2026-03-29T03:30:00"}), "INVALID_TIME_RANGE",
				map[string]any{"field": "start_at"}},
			{"new phone without names", booking(map[string]any{"client": client("", "  ", "+34611000002")}), "NAME_REQUIRED", nil},
			{"unreadable phone", booking(map[string]any{"client": client("Ana", "", "12")}), "INVALID_PHONE", map[string]any{"field": "client.phone"}},
			{"phone under another country code", booking(map[string]any{"client": client("", "", "+33600111222")}), "VALIDATION_ERROR",
				map[string]any{"field": "client.phone", "conflicting_client_id": maria}},
		}
		for _, tc := range refusals {
			t.Run(tc.name, func(t *testing.T) {
				res := h.do("POST", calendarPath+"/events", acmeKey, tc.body).must(t, 400)
				if res.errorCode() != tc.code || res.str("status") != "error" || res.str("message") == "" {
					t.Fatalf("got %s, want %s", res.Raw, tc.code)
				}
				for k, v := range tc.details {
					if got := res.get("details", k); !same(got, v) {
						t.Errorf("details.%s = %v, want %v", k, got, v)
					}
				}
			})
		}
		if n := h.count("appointments", ""); n != 0 {
			t.Fatalf("refusals wrote %d appointments", n)
		}
		if n := h.count("clients", "account_id = ?", acmeID); n != clientsBefore {
			t.Fatalf("refusals created %d clients", n-clientsBefore)
		}

		// Accepted bookings.
		accepted := []struct {
			name       string
			body       map[string]any
			start, end string
			service    string // file key
			pro        string
			created    bool
		}{
			{"accent- and case-insensitive names", booking(map[string]any{"service_name": "limpieza DENTAL", "professional_name": "  DR. LOPEZ",
				"event_type_name": "in PERSON"}), "2026-12-01T09:00:00Z", "2026-12-01T09:30:00Z", "cleaning", "lopez", true},
			{"ids win over names", booking(map[string]any{"service_id": a.Services["ortho"], "service_name": "Limpieza dental",
				"professional_id": a.Professionals["garcia"], "professional_name": "nobody", "event_type_id": a.EventTypes["visit"], "event_type_name": "x",
				"client": client("", "", "+34611000001")}), "2026-12-01T09:00:00Z", "2026-12-01T09:30:00Z", "ortho", "garcia", false},
			{"offset wins over the zone", booking(map[string]any{"start_at": "2026-12-01T10:00:00+05:00", "end_at": "2026-12-01T05:45:00Z",
				"timezone": "America/New_York", "client": client("", "", "+34611000001")}), "2026-12-01T05:00:00Z", "2026-12-01T05:45:00Z", "cleaning", "lopez", false},
			{"wall clock in another zone", booking(map[string]any{"timezone": "America/New_York", "client": client("", "", "+34611000001")}),
				"2026-12-01T15:00:00Z", "2026-12-01T15:30:00Z", "cleaning", "lopez", false},
			{"DST overlap takes the earlier instant", booking(map[string]any{"start_at": "2026-10-25T02:30:00", "end_at": "2026-10-25T03:30:00",
				"client": client("", "", "+34611000001")}), "2026-10-25T00:30:00Z", "2026-10-25T02:30:00Z", "cleaning", "lopez", false},
			{"double booking of the same slot", booking(map[string]any{"client": client("Otro", "", "+34611000003")}),
				"2026-12-01T09:00:00Z", "2026-12-01T09:30:00Z", "cleaning", "lopez", true},
			{"outside working hours (Sunday night)", booking(map[string]any{"start_at": "2026-12-06T23:00:00", "end_at": "2026-12-07T00:15:00",
				"client": client("", "", "+34611000001")}), "2026-12-06T22:00:00Z", "2026-12-06T23:15:00Z", "cleaning", "lopez", false},
			{"professional on time off, with seconds and a fraction", booking(map[string]any{"service_name": "Ortodoncia", "professional_name": "Dra. García",
				"start_at": "2026-12-09T10:00:00.5", "end_at": "2026-12-09T11:00", "client": client("", "", "+34611000001")}),
				"2026-12-09T09:00:00.5Z", "2026-12-09T10:00:00Z", "ortho", "garcia", false},
			{"national phone read with the account's region", booking(map[string]any{"client": client("", "", "600 111 222")}),
				"2026-12-01T09:00:00Z", "2026-12-01T09:30:00Z", "cleaning", "lopez", false},
		}
		var prevID float64
		for _, tc := range accepted {
			t.Run(tc.name, func(t *testing.T) {
				res := h.do("POST", calendarPath+"/events", acmeKey, tc.body).must(t, 200)
				if res.str("data", "start_at") != tc.start || res.str("data", "end_at") != tc.end {
					t.Errorf("times = %s .. %s, want %s .. %s", res.str("data", "start_at"), res.str("data", "end_at"), tc.start, tc.end)
				}
				if res.num("data", "service", "id") != float64(a.Services[tc.service]) ||
					res.num("data", "calendar_profile", "calendar_profile_id") != float64(a.Professionals[tc.pro]) {
					t.Errorf("service/professional: %s", res.Raw)
				}
				if res.get("client_created") != tc.created {
					t.Errorf("client_created = %v, want %v", res.get("client_created"), tc.created)
				}
				if id := res.num("data", "id"); id <= prevID {
					t.Errorf("appointment id %v not new (previous %v)", id, prevID)
				} else {
					prevID = id
				}
			})
		}

		// A known phone reuses the client as stored: names and e-mail sent are ignored.
		res := h.do("POST", calendarPath+"/events", acmeKey, booking(map[string]any{
			"client": map[string]any{"first_name": "Mary", "last_name": "Garcia", "phone": "+34 600-111-222", "email": "new@example.com"}})).must(t, 200)
		if res.num("client_id") != maria || res.get("client_created") != false || res.str("data", "client", "name") != "María García" ||
			res.str("data", "client", "phone") != "+34600111222" {
			t.Errorf("known phone: %s", res.Raw)
		}
		if n := h.count("clients", "id = ? AND first_name = 'María' AND email = 'maria@example.com'", int64(maria)); n != 1 {
			t.Errorf("known client was changed")
		}
		// Lucía was created once and reused by every later booking of her phone.
		if n := h.count("clients", "account_id = ? AND phone_national = '611000001'", acmeID); n != 1 {
			t.Errorf("clients with Lucía's phone = %d", n)
		}
		if n := h.count("appointments", "account_id = ? AND client_id = ?", acmeID, int64(maria)); n != 2 {
			t.Errorf("María's appointments = %d, want 2", n)
		}
		// The other tenant's store is untouched; its own booking works on its own catalog.
		if n := h.count("appointments", "account_id = ?", h.ids["other"].Account.ID); n != 0 {
			t.Errorf("other tenant has %d appointments", n)
		}
		ob := h.do("POST", calendarPath+"/events", otherKey, booking(map[string]any{"professional_name": "Dr. Jones",
			"client": client("Sam", "", "+447700900123"), "timezone": "Europe/London"})).must(t, 200)
		if ob.num("data", "service", "id") != float64(o.Services["cleaning"]) || ob.str("data", "start_at") != "2026-12-01T10:00:00Z" {
			t.Errorf("other booking: %s", ob.Raw)
		}
		h.do("POST", calendarPath+"/events", otherKey, booking(map[string]any{"service_id": a.Services["cleaning"], "professional_name": "Dr. Jones",
			"client": client("Sam", "", "+447700900123")})).must(t, 400)
	})
}

func TestBookingValidation(t *testing.T) {
	dbtest.Engines(t, func(t *testing.T, store *db.DB) {
		h := newHarness(t, store, "testdata/calendar.yaml")
		long := func(n int) string { return strings.Repeat("a", n) }
		cases := []struct {
			name string
			body any
			want []string
		}{
			{"not JSON", `{"client":`, []string{"body json_invalid"}},
			{"not an object", `[]`, []string{"body model_type"}},
			{"empty object", map[string]any{}, []string{"body.client missing", "body.service_id missing", "body.professional_id missing",
				"body.event_type_id missing", "body.start_at missing", "body.end_at missing", "body.timezone missing"}},
			{"nulls are missing", booking(map[string]any{"client": nil, "service_name": nil, "timezone": nil}),
				[]string{"body.client missing", "body.service_id missing", "body.timezone missing"}},
			{"client not an object", booking(map[string]any{"client": "+34611000001"}), []string{"body.client model_type"}},
			{"client without phone", booking(map[string]any{"client": map[string]any{"first_name": "Ana"}}), []string{"body.client.phone missing"}},
			{"client field lengths", booking(map[string]any{"client": map[string]any{"phone": "+34611000001", "first_name": long(101),
				"last_name": long(101), "email": long(251) + "@x.es"}}),
				[]string{"body.client.first_name string_too_long", "body.client.last_name string_too_long", "body.client.email string_too_long"}},
			{"wrong types", booking(map[string]any{"service_id": "5", "professional_id": 1.5, "event_type_name": 7, "client": map[string]any{"phone": 34611000001}}),
				[]string{"body.client.phone string_type", "body.service_id int_parsing", "body.professional_id int_parsing", "body.event_type_name string_type"}},
			{"name lengths", booking(map[string]any{"service_name": long(256), "professional_name": long(256), "event_type_name": long(256)}),
				[]string{"body.service_name string_too_long", "body.professional_name string_too_long", "body.event_type_name string_too_long"}},
			{"timezone and notes lengths", booking(map[string]any{"timezone": long(65), "notes": long(2001)}),
				[]string{"body.timezone string_too_long", "body.notes string_too_long"}},
			{"malformed timestamps", booking(map[string]any{"start_at": "tomorrow at ten", "end_at": "2026-02-30T10:00:00"}),
				[]string{"body.start_at datetime_parsing", "body.end_at datetime_parsing"}},
			{"timestamp not a string", booking(map[string]any{"start_at": 1764579600}), []string{"body.start_at string_type"}},
		}
		for _, tc := range cases {
			t.Run(tc.name, func(t *testing.T) {
				res := h.do("POST", calendarPath+"/events", acmeKey, tc.body).must(t, 422)
				got := problems(t, res)
				if strings.Join(got, "|") != strings.Join(tc.want, "|") {
					t.Errorf("problems = %q, want %q", got, tc.want)
				}
			})
		}
		// Limits are inclusive.
		h.do("POST", calendarPath+"/events", acmeKey, booking(map[string]any{"notes": long(2000),
			"client": map[string]any{"phone": "+34611000009", "first_name": long(100), "last_name": long(100)}})).must(t, 200)
		if n := h.count("appointments", ""); n != 1 {
			t.Fatalf("appointments = %d, want 1", n)
		}
	})
}
