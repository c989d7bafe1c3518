package httpapi_test

import (
	"context"
	"fmt"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/frontdesk/frontdesk/internal/db"
	"github.com/frontdesk/frontdesk/internal/db/dbtest"
	"github.com/frontdesk/frontdesk/internal/mcp/mcptest"
)

// TestDateBounds: every day a query names or an answer lists is a
// YYYY-MM-DD day from 0001-01-01 to 9999-12-31, and every instant an answer
// writes has a four-digit year (docs/api-notes.md "Dates and durations").
// A window that would run past 9999-12-31 is 422 less_than_equal naming the
// latest start; a year 0 is not a date; nothing answers 500.
func TestDateBounds(t *testing.T) {
	dbtest.Engines(t, func(t *testing.T, store *db.DB) {
		h := newHarness(t, store, "testdata/calendar.yaml")
		svc := h.acme().Services["cleaning"]
		slots := func(q string) string { return fmt.Sprintf("%s?service_id=%d&%s", slotsPath, svc, q) }
		avail := func(q string) string { return calendarPath + "/availability?" + q }
		for _, test := range []struct {
			name, path string
			status     int
			// problem is the 422 item "loc/type"; end the answer's end_date.
			problem, end string
		}{
			{"slots at the last day", slots("start_date=9999-12-31&days=1"), 200, "", "9999-12-31"},
			{"slots: default days past the last day", slots("start_date=9999-12-31"), 422, "[query start_date]/less_than_equal", ""},
			{"slots: a week ending on the last day", slots("start_date=9999-12-25&days=7"), 200, "", "9999-12-31"},
			{"slots: a week one day too late", slots("start_date=9999-12-26&days=7"), 422, "[query start_date]/less_than_equal", ""},
			{"slots: 31 days past the end", slots("start_date=9999-12-31&days=31"), 422, "[query start_date]/less_than_equal", ""},
			{"slots at the first day", slots("start_date=0001-01-01&days=31"), 200, "", "0001-01-31"},
			{"slots in year 0", slots("start_date=0000-12-31"), 422, "[query start_date]/date_from_datetime_parsing", ""},
			{"slots on February 30", slots("start_date=2026-02-30"), 422, "[query start_date]/date_from_datetime_parsing", ""},
			{"slots in year 10000", slots("start_date=10000-01-01"), 422, "[query start_date]/date_from_datetime_parsing", ""},
			{"availability at the last day", avail("start_date=9999-12-31&days=1"), 200, "", "9999-12-31"},
			{"availability: default 14 days past the end", avail("start_date=9999-12-31"), 422, "[query start_date]/less_than_equal", ""},
			{"availability: 90 days ending on the last day", avail("start_date=9999-10-03&days=90"), 200, "", "9999-12-31"},
			{"availability: 90 days one too many", avail("start_date=9999-10-04&days=90"), 422, "[query start_date]/less_than_equal", ""},
			{"availability at the first day", avail("start_date=0001-01-01&days=90"), 200, "", "0001-03-31"},
			{"availability in year 0", avail("start_date=0000-01-01"), 422, "[query start_date]/date_from_datetime_parsing", ""},
			{"chat: an instant past 9999 in UTC", "/api/v2/public/chat/conversations?updated_after=9999-12-31T23:59:59-12:00", 422, "[query updated_after]/datetime_parsing", ""},
			{"chat: an instant before year 1 in UTC", "/api/v2/public/chat/conversations?created_before=0001-01-01T00:30:00%2B01:00", 422, "[query created_before]/datetime_parsing", ""},
			{"chat: the last instant", "/api/v2/public/chat/conversations?updated_after=9999-12-31T23:59:59Z", 200, "", ""},
		} {
			t.Run(test.name, func(t *testing.T) {
				res := h.do("GET", test.path, acmeKey, nil).must(t, test.status)
				if test.problem != "" {
					if got := strings.Join(slotProblems(res), ","); got != test.problem {
						t.Errorf("problems %s, want %s: %s", got, test.problem, res.Raw)
					}
				}
				if test.end != "" && res.str("data", "end_date") != test.end {
					t.Errorf("end_date %q, want %s", res.str("data", "end_date"), test.end)
				}
			})
		}
		// The 422 names the latest start that fits.
		res := h.do("GET", slots("start_date=9999-12-31&days=7"), acmeKey, nil).must(t, 422)
		if !strings.Contains(string(res.Raw), "9999-12-25") {
			t.Errorf("the refusal does not name the latest start: %s", res.Raw)
		}

		// Booking: an appointment whose instants leave the years 0001-9999
		// in UTC is refused; the last hour of 9999 in UTC is bookable.
		for i, c := range []struct {
			start, end, zone string
			status           int
		}{
			{"9999-12-31T23:00:00", "9999-12-31T23:30:00", "Pacific/Honolulu", 400},
			{"9999-12-31T23:00:00-10:00", "9999-12-31T23:30:00-10:00", "UTC", 400},
			{"0001-01-01T00:00:00", "0001-01-01T00:30:00", "Asia/Tokyo", 400},
			{"0000-06-01T10:00:00", "0000-06-01T10:30:00", "UTC", 400},
			{"9999-12-31T23:00:00Z", "9999-12-31T23:30:00Z", "UTC", 200},
		} {
			res := h.do("POST", calendarPath+"/events", acmeKey, booking(map[string]any{"start_at": c.start, "end_at": c.end, "timezone": c.zone,
				"client": client("Ana", "Far", fmt.Sprintf("+3461100090%d", i))})).must(t, c.status)
			if c.status == 400 && res.errorCode() != "INVALID_TIME_RANGE" {
				t.Errorf("booking %s in %s: %s", c.start, c.zone, res.Raw)
			}
		}

		// MCP's find_slots reads the same rule.
		ts := httptest.NewServer(h.srv)
		defer ts.Close()
		cs, err := mcpConnect(context.Background(), ts.URL, acmeKey)
		if err != nil {
			t.Fatal(err)
		}
		defer cs.Close()
		r := mcptest.Call(t, cs, "find_slots", map[string]any{"service_id": svc, "start_date": "9999-12-31", "days": 2})
		if !r.IsError || r.Code() != "VALIDATION_ERROR" || !strings.Contains(fmt.Sprint(r.Body["details"]), "less_than_equal") {
			t.Errorf("find_slots past the last day: %v", r.Body)
		}
		if r := mcptest.Call(t, cs, "find_slots", map[string]any{"service_id": svc, "start_date": "9999-12-31", "days": 1}); r.IsError {
			t.Errorf("find_slots on the last day: %v", r.Body)
		}
	})
}
