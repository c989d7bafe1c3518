package httpapi_test

import (
	"fmt"
	"testing"
	"time"

	"github.com/frontdesk/frontdesk/internal/db"
	"github.com/frontdesk/frontdesk/internal/db/dbtest"
)

// capacities reads one service of an availability response: its total, its
// by_day capacities and its professionals' capacities by id.
func capacities(t *testing.T, res response, serviceID int64) (int, []int, map[int64]int) {
	t.Helper()
	for _, s := range res.list("data", "services") {
		m := s.(map[string]any)
		if int64(m["service_id"].(float64)) != serviceID {
			continue
		}
		var days []int
		sum := 0
		for _, d := range m["by_day"].([]any) {
			n := int(d.(map[string]any)["capacity"].(float64))
			days = append(days, n)
			sum += n
		}
		pros := map[int64]int{}
		psum := 0
		for _, p := range m["professionals"].([]any) {
			pm := p.(map[string]any)
			pros[int64(pm["id"].(float64))] = int(pm["capacity"].(float64))
			psum += int(pm["capacity"].(float64))
		}
		total := int(m["capacity"].(float64))
		if sum != total || psum != total {
			t.Fatalf("service %d: capacity %d, by_day sums to %d, professionals to %d", serviceID, total, sum, psum)
		}
		return total, days, pros
	}
	t.Fatalf("service %d not in %s", serviceID, res.Raw)
	return 0, nil, nil
}

func TestAvailability(t *testing.T) {
	dbtest.Engines(t, func(t *testing.T, store *db.DB) {
		h := newHarness(t, store, "testdata/calendar.yaml")
		a := h.acme()
		ortho, cleaning := a.Services["ortho"], a.Services["cleaning"]
		garcia, lopez := a.Professionals["garcia"], a.Professionals["lopez"]
		week := calendarPath + "/availability?start_date=2026-11-30&days=7"

		res := h.do("GET", week, acmeKey, nil).must(t, 200)
		if res.str("data", "start_date") != "2026-11-30" || res.str("data", "end_date") != "2026-12-06" ||
			res.str("data", "timezone") != "Europe/Madrid" || res.num("data", "days") != 7 || len(res.list("data", "services")) != 4 {
			t.Fatalf("window: %s", res.Raw)
		}
		if res.str("data", "services", 0, "by_day", 0, "date") != "2026-11-30" || res.str("data", "services", 0, "by_day", 6, "date") != "2026-12-06" ||
			res.num("data", "services", 1, "duration_minutes") != 60 || res.str("data", "services", 1, "service_name") != "Ortodoncia" {
			t.Errorf("shape: %s", res.Raw)
		}
		// Ortodoncia (60 min, Dra. García: 7 h Mon-Fri, 4 h Sat).
		total, days, _ := capacities(t, res, ortho)
		if total != 39 || !same(days, []int{7, 7, 7, 7, 7, 4, 0}) {
			t.Errorf("ortho = %d %v, want 39 [7 7 7 7 7 4 0]", total, days)
		}
		// Limpieza dental (30 min): Dr. López (Mon 8 h, Tue 8 h) + Dra. García; Dr. Ruiz is inactive.
		total, days, pros := capacities(t, res, cleaning)
		if total != 110 || !same(days, []int{30, 30, 14, 14, 14, 8, 0}) || pros[lopez] != 32 || pros[garcia] != 78 || len(pros) != 2 {
			t.Errorf("cleaning = %d %v %v, want 110 [30 30 14 14 14 8 0], López 32, García 78", total, days, pros)
		}
		// Revisión (20 min): Dra. García 21 a weekday, 12 on Saturday; Dra. Garcia has no hours.
		if total, _, pros := capacities(t, res, a.Services["rev1"]); total != 117 || pros[a.Professionals["garcia2"]] != 0 {
			t.Errorf("rev1 = %d %v", total, pros)
		}

		// One booking of Dra. García, Tuesday 10:00-11:00, takes exactly the
		// slots it covers: one of Ortodoncia, two of Limpieza dental.
		h.do("POST", calendarPath+"/events", acmeKey, booking(map[string]any{"service_id": ortho, "professional_id": garcia,
			"start_at": "2026-12-01T10:00:00", "end_at": "2026-12-01T11:00:00"})).must(t, 200)
		res = h.do("GET", week, acmeKey, nil).must(t, 200)
		if total, days, _ := capacities(t, res, ortho); total != 38 || days[1] != 6 {
			t.Errorf("ortho after booking = %d %v, want 38 with Tuesday 6", total, days)
		}
		if total, days, pros := capacities(t, res, cleaning); total != 108 || days[1] != 28 || pros[garcia] != 76 || pros[lopez] != 32 {
			t.Errorf("cleaning after booking = %d %v %v, want 108 with Tuesday 28", total, days, pros)
		}
		// A booking across two grid slots (Wednesday 10:30-11:30) leaves 09:00-10:30 and 11:30-13:00: one hour-slot each.
		h.do("POST", calendarPath+"/events", acmeKey, booking(map[string]any{"service_id": ortho, "professional_id": garcia,
			"start_at": "2026-12-02T10:30:00", "end_at": "2026-12-02T11:30:00"})).must(t, 200)
		// A booking of Dr. López on Sunday (he does not work) changes nothing.
		h.do("POST", calendarPath+"/events", acmeKey, booking(map[string]any{"start_at": "2026-12-06T10:00:00", "end_at": "2026-12-06T11:00:00"})).must(t, 200)
		res = h.do("GET", week, acmeKey, nil).must(t, 200)
		if total, days, _ := capacities(t, res, ortho); total != 36 || !same(days, []int{7, 6, 5, 7, 7, 4, 0}) {
			t.Errorf("ortho after two bookings = %d %v", total, days)
		}

		// Time off: Dra. García is off Wednesday 2026-12-09 09:00-13:00.
		res = h.do("GET", calendarPath+"/availability?start_date=2026-12-07&days=7&service_id="+fmt.Sprint(ortho), acmeKey, nil).must(t, 200)
		if total, days, _ := capacities(t, res, ortho); total != 35 || !same(days, []int{7, 7, 3, 7, 7, 4, 0}) || len(res.list("data", "services")) != 1 {
			t.Errorf("ortho with time off = %d %v", total, days)
		}

		// Defaults: today in the account's zone (Monday 10:00 in Madrid), 14
		// days, never before now.
		res = h.do("GET", calendarPath+"/availability?service_id="+fmt.Sprint(ortho), acmeKey, nil).must(t, 200)
		if res.str("data", "start_date") != "2026-11-23" || res.str("data", "end_date") != "2026-12-06" || res.num("data", "days") != 14 {
			t.Errorf("defaults: %s", res.Raw)
		}
		if _, days, _ := capacities(t, res, ortho); len(days) != 14 || days[0] != 6 {
			t.Errorf("today = %v, want 6 slots left (10:00-13:00, 15:00-18:00)", days)
		}
		h.clock.Advance(75 * time.Minute) // 11:15 in Madrid
		res = h.do("GET", calendarPath+"/availability?days=1&service_id="+fmt.Sprint(ortho), acmeKey, nil).must(t, 200)
		if total, _, _ := capacities(t, res, ortho); total != 4 {
			t.Errorf("at 11:15 = %d, want 4 (11:15-13:00 holds one)", total)
		}
		// A window in the past has nothing.
		res = h.do("GET", calendarPath+"/availability?start_date=2026-11-16&days=7", acmeKey, nil).must(t, 200)
		if total, days, _ := capacities(t, res, cleaning); total != 0 || len(days) != 7 {
			t.Errorf("past window = %d %v", total, days)
		}
		// Another zone shifts the window's days, not the working hours.
		res = h.do("GET", calendarPath+"/availability?start_date=2026-12-07&days=7&timezone=America/New_York&service_id="+fmt.Sprint(ortho), acmeKey, nil).must(t, 200)
		if total, days, _ := capacities(t, res, ortho); res.str("data", "timezone") != "America/New_York" || total != 35 || !same(days, []int{7, 7, 3, 7, 7, 4, 0}) {
			t.Errorf("New York window = %d %v", total, days)
		}
		// service_id repeats; duplicates count once.
		res = h.do("GET", fmt.Sprintf("%s&service_id=%d&service_id=%d&service_id=%d", week, ortho, cleaning, ortho), acmeKey, nil).must(t, 200)
		if len(res.list("data", "services")) != 2 || res.num("data", "services", 0, "service_id") != float64(cleaning) {
			t.Errorf("filtered: %s", res.Raw)
		}

		// Refusals.
		for _, tc := range []struct {
			query  string
			status int
			code   string
			loc    string
		}{
			{"days=0", 422, "", "query.days greater_than_equal"},
			{"days=91", 422, "", "query.days less_than_equal"},
			{"days=two", 422, "", "query.days int_parsing"},
			{"start_date=2026-13-01", 422, "", "query.start_date date_from_datetime_parsing"},
			{"service_id=abc", 422, "", "query.service_id int_parsing"},
			{"timezone=Europe/Atlantis", 400, "INVALID_TIMEZONE", ""},
			{"service_id=999999", 400, "SERVICE_NOT_FOUND", ""},
			{fmt.Sprintf("service_id=%d", a.Services["whitening"]), 400, "SERVICE_NOT_FOUND", ""},
			{fmt.Sprintf("service_id=%d", h.other().Services["cleaning"]), 400, "SERVICE_NOT_FOUND", ""},
		} {
			res := h.do("GET", calendarPath+"/availability?"+tc.query, acmeKey, nil).must(t, tc.status)
			if tc.code != "" && res.errorCode() != tc.code {
				t.Errorf("%s: %s", tc.query, res.Raw)
			}
			if tc.loc != "" && !same(problems(t, res), []string{tc.loc}) {
				t.Errorf("%s: problems %v, want %s", tc.query, problems(t, res), tc.loc)
			}
			if tc.code == "SERVICE_NOT_FOUND" && (res.str("details", "field") != "service_id" || len(res.list("details", "valid_service_ids")) != 4 ||
				res.str("details", "valid_service_names", 0) != "Limpieza dental") {
				t.Errorf("%s details: %s", tc.query, res.Raw)
			}
		}

		// The other tenant counts only its own professional (Dr. Jones, Monday 09:00-17:00 London).
		res = h.do("GET", calendarPath+"/availability?start_date=2026-11-30&days=7", otherKey, nil).must(t, 200)
		if total, days, _ := capacities(t, res, h.other().Services["cleaning"]); res.str("data", "timezone") != "Europe/London" ||
			len(res.list("data", "services")) != 1 || total != 16 || days[0] != 16 {
			t.Errorf("other tenant: %s", res.Raw)
		}
	})
}
