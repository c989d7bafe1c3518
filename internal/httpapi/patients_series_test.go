package httpapi_test

import (
	"encoding/json"
	"fmt"
	"slices"
	"strings"
	"testing"

	"github.com/frontdesk/frontdesk/internal/db"
	"github.com/frontdesk/frontdesk/internal/db/dbtest"
)

// TestPatientBookSeries: a patient books a weekly course only where the
// service's rules allow_series; every session must be a free slot that
// keeps the rules (max_future_per_client counts each), else nothing is
// written and the refusal names the dates; one code books the course and
// one confirmation request lists every date (docs/series.md).
func TestPatientBookSeries(t *testing.T) {
	dbtest.Engines(t, func(t *testing.T, store *db.DB) {
		h := newHarness(t, store, patientFixtures...)
		const addr = "192.0.2.40:4000"
		cleaning := h.acme().Services["cleaning"]
		path := bookPath + "/acme/appointments"
		// Someone else holds Dr. López on the fourth and fifth Tuesdays at 10:00.
		for _, day := range []string{"2026-12-15", "2026-12-22"} {
			h.do("POST", calendarPath+"/events", acmeKey, booking(map[string]any{"client": client("Otro", "", "+34611000009"),
				"start_at": day + "T10:00:00", "end_at": day + "T10:30:00"})).must(t, 200)
		}
		weekly := func(count int) map[string]any {
			return map[string]any{"frequency": "weekly", "interval": 1, "count": count}
		}

		for _, test := range []struct {
			name    string
			rules   string // the service's booking_rules in the workspace file
			phone   string
			start   string
			rec     map[string]any
			code    string   // the refusal; "" books
			dates   []string // details.dates of the refusal, or the sessions booked (Madrid dates)
			allowed bool     // the page's allow_series for the service
		}{
			{"not allowed", "{}", "+34650100001", "2026-11-24T11:00:00", weekly(3), "VALIDATION_ERROR", nil, false},
			{"allowed and free", "{allow_series: true, max_future_per_client: 3}", "+34650100002", "2026-11-24T11:00:00", weekly(3), "",
				[]string{"2026-11-24", "2026-12-01", "2026-12-08"}, true},
			{"two sessions taken", "{allow_series: true, max_future_per_client: 5}", "+34650100003", "2026-11-24T10:00:00", weekly(5),
				"SLOT_NOT_AVAILABLE", []string{"2026-12-15", "2026-12-22"}, true},
			{"the limit counts sessions", "{allow_series: true, max_future_per_client: 3}", "+34650100004", "2026-11-24T12:00:00", weekly(4),
				"BOOKING_LIMIT_REACHED", []string{"2026-12-15"}, true},
			{"the account's limit under the service's allow", "{allow_series: true}", "+34650100005", "2026-11-24T12:00:00", weekly(2),
				"BOOKING_LIMIT_REACHED", []string{"2026-12-01"}, true},
		} {
			t.Run(test.name, func(t *testing.T) {
				h.applyData([]byte("account: {slug: acme}\nservices: [{key: cleaning, booking_rules: " + test.rules + "}]\n"))
				page := h.patient("GET", bookPath+"/acme", addr, nil).must(t, 200)
				if got, _ := page.get("data", "services", 0, "allow_series").(bool); got != test.allowed {
					t.Errorf("page allow_series = %v, want %v", got, test.allowed)
				}
				h.patient("POST", bookPath+"/acme/verification", addr, map[string]any{"phone": test.phone}).must(t, 202)
				before := [3]int{h.count("appointments", ""), h.count("series", ""), h.count("outbox", "kind = 'booking_confirmation'")}
				res := h.patient("POST", path, addr, map[string]any{"service_id": cleaning, "start_at": test.start, "code": h.lastCode(test.phone),
					"client": map[string]any{"phone": test.phone, "first_name": "Curso"}, "recurrence": test.rec})
				if test.code != "" {
					res.must(t, 400)
					if res.errorCode() != test.code {
						t.Fatalf("%s, want %s", res.Raw, test.code)
					}
					var dates []string
					for _, d := range res.list("details", "dates") {
						dates = append(dates, d.(string))
					}
					if !slices.Equal(dates, test.dates) {
						t.Errorf("dates %v, want %v: %s", dates, test.dates, res.Raw)
					}
					if test.code == "VALIDATION_ERROR" && (res.str("details", "field") != "recurrence" || res.str("details", "rule") != "allow_series") {
						t.Errorf("not allowed: %s", res.Raw)
					}
					after := [3]int{h.count("appointments", ""), h.count("series", ""), h.count("outbox", "kind = 'booking_confirmation'")}
					if after != before {
						t.Errorf("a refused course wrote: appointments, series, confirmations %v -> %v", before, after)
					}
					return
				}
				res.must(t, 201)
				occ := res.list("data", "series", "occurrences")
				if len(occ) != len(test.dates) || res.num("data", "appointment", "id") != res.num("data", "series", "occurrences", 0, "id") ||
					res.str("data", "appointment", "source") != "booking_page" || res.get("data", "manage_url") == nil {
					t.Fatalf("course: %s", res.Raw)
				}
				sid := int64(res.num("data", "series", "id"))
				if n := h.count("appointments", "series_id = ? AND source = 'booking_page' AND status = 'booked'", sid); n != len(test.dates) {
					t.Errorf("%d sessions stored, want %d", n, len(test.dates))
				}
				var bodies []string
				rows, err := store.Query(t.Context(), `SELECT body FROM outbox WHERE kind = 'booking_confirmation' AND recipient = ?`, test.phone)
				if err != nil {
					t.Fatal(err)
				}
				for rows.Next() {
					var b string
					rows.Scan(&b)
					bodies = append(bodies, b)
				}
				rows.Close()
				if len(bodies) != 1 {
					t.Fatalf("%d confirmation requests, want 1: %q", len(bodies), bodies)
				}
				for i, d := range test.dates {
					var day, month int
					fmt.Sscanf(d[5:], "%d-%d", &month, &day)
					if want := fmt.Sprintf("%d de %s", day, map[int]string{11: "noviembre", 12: "diciembre"}[month]); !strings.Contains(bodies[0], want) {
						t.Errorf("the confirmation request lacks %q: %s", want, bodies[0])
					}
					if got := res.str("data", "series", "occurrences", i, "start_at"); got != d+"T10:00:00Z" {
						t.Errorf("session %d starts %s, want %sT10:00:00Z", i, got, d)
					}
				}
			})
		}

		t.Run("a bad recurrence is the API's 422", func(t *testing.T) {
			res := h.patient("POST", path, addr, map[string]any{"service_id": cleaning, "start_at": "2026-11-24T11:00:00",
				"client": map[string]any{"phone": "+34650100009"}, "recurrence": map[string]any{"frequency": "daily", "interval": 1, "count": 99}})
			got, _ := json.Marshal(patientProblems(t, res))
			for _, want := range []string{`[\"body\",\"recurrence\",\"frequency\"] literal_error`, `[\"body\",\"recurrence\",\"count\"] less_than_equal`} {
				if !strings.Contains(string(got), want) {
					t.Errorf("422 %s lacks %s", got, want)
				}
			}
		})
	})
}
