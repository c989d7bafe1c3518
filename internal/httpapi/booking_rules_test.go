package httpapi_test

import (
	"context"
	"fmt"
	"net/http/httptest"
	"testing"

	"github.com/frontdesk/frontdesk/internal/db"
	"github.com/frontdesk/frontdesk/internal/db/dbtest"
	"github.com/frontdesk/frontdesk/internal/mcp/mcptest"
)

// TestBookingRulesThroughTheAPI: the free slots honour acme's booking rules
// (docs/booking-rules.md), booking a listed slot warns of nothing, and a
// booking that breaks a rule is made all the same with one
// breaks_booking_rule warning per rule. The harness clock is Monday
// 2026-11-23 10:00 in Madrid; Dr. López works Tuesdays 09:00-17:00.
func TestBookingRulesThroughTheAPI(t *testing.T) {
	dbtest.Engines(t, func(t *testing.T, store *db.DB) {
		h := newHarness(t, store)
		h.applyData([]byte(`account: {slug: acme, booking_rules: {min_notice: 2h, max_advance: 14d, max_future_per_client: 1}}
services: [{key: cleaning, booking_rules: {buffer_after: 10}}]`))
		svc := h.ids["acme"].IDs.Services["cleaning"]
		book := func(t *testing.T, phone, start, end string) []map[string]any {
			t.Helper()
			res := h.do("POST", calendarPath+"/events", acmeKey, booking(map[string]any{"client": client("Nora", "", phone),
				"start_at": start, "end_at": end})).must(t, 200)
			return warningsOf(t, res)
		}
		if ws := book(t, "+34611000001", "2026-12-01T10:00:00", "2026-12-01T10:30:00"); len(ws) != 0 {
			t.Fatalf("a booking that keeps the rules warns: %v", ws)
		}

		// Slots: 30 minutes and 10 of buffer after, laid from 09:00 and from
		// the end of the 10:00 appointment's buffer (10:40).
		res := h.do("GET", fmt.Sprintf("%s?service_id=%d&start_date=2026-12-01&days=1&timezone=Europe/Madrid", slotsPath, svc), acmeKey, nil).must(t, 200)
		var starts []string
		for _, s := range res.get("data", "slots").([]any) {
			starts = append(starts, s.(map[string]any)["start_at"].(string)[11:16])
		}
		if want := "[09:00 10:40 11:20 12:00 12:40 13:20 14:00 14:40 15:20 16:00]"; fmt.Sprint(starts) != want {
			t.Errorf("slots = %v\nwant   %s", starts, want)
		}
		if ws := book(t, "+34611000002", "2026-12-01T10:40:00", "2026-12-01T11:10:00"); len(ws) != 0 {
			t.Errorf("booking a listed slot warns: %v", ws)
		}

		for _, test := range []struct {
			name, phone, start, end string
			want                    []string
		}{
			{"the client already holds a future appointment", "+34611000001", "2026-12-01T14:00:00", "2026-12-01T14:30:00", []string{"max_future_per_client"}},
			{"less than two hours ahead", "+34611000003", "2026-11-23T11:00:00", "2026-11-23T11:30:00", []string{"min_notice"}},
			{"fourteen days ahead or more", "+34611000004", "2026-12-07T10:00:00", "2026-12-07T10:30:00", []string{"max_advance"}},
			{"inside the buffer after an appointment", "+34611000005", "2026-12-01T11:15:00", "2026-12-01T11:45:00", []string{"buffer"}},
		} {
			t.Run(test.name, func(t *testing.T) {
				var rules []string
				for _, w := range book(t, test.phone, test.start, test.end) {
					if w["code"] == "breaks_booking_rule" {
						rules = append(rules, w["rule"].(string))
					}
				}
				if fmt.Sprint(rules) != fmt.Sprint(test.want) {
					t.Errorf("broken rules = %v, want %v", rules, test.want)
				}
			})
		}
	})
}

// TestBookingRulesThroughMCP: find_slots lists what the API lists under the
// rules, and book_appointment warns of a broken rule as the API does.
func TestBookingRulesThroughMCP(t *testing.T) {
	dbtest.Engines(t, func(t *testing.T, store *db.DB) {
		h := newHarness(t, store)
		h.applyData([]byte(`account: {slug: acme, booking_rules: {min_notice: 3h}}
services: [{key: cleaning, booking_rules: {buffer_before: 5}}]`))
		ts := httptest.NewServer(h.srv)
		defer ts.Close()
		cs, err := mcpConnect(context.Background(), ts.URL, acmeKey)
		if err != nil {
			t.Fatal(err)
		}
		defer cs.Close()
		svc := h.ids["acme"].IDs.Services["cleaning"]
		api := h.do("GET", fmt.Sprintf("%s?service_id=%d&start_date=2026-11-23&days=2", slotsPath, svc), acmeKey, nil).must(t, 200)
		found := mcptest.Call(t, cs, "find_slots", map[string]any{"service_id": svc, "start_date": "2026-11-23", "days": 2}).MustOK(t, "find_slots")
		starts := func(slots any) []string {
			var out []string
			for _, s := range slots.([]any) {
				out = append(out, s.(map[string]any)["start_at"].(string))
			}
			return out
		}
		got, want := starts(found.Body["slots"]), starts(api.get("data", "slots"))
		if fmt.Sprint(got) != fmt.Sprint(want) || len(got) == 0 || got[0] != "2026-11-23T15:05:00" {
			t.Errorf("find_slots = %v\nthe API lists %v (first at 15:05: nothing before 13:00 leaves three hours of notice, then 5 minutes of buffer)", got, want)
		}
		booked := mcptest.Call(t, cs, "book_appointment", booking(map[string]any{"client": client("Nora", "", "+34611000007"),
			"start_at": "2026-11-23T11:00:00", "end_at": "2026-11-23T11:30:00"})).MustOK(t, "book_appointment")
		appt, _ := booked.Body["appointment"].(map[string]any)
		warnings, _ := appt["warnings"].([]any)
		var rules []any
		for _, w := range warnings {
			if w := w.(map[string]any); w["code"] == "breaks_booking_rule" {
				rules = append(rules, w["rule"])
			}
		}
		if fmt.Sprint(rules) != "[min_notice]" {
			t.Errorf("book_appointment answers %v", booked.Body)
		}
	})
}
