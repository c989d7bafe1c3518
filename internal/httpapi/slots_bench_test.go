package httpapi_test

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"log/slog"
	"math/rand/v2"
	"net/http/httptest"
	"slices"
	"testing"
	"time"

	"github.com/frontdesk/frontdesk/internal/account"
	"github.com/frontdesk/frontdesk/internal/clock"
	"github.com/frontdesk/frontdesk/internal/db"
	"github.com/frontdesk/frontdesk/internal/db/dbtest"
	"github.com/frontdesk/frontdesk/internal/httpapi"
	"github.com/frontdesk/frontdesk/internal/workspace"
)

// BenchmarkSlotsVsAvailability reads 31 days of one service through the
// HTTP handler, as availability and as free slots (limit 500 and the default
// 100), in a Madrid clinic with 10 professionals (Mon-Fri
// 09:00-13:00 and 15:00-19:00, Sat 10:00-14:00) and 5,000 booked
// appointments in the window (the target: slots within 2x of availability).
func BenchmarkSlotsVsAvailability(b *testing.B) {
	now := time.Date(2026, 11, 23, 9, 0, 0, 0, time.UTC)
	for _, e := range []db.Engine{db.SQLite, db.Postgres} {
		b.Run(string(e), func(b *testing.B) {
			store := dbtest.Open(b, e)
			svc := slotsClinic(b, store, now)
			srv := httpapi.NewServer(httpapi.Config{DB: store, Clock: clock.NewFake(now),
				Log: slog.New(slog.NewTextHandler(io.Discard, nil)), RateLimit: httpapi.RateLimit{Off: true}})
			window := fmt.Sprintf("service_id=%d&start_date=2026-11-23&days=31", svc)
			paths := []string{
				"/api/v2/public/calendar/availability?" + window,
				"/api/v2/public/calendar/availability/slots?limit=500&" + window,
				"/api/v2/public/calendar/availability/slots?" + window, // limit 100
			}
			// The three reads are interleaved (in a rotating order) so that
			// the load of a shared machine falls on all of them alike; each
			// reports its median, and the slots' ratios to availability.
			took := make([][]float64, len(paths))
			i := 0
			for b.Loop() {
				for k := range paths {
					j := (i + k) % len(paths)
					req := httptest.NewRequest("GET", paths[j], nil)
					req.Header.Set("Authorization", "Bearer pk_bench_slots")
					rec := httptest.NewRecorder()
					t0 := time.Now()
					srv.ServeHTTP(rec, req)
					took[j] = append(took[j], float64(time.Since(t0).Microseconds())/1000)
					if rec.Code != 200 {
						b.Fatalf("status %d: %s", rec.Code, rec.Body.String())
					}
				}
				i++
			}
			av, s500, s100 := median(took[0]), median(took[1]), median(took[2])
			b.ReportMetric(av, "availability_ms")
			b.ReportMetric(s500, "slots500_ms")
			b.ReportMetric(s100, "slots100_ms")
			b.ReportMetric(s500/av, "ratio500")
			b.ReportMetric(s100/av, "ratio100")
		})
	}
}

func median(xs []float64) float64 {
	xs = slices.Clone(xs)
	slices.Sort(xs)
	if len(xs) == 0 {
		return 0
	}
	return xs[len(xs)/2]
}

// slotsClinic provisions the benchmark clinic and its appointments and
// returns the 30-minute service's id.
func slotsClinic(b *testing.B, store *db.DB, now time.Time) int64 {
	b.Helper()
	week := []string{"09:00-13:00", "15:00-19:00"}
	hours := map[string][]string{"mon": week, "tue": week, "wed": week, "thu": week, "fri": week, "sat": {"10:00-14:00"}}
	var pros []any
	var keys []string
	for i := range 10 {
		k := fmt.Sprintf("p%d", i)
		keys = append(keys, k)
		pros = append(pros, map[string]any{"key": k, "name": fmt.Sprintf("Professional %d", i), "working_hours": hours})
	}
	data, _ := json.Marshal(map[string]any{
		"account":       map[string]any{"slug": "slotsbench", "name": "Bench Clinic", "timezone": "Europe/Madrid", "default_region": "ES"},
		"api_keys":      []any{map[string]any{"key": "main", "value": "pk_bench_slots"}},
		"event_types":   []any{map[string]any{"key": "visit", "name": "Visit", "color": "#2e7d32"}},
		"clients":       []any{map[string]any{"key": "c", "first_name": "Ana", "phone": "+34600000001"}},
		"professionals": pros,
		"services": []any{map[string]any{"key": "s30", "name": "Short", "default_duration_minutes": 30,
			"professionals": keys, "event_types": []string{"visit"}}},
	})
	ctx := context.Background()
	res, err := (&workspace.Applier{DB: store, Now: func() time.Time { return now }}).Apply(ctx, data)
	if err != nil {
		b.Fatal(err)
	}
	acct, err := account.BySlug(ctx, store, "slotsbench")
	if err != nil {
		b.Fatal(err)
	}
	madrid, _ := time.LoadLocation("Europe/Madrid")
	r := rand.New(rand.NewPCG(1, 2))
	rows := make([][]any, 5000)
	for i := range rows {
		d := now.In(madrid).AddDate(0, 0, r.IntN(31))
		start := time.Date(d.Year(), d.Month(), d.Day(), 9, 30*r.IntN(18), 0, 0, madrid)
		end := start.Add(time.Duration(30*(1+r.IntN(2))) * time.Minute)
		rows[i] = []any{acct.ID, res.IDs.Clients["c"], res.IDs.Services["s30"], res.IDs.Professionals[keys[r.IntN(10)]],
			res.IDs.EventTypes["visit"], db.Micros(start), db.Micros(end), "booked", int64(0), int64(0)}
	}
	if err := db.InsertMany(ctx, store, `INSERT INTO appointments (account_id, client_id, service_id, professional_id,
		event_type_id, start_at, end_at, status, created_at, updated_at)`, rows, ""); err != nil {
		b.Fatal(err)
	}
	if _, err := store.Exec(ctx, "ANALYZE appointments"); err != nil {
		b.Fatal(err)
	}
	return res.IDs.Services["s30"]
}
