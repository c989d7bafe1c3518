package httpapi_test

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/frontdesk/frontdesk/internal/db"
	"github.com/frontdesk/frontdesk/internal/db/dbtest"
)

// TestBookSeriesAPI: a booking with a recurrence books every occurrence at
// the same Madrid wall clock (docs/series.md); data is the first occurrence
// and data.series lists them all, each with its own warnings.
func TestBookSeriesAPI(t *testing.T) {
	dbtest.Engines(t, func(t *testing.T, store *db.DB) {
		h := newHarness(t, store, "testdata/calendar.yaml")
		// Someone else is with Dr. López on the second Tuesday.
		h.do("POST", calendarPath+"/events", acmeKey, booking(map[string]any{"client": client("Otro", "", "+34611000009"),
			"start_at": "2026-12-08T10:00:00", "end_at": "2026-12-08T10:30:00"})).must(t, 200)

		cases := []struct {
			name   string
			over   map[string]any
			starts []string
			warned string // the occurrence with an overlap warning
		}{
			{"count 3", map[string]any{"recurrence": map[string]any{"frequency": "weekly", "interval": 1, "count": 3}},
				[]string{"2026-12-01T09:00:00Z", "2026-12-08T09:00:00Z", "2026-12-15T09:00:00Z"}, "2026-12-08T09:00:00Z"},
			{"until across the March change, every 2 weeks", map[string]any{"start_at": "2027-03-16T10:00:00", "end_at": "2027-03-16T10:30:00",
				"recurrence": map[string]any{"frequency": "weekly", "interval": 2, "until": "2027-04-13"}},
				[]string{"2027-03-16T09:00:00Z", "2027-03-30T08:00:00Z", "2027-04-13T08:00:00Z"}, ""},
		}
		for _, c := range cases {
			t.Run(c.name, func(t *testing.T) {
				res := h.do("POST", calendarPath+"/events", acmeKey, booking(c.over)).must(t, 200)
				occ := res.list("data", "series", "occurrences")
				if len(occ) != len(c.starts) {
					t.Fatalf("%d occurrences, want %d: %s", len(occ), len(c.starts), res.Raw)
				}
				if res.num("data", "id") != res.num("data", "series", "occurrences", 0, "id") || res.num("data", "series", "id") < 1 {
					t.Errorf("data is not the first occurrence of a series: %s", res.Raw)
				}
				for i, want := range c.starts {
					if got := res.str("data", "series", "occurrences", i, "start_at"); got != want {
						t.Errorf("occurrence %d starts %s, want %s", i, got, want)
					}
					ws, _ := json.Marshal(res.get("data", "series", "occurrences", i, "warnings"))
					if overlap := strings.Contains(string(ws), "overlaps_existing_appointment"); overlap != (want == c.warned) {
						t.Errorf("occurrence %d at %s: warnings %s", i, want, ws)
					}
				}
			})
		}
		t.Run("without recurrence, no series", func(t *testing.T) {
			res := h.do("POST", calendarPath+"/events", acmeKey, booking(map[string]any{"client": client("Sola", "", "+34611000010"),
				"start_at": "2026-12-02T10:00:00", "end_at": "2026-12-02T10:30:00"})).must(t, 200)
			if res.get("data", "series") != nil {
				t.Errorf("a single booking has a series: %s", res.Raw)
			}
		})
	})
}

// TestBookSeries422: a bad recurrence is a 422 at body.recurrence with the
// contract's types, and nothing is booked.
func TestBookSeries422(t *testing.T) {
	weekly := func(kv ...any) map[string]any {
		m := map[string]any{"frequency": "weekly", "interval": 1}
		for i := 0; i < len(kv); i += 2 {
			m[kv[i].(string)] = kv[i+1]
		}
		return map[string]any{"recurrence": m}
	}
	cases := []struct {
		name string
		over map[string]any
		loc  string // JSON, after body
		typ  string
	}{
		{"frequency", weekly("frequency", "daily", "count", 3), `["recurrence","frequency"]`, "literal_error"},
		{"interval 0", weekly("interval", 0, "count", 3), `["recurrence","interval"]`, "greater_than_equal"},
		{"interval 5", weekly("interval", 5, "count", 3), `["recurrence","interval"]`, "less_than_equal"},
		{"count 1", weekly("count", 1), `["recurrence","count"]`, "greater_than_equal"},
		{"count 53", weekly("count", 53), `["recurrence","count"]`, "less_than_equal"},
		{"neither", weekly(), `["recurrence","count"]`, "missing"},
		{"both", weekly("count", 3, "until", "2026-12-31"), `["recurrence","until"]`, "value_error"},
		{"until too far", weekly("until", "2027-12-03"), `["recurrence","until"]`, "less_than_equal"},
		{"until before the start", weekly("until", "2026-11-30"), `["recurrence","until"]`, "greater_than_equal"},
		{"interval missing", map[string]any{"recurrence": map[string]any{"frequency": "weekly", "count": 3}}, `["recurrence","interval"]`, "missing"},
		{"not an object", map[string]any{"recurrence": "weekly"}, `["recurrence"]`, "model_type"},
	}
	dbtest.Engines(t, func(t *testing.T, store *db.DB) {
		h := newHarness(t, store, "testdata/calendar.yaml")
		for _, c := range cases {
			t.Run(c.name, func(t *testing.T) {
				res := h.do("POST", calendarPath+"/events", acmeKey, booking(c.over))
				got := apiAnswer(res)
				if !strings.HasPrefix(got, `422 [{"loc":`+c.loc+`,`) || !strings.HasSuffix(got, `"type":"`+c.typ+`"}]`) {
					t.Errorf("answer %s, want one 422 item %s %s", got, c.loc, c.typ)
				}
			})
		}
		var n int
		store.QueryRow(t.Context(), `SELECT COUNT(*) FROM appointments`).Scan(&n)
		if n != 0 {
			t.Errorf("%d appointments booked by refused requests", n)
		}
	})
}
