package httpapi_test

import (
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/frontdesk/frontdesk/internal/db"
	"github.com/frontdesk/frontdesk/internal/db/dbtest"
)

// warningsOf returns a booking response's data.warnings; it fails the test
// when the key is missing or not a list (it must be [] when empty).
func warningsOf(t *testing.T, res response) []map[string]any {
	t.Helper()
	raw, ok := res.get("data", "warnings").([]any)
	if !ok {
		t.Fatalf("data.warnings missing or not a list: %s", res.Raw)
	}
	out := make([]map[string]any, len(raw))
	for i, w := range raw {
		m, ok := w.(map[string]any)
		if !ok {
			t.Fatalf("warning %d is not an object: %s", i, res.Raw)
		}
		if s, _ := m["code"].(string); s == "" {
			t.Errorf("warning %d has no code: %v", i, m)
		}
		if s, _ := m["message"].(string); s == "" {
			t.Errorf("warning %d has no message: %v", i, m)
		}
		out[i] = m
	}
	return out
}

// warningCodes lists the codes in order.
func warningCodes(ws []map[string]any) []string {
	out := []string{}
	for _, w := range ws {
		out = append(out, w["code"].(string))
	}
	return out
}

// TestBookingWarnings: availability never refuses a booking (rule 2), but
// the response's additive data.warnings says what is unusual about the slot.
// The harness clock is Monday 2026-11-23 09:00 UTC (10:00 in Madrid). Dr.
// López works Mon 09-13 and 15-19, Tue 09-17 (Madrid) and is off
// 2026-12-24..27; Dra. García works weekdays 09-13 and 15-18 and is off
// Wednesday 2026-12-09 09:00-13:00 Madrid.
func TestBookingWarnings(t *testing.T) {
	dbtest.Engines(t, func(t *testing.T, store *db.DB) {
		h := newHarness(t, store, "testdata/calendar.yaml")
		acmeID := h.ids["acme"].Account.ID
		book := func(t *testing.T, key string, over map[string]any) (response, float64) {
			t.Helper()
			if _, ok := over["client"]; !ok {
				over["client"] = client("Lucía", "Pérez", "+34611000001")
			}
			res := h.do("POST", calendarPath+"/events", key, booking(over)).must(t, 200)
			return res, res.num("data", "id")
		}
		garcia := map[string]any{"service_name": "Ortodoncia", "professional_name": "Dra. García"}
		merge := func(base map[string]any, over map[string]any) map[string]any {
			out := map[string]any{}
			for k, v := range base {
				out[k] = v
			}
			for k, v := range over {
				out[k] = v
			}
			return out
		}

		// The anchor of the overlap cases: Tuesday 10:00-10:30 with López.
		first, firstID := book(t, acmeKey, map[string]any{})
		if ws := warningsOf(t, first); len(ws) != 0 {
			t.Fatalf("a booking inside working hours warns: %v", ws)
		}
		if !strings.Contains(string(first.Raw), `"warnings":[]`) {
			t.Errorf("an empty warnings list must be encoded as []: %s", first.Raw)
		}

		cases := []struct {
			name string
			over map[string]any
			want []string
			// check inspects the warnings beyond their codes.
			check func(t *testing.T, ws []map[string]any)
		}{
			{"working hours are the account's zone, whatever zone the request uses",
				map[string]any{"start_at": "2026-12-01T05:00:00", "end_at": "2026-12-01T05:30:00", "timezone": "America/New_York"}, nil, nil},
			{"a whole working range, edges included",
				map[string]any{"start_at": "2026-11-30T09:00:00", "end_at": "2026-11-30T13:00:00"}, nil, nil},
			{"back to back with the anchor does not overlap (half-open spans)",
				map[string]any{"start_at": "2026-12-01T10:30:00", "end_at": "2026-12-01T11:00:00"}, nil, nil},
			{"same time, another professional",
				merge(garcia, map[string]any{"start_at": "2026-12-01T10:00:00", "end_at": "2026-12-01T10:30:00"}), nil, nil},
			{"overlap names the other appointment",
				map[string]any{"start_at": "2026-12-01T09:45:00", "end_at": "2026-12-01T10:15:00", "client": client("Otro", "", "+34611000009")},
				[]string{"overlaps_existing_appointment"},
				func(t *testing.T, ws []map[string]any) {
					if ws[0]["appointment_id"] != firstID || ws[0]["start_at"] != "2026-12-01T09:00:00Z" || ws[0]["end_at"] != "2026-12-01T09:30:00Z" {
						t.Errorf("overlap warning = %v, want appointment %v 09:00-09:30Z", ws[0], firstID)
					}
				}},
			{"Sunday night is outside working hours",
				map[string]any{"start_at": "2026-12-06T23:00:00", "end_at": "2026-12-07T00:15:00"}, []string{"outside_working_hours"},
				func(t *testing.T, ws []map[string]any) {
					if len(ws[0]) != 2 {
						t.Errorf("outside_working_hours carries only code and message: %v", ws[0])
					}
				}},
			{"running past the end of the day",
				map[string]any{"start_at": "2026-12-01T16:45:00", "end_at": "2026-12-01T17:15:00"}, []string{"outside_working_hours"}, nil},
			{"spanning the lunch break",
				map[string]any{"start_at": "2026-12-07T12:30:00", "end_at": "2026-12-07T15:30:00"}, []string{"outside_working_hours"}, nil},
			{"time off inside working hours",
				merge(garcia, map[string]any{"start_at": "2026-12-09T12:30:00", "end_at": "2026-12-09T13:00:00"}), []string{"professional_on_time_off"},
				func(t *testing.T, ws []map[string]any) {
					if ws[0]["from"] != "2026-12-09T08:00:00Z" || ws[0]["to"] != "2026-12-09T12:00:00Z" {
						t.Errorf("time-off warning = %v", ws[0])
					}
				}},
			{"right after the time off",
				merge(garcia, map[string]any{"start_at": "2026-12-09T15:00:00", "end_at": "2026-12-09T16:00:00"}), nil, nil},
			{"earlier today is in the past",
				map[string]any{"start_at": "2026-11-23T09:30:00", "end_at": "2026-11-23T10:00:00"}, []string{"in_the_past"}, nil},
			{"in the past, in working hours across the DST change (Monday after it)",
				map[string]any{"start_at": "2026-10-26T09:00:00", "end_at": "2026-10-26T09:30:00"}, []string{"in_the_past"}, nil},
		}
		for _, tc := range cases {
			t.Run(tc.name, func(t *testing.T) {
				res, _ := book(t, acmeKey, tc.over)
				ws := warningsOf(t, res)
				if got := warningCodes(ws); fmt.Sprint(got) != fmt.Sprint(append([]string{}, tc.want...)) {
					t.Fatalf("warnings = %v, want %v; body %s", got, tc.want, res.Raw)
				}
				if tc.check != nil {
					tc.check(t, ws)
				}
			})
		}

		// Every kind at once, in the documented order: López on Christmas
		// Eve 2026 (a Thursday: not a working day; time off) over two earlier
		// appointments, one of them cancelled.
		_, a1 := book(t, acmeKey, map[string]any{"start_at": "2026-12-24T10:00:00", "end_at": "2026-12-24T11:00:00"})
		_, a2 := book(t, acmeKey, map[string]any{"start_at": "2026-12-24T09:30:00", "end_at": "2026-12-24T10:30:00"})
		_, a3 := book(t, acmeKey, map[string]any{"start_at": "2026-12-24T11:00:00", "end_at": "2026-12-24T11:15:00"})
		if _, err := store.Exec(t.Context(), `UPDATE appointments SET status = 'cancelled' WHERE account_id = ? AND id = ?`, acmeID, int64(a3)); err != nil {
			t.Fatal(err)
		}
		res, _ := book(t, acmeKey, map[string]any{"start_at": "2026-12-24T09:00:00", "end_at": "2026-12-24T12:00:00"})
		ws := warningsOf(t, res)
		want := []string{"outside_working_hours", "professional_on_time_off", "overlaps_existing_appointment", "overlaps_existing_appointment"}
		if got := warningCodes(ws); fmt.Sprint(got) != fmt.Sprint(want) {
			t.Fatalf("warnings = %v, want %v", got, want)
		}
		// Overlaps by start: a2 (09:30) before a1 (10:00); the cancelled a3 is not one.
		if ws[2]["appointment_id"] != a2 || ws[3]["appointment_id"] != a1 {
			t.Errorf("overlaps = %v, %v; want %v then %v", ws[2]["appointment_id"], ws[3]["appointment_id"], a2, a1)
		}
		if ws[1]["from"] != "2026-12-24T00:00:00Z" || ws[1]["to"] != "2026-12-27T00:00:00Z" {
			t.Errorf("time off = %v", ws[1])
		}

		// And the past on top: a past booking over the anchor's past twin.
		_, past := book(t, acmeKey, map[string]any{"start_at": "2026-11-16T20:00:00", "end_at": "2026-11-16T20:30:00"})
		res, _ = book(t, acmeKey, map[string]any{"start_at": "2026-11-16T20:15:00", "end_at": "2026-11-16T20:45:00"})
		ws = warningsOf(t, res)
		if got := warningCodes(ws); fmt.Sprint(got) != "[in_the_past outside_working_hours overlaps_existing_appointment]" || ws[2]["appointment_id"] != past {
			t.Errorf("past overlap: %v", ws)
		}

		// Every warned booking was written: warnings never refuse.
		if n := h.count("appointments", "account_id = ? AND status = 'booked'", acmeID); n != 1+len(cases)+2+1+2 {
			t.Errorf("booked appointments = %d, want %d", n, 1+len(cases)+2+1+2)
		}

		// Tenancy: the other tenant's appointment at the anchor's instant
		// shows up nowhere in acme, and acme's never in the other tenant.
		ob := h.do("POST", calendarPath+"/events", otherKey, booking(map[string]any{"professional_name": "Dr. Jones",
			"client": client("Sam", "", "+447700900123"), "start_at": "2026-12-01T09:00:00Z", "end_at": "2026-12-01T09:30:00Z",
			"timezone": "Europe/London"})).must(t, 200)
		for _, w := range warningsOf(t, ob) {
			if w["code"] == "overlaps_existing_appointment" {
				t.Errorf("other tenant sees an acme appointment: %v", w)
			}
		}
		res, _ = book(t, acmeKey, map[string]any{"start_at": "2026-12-01T10:00:00", "end_at": "2026-12-01T10:30:00"})
		for _, w := range warningsOf(t, res) {
			if w["code"] == "overlaps_existing_appointment" && w["appointment_id"] == ob.num("data", "id") {
				t.Errorf("acme sees the other tenant's appointment: %v", w)
			}
		}
	})
}

// TestBookingWarningsManyOverlaps: a slot over many appointments lists each
// one, ordered by start then id, and still books.
func TestBookingWarningsManyOverlaps(t *testing.T) {
	dbtest.Engines(t, func(t *testing.T, store *db.DB) {
		h := newHarness(t, store, "testdata/calendar.yaml")
		var want []any
		base := time.Date(2026, 12, 1, 10, 0, 0, 0, time.UTC) // wall clock in Madrid
		for i := range 12 {
			start := base.Add(time.Duration(i) * 5 * time.Minute)
			res := h.do("POST", calendarPath+"/events", acmeKey, booking(map[string]any{
				"start_at": start.Format("2006-01-02T15:04:05"), "end_at": start.Add(30 * time.Minute).Format("2006-01-02T15:04:05")})).must(t, 200)
			want = append(want, res.get("data", "id"))
		}
		res := h.do("POST", calendarPath+"/events", acmeKey, booking(map[string]any{
			"start_at": "2026-12-01T10:00:00", "end_at": "2026-12-01T11:00:00"})).must(t, 200)
		var got []any
		for _, w := range warningsOf(t, res) {
			if w["code"] != "overlaps_existing_appointment" {
				t.Errorf("unexpected warning %v", w)
			}
			got = append(got, w["appointment_id"])
		}
		if !same(got, want) {
			t.Errorf("overlapped ids = %v, want %v", got, want)
		}
	})
}

// TestBookingOnAHeldSlot: a slot held by a waiting-list seat offer can still
// be booked (booking never refuses); the answer says so, as an additive
// warning the document describes, and the hold is released.
func TestBookingOnAHeldSlot(t *testing.T) {
	dbtest.Engines(t, func(t *testing.T, store *db.DB) {
		h := newHarness(t, store)
		acmeID := h.ids["acme"].Account.ID
		// María's entry holds Tuesday 2026-12-01 10:00-10:30 Madrid with Dr. López.
		res := h.do("POST", calendarPath+"/waitlist/entries", acmeKey, map[string]any{"client_id": h.ids["acme"].IDs.Clients["maria"],
			"service_names": []string{"Limpieza dental"}}).must(t, 200)
		entry := int64(res.num("data", "entries", 0, "id"))
		start := time.Date(2026, 12, 1, 9, 0, 0, 0, time.UTC)
		if _, err := store.Exec(t.Context(), `UPDATE waitlist_entries SET status = 'queued', queued_at = ?, offered_at = ?, seat_expires_at = ?,
				offer_professional_id = ?, offer_start_at = ?, offer_end_at = ? WHERE account_id = ? AND id = ?`,
			db.Micros(testNow), db.Micros(testNow), db.Micros(testNow.Add(2*time.Hour)), h.ids["acme"].IDs.Professionals["lopez"],
			db.Micros(start), db.Micros(start.Add(30*time.Minute)), acmeID, entry); err != nil {
			t.Fatal(err)
		}
		booked := h.do("POST", calendarPath+"/events", acmeKey, booking(map[string]any{"client": client("Otro", "", "+34611000009")})).must(t, 200)
		ws := warningsOf(t, booked)
		if len(ws) != 1 || ws[0]["code"] != "slot_held_for_waitlist_offer" || ws[0]["entry_id"] != float64(entry) ||
			ws[0]["seat_expires_at"] != "2026-11-23T11:00:00Z" {
			t.Fatalf("warnings = %v", ws)
		}
		var status string
		store.QueryRow(t.Context(), `SELECT status FROM waitlist_entries WHERE id = ?`, entry).Scan(&status)
		if status != "waiting" {
			t.Errorf("the held entry is %s, want waiting (hold released)", status)
		}
	})
}
