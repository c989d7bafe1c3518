package calendar_test

import (
	"context"
	"errors"
	"slices"
	"testing"
	"time"

	"github.com/frontdesk/frontdesk/internal/calendar"
	"github.com/frontdesk/frontdesk/internal/db"
	"github.com/frontdesk/frontdesk/internal/db/dbtest"
	"github.com/frontdesk/frontdesk/internal/errs"
)

// TestBookSeriesKeepingRules: a door that books free slots only and keeps
// the rules (the patient API) gets a series only where the service's rules
// allow_series, and only when every occurrence is a free slot that keeps
// them; otherwise nothing is written and *SeriesRefused names every
// refused occurrence, max_future_per_client counting the earlier ones
// (docs/series.md). The public API's series ignores allow_series.
func TestBookSeriesKeepingRules(t *testing.T) {
	now := time.Date(2026, 10, 1, 8, 0, 0, 0, time.UTC)
	weekly := func(n int) calendar.Recurrence {
		return calendar.Recurrence{Frequency: "weekly", Interval: 1, Count: n}
	}
	dbtest.Engines(t, func(t *testing.T, store *db.DB) {
		ctx := context.Background()
		acct, res := clinic(t, store, "keep", 2)
		p0 := res.IDs.Professionals["p0"]
		// Professional 0 is busy on the second and fourth Wednesdays at 10:00 Madrid.
		insertAppointments(t, store, acct, res, []appt{{pro: "p0", start: time.Date(2026, 10, 21, 8, 0, 0, 0, time.UTC), minutes: 30},
			{pro: "p0", start: time.Date(2026, 11, 4, 9, 0, 0, 0, time.UTC), minutes: 30}})
		keep := func(req calendar.BookRequest) calendar.BookRequest {
			req.FreeSlotOnly, req.KeepRules = true, true
			return req
		}
		for _, test := range []struct {
			name    string
			rules   map[string]any // s30's
			req     calendar.BookRequest
			rec     calendar.Recurrence
			refused []time.Time // nil: booked
			rule    string      // the refusal's rule, or errs code for a not-allowed series
		}{
			{"not allowed", map[string]any{}, keep(seriesRequest(t, "2026-10-15T10:00:00", p0)), weekly(2), nil, errs.ValidationError},
			{"the API ignores allow_series", map[string]any{}, seriesRequest(t, "2026-10-16T10:00:00", p0), weekly(2), nil, ""},
			{"two occurrences taken", map[string]any{"allow_series": true}, keep(seriesRequest(t, "2026-10-14T10:00:00", p0)), weekly(4),
				[]time.Time{time.Date(2026, 10, 21, 8, 0, 0, 0, time.UTC), time.Date(2026, 11, 4, 9, 0, 0, 0, time.UTC)}, ""},
			{"the limit counts occurrences", map[string]any{"allow_series": true, "max_future_per_client": 2},
				keep(withPhone(seriesRequest(t, "2026-10-13T10:00:00", p0), "+34611000098")), weekly(3),
				[]time.Time{time.Date(2026, 10, 27, 9, 0, 0, 0, time.UTC)}, calendar.RuleMaxFuturePerClient},
			{"allowed and free", map[string]any{"allow_series": true}, keep(withPhone(seriesRequest(t, "2026-10-12T10:00:00", p0), "+34611000097")),
				weekly(3), nil, ""},
		} {
			t.Run(test.name, func(t *testing.T) {
				setRules(t, store, "keep", nil, map[string]map[string]any{"s30": test.rules})
				before := countRows(t, store, `SELECT COUNT(*) FROM appointments`) + countRows(t, store, `SELECT COUNT(*) FROM series`)
				b, err := calendar.BookSeries(ctx, store, acct, test.req, test.rec, now)
				after := countRows(t, store, `SELECT COUNT(*) FROM appointments`) + countRows(t, store, `SELECT COUNT(*) FROM series`)
				var refused *calendar.SeriesRefused
				switch {
				case test.rule == errs.ValidationError:
					if !errs.Is(err, errs.ValidationError) || errors.As(err, &refused) {
						t.Fatalf("err = %v, want a VALIDATION_ERROR", err)
					}
				case test.refused == nil:
					if err != nil || len(b.Series.Occurrences) != test.rec.Count {
						t.Fatalf("err = %v, %d occurrences", err, len(b.Series.Occurrences))
					}
					return
				default:
					if !errors.As(err, &refused) {
						t.Fatalf("err = %v, want *SeriesRefused", err)
					}
					var starts []time.Time
					for _, o := range refused.Occurrences {
						starts = append(starts, o.StartAt)
					}
					if !slices.EqualFunc(starts, test.refused, time.Time.Equal) {
						t.Errorf("refused %v, want %v", starts, test.refused)
					}
					var broken *calendar.RulesBroken
					if test.rule != "" && (!errors.As(err, &broken) || !slices.Contains(broken.Rules, test.rule)) {
						t.Errorf("err = %v, want rule %s", err, test.rule)
					}
					if test.rule == "" && !errors.Is(err, calendar.ErrSlotTaken) {
						t.Errorf("err = %v, want ErrSlotTaken", err)
					}
				}
				if after != before {
					t.Errorf("a refused series wrote %d rows", after-before)
				}
			})
		}
	})
}

func withPhone(req calendar.BookRequest, phone string) calendar.BookRequest {
	req.Client.Phone = phone
	return req
}

func countRows(t *testing.T, store *db.DB, q string) int {
	t.Helper()
	var n int
	if err := store.QueryRow(context.Background(), q).Scan(&n); err != nil {
		t.Fatal(err)
	}
	return n
}
