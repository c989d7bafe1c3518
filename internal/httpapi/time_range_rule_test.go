package httpapi_test

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http/httptest"
	"net/url"
	"testing"

	"github.com/frontdesk/frontdesk/internal/db"
	"github.com/frontdesk/frontdesk/internal/db/dbtest"
	"github.com/frontdesk/frontdesk/internal/mcp/mcptest"
)

// TestOneTimeRangeRule drives the same windows of days through every door
// that takes one (the API's availability and free slots, MCP's find_slots)
// and the same appointment times through every door that takes them (the
// public booking, MCP's book_appointment), and wants the same answer from
// each: a window that runs past 9999-12-31 is calendar.CheckWindow's
// less_than_equal, and a booking's times are calendar.Book's
// INVALID_TIME_RANGE (end not after start, a wall time the clocks skip, an
// instant outside the years 0001..9999 in UTC).
func TestOneTimeRangeRule(t *testing.T) {
	dbtest.Engines(t, func(t *testing.T, store *db.DB) {
		h := newHarness(t, store)
		a := h.acme()
		ts := httptest.NewServer(h.srv)
		defer ts.Close()
		cs, err := mcpConnect(context.Background(), ts.URL, acmeKey)
		if err != nil {
			t.Fatal(err)
		}
		defer cs.Close()
		svc := a.Services["cleaning"]

		for _, test := range []struct {
			start string
			days  int
			ok    bool
		}{
			{"2026-12-01", 7, true},
			{"9999-12-25", 7, true}, // ends on 9999-12-31
			{"9999-12-31", 1, true},
			{"0001-01-01", 3, true},
			{"9999-12-26", 7, false}, // would end in 10000
			{"9999-12-31", 2, false},
			{"2026-02-30", 1, false},
			{"10000-01-01", 1, false},
		} {
			q := url.Values{"service_id": {fmt.Sprint(svc)}, "start_date": {test.start}, "days": {fmt.Sprint(test.days)}}
			slots := h.do("GET", isoPub+"/calendar/availability/slots?"+q.Encode(), acmeKey, nil)
			avail := h.do("GET", isoPub+"/calendar/availability?"+q.Encode(), acmeKey, nil)
			m := mcptest.Call(t, cs, "find_slots", map[string]any{"service_id": svc, "start_date": test.start, "days": test.days})
			got := map[string]string{
				"free slots":     apiAnswer(slots),
				"availability":   apiAnswer(avail),
				"mcp find_slots": m.Answer(),
			}
			for door, ans := range got {
				if (ans == "ok") != test.ok || ans != got["free slots"] {
					t.Errorf("%s, %d days: %s answers %s; free slots %s; want ok = %v", test.start, test.days, door, ans, got["free slots"], test.ok)
				}
			}
		}

		for i, test := range []struct {
			start, end, zone string
			ok               bool
		}{
			{"2026-12-01T10:00:00", "2026-12-01T10:30:00", "Europe/Madrid", true},
			{"2026-12-01T10:00:00+01:00", "2026-12-01T09:30:00Z", "Europe/Madrid", true},
			{"2026-12-01T10:30:00", "2026-12-01T10:00:00", "Europe/Madrid", false}, // ends before it starts
			{"2026-12-01T10:00:00", "2026-12-01T10:00:00", "Europe/Madrid", false},
			{"2026-03-29T02:30:00", "2026-03-29T03:30:00", "Europe/Madrid", false}, // the clocks skip 02:30
			{"9999-12-31T23:00:00", "9999-12-31T23:30:00", "Europe/Madrid", true},
			{"9999-12-31T23:00:00", "9999-12-31T23:30:00", "America/Los_Angeles", false}, // 10000 in UTC
			{"0001-01-01T00:00:00", "0001-01-01T00:30:00", "Asia/Tokyo", false},          // year 0 in UTC
		} {
			body := func(door int) map[string]any {
				return map[string]any{"client": map[string]any{"phone": fmt.Sprintf("+3463%d%06d", door, i), "first_name": "Nora"},
					"service_id": svc, "professional_id": a.Professionals["lopez"], "event_type_id": a.EventTypes["visit"],
					"start_at": test.start, "end_at": test.end, "timezone": test.zone}
			}
			api := apiAnswer(h.do("POST", isoPub+"/calendar/events", acmeKey, body(1)))
			m := mcptest.Call(t, cs, "book_appointment", body(2)).Answer()
			if (api == "ok") != test.ok || api != m {
				t.Errorf("%s..%s in %s: API answers %s, MCP %s; want ok = %v", test.start, test.end, test.zone, api, m, test.ok)
			}
		}
	})
}

// apiAnswer is an API answer in the form of mcptest.Result.Answer.
func apiAnswer(res response) string {
	switch {
	case res.Status == 200:
		return "ok"
	case res.Status == 422:
		return mcptest.Problems(res.get("detail"))
	}
	d, _ := json.Marshal(res.get("details"))
	return res.errorCode() + " " + string(d)
}
