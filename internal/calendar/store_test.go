package calendar_test

import (
	"context"
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"testing"
	"time"

	"github.com/frontdesk/frontdesk/internal/account"
	"github.com/frontdesk/frontdesk/internal/calendar"
	"github.com/frontdesk/frontdesk/internal/db"
	"github.com/frontdesk/frontdesk/internal/db/dbtest"
	"github.com/frontdesk/frontdesk/internal/workspace"
)

// clinic provisions an account in Madrid with n professionals, each working
// Monday to Friday 09:00-13:00 and 15:00-19:00 and Saturday 10:00-14:00, and
// three services: a 30-minute one offered by all of them, a 45-minute one by
// the first half and a 60-minute one by the second half.
func clinic(tb testing.TB, store *db.DB, slug string, n int) (account.Account, *workspace.Result) {
	tb.Helper()
	week := []string{"09:00-13:00", "15:00-19:00"}
	hours := map[string][]string{"mon": week, "tue": week, "wed": week, "thu": week, "fri": week, "sat": {"10:00-14:00"}}
	var pros, all, first, second []string
	doc := map[string]any{
		"account":     map[string]any{"slug": slug, "name": "Bench Clinic", "timezone": "Europe/Madrid", "default_region": "ES"},
		"event_types": []any{map[string]any{"key": "visit", "name": "Visit", "color": "#2e7d32"}},
		"clients":     []any{map[string]any{"key": "c", "first_name": "Ana", "phone": "+34600000001"}},
	}
	var proSpecs []any
	for i := range n {
		k := fmt.Sprintf("p%d", i)
		pros = append(pros, k)
		proSpecs = append(proSpecs, map[string]any{"key": k, "name": fmt.Sprintf("Professional %d", i), "working_hours": hours})
		all = append(all, k)
		if i < n/2 {
			first = append(first, k)
		} else {
			second = append(second, k)
		}
	}
	doc["professionals"] = proSpecs
	doc["services"] = []any{
		map[string]any{"key": "s30", "name": "Short", "default_duration_minutes": 30, "professionals": all, "event_types": []string{"visit"}},
		map[string]any{"key": "s45", "name": "Medium", "default_duration_minutes": 45, "professionals": first, "event_types": []string{"visit"}},
		map[string]any{"key": "s60", "name": "Long", "default_duration_minutes": 60, "professionals": second, "event_types": []string{"visit"}},
	}
	data, _ := json.Marshal(doc)
	res, err := (&workspace.Applier{DB: store, Now: time.Now}).Apply(context.Background(), data)
	if err != nil {
		tb.Fatal(err)
	}
	acct, err := account.BySlug(context.Background(), store, slug)
	if err != nil {
		tb.Fatal(err)
	}
	return acct, res
}

// book inserts booked appointments [start, start+minutes) for professional
// key, with one multi-row statement.
type appt struct {
	pro     string
	start   time.Time
	minutes int
	status  string
}

func insertAppointments(tb testing.TB, store *db.DB, acct account.Account, res *workspace.Result, appts []appt) {
	tb.Helper()
	rows := make([][]any, len(appts))
	for i, a := range appts {
		status := a.status
		if status == "" {
			status = "booked"
		}
		rows[i] = []any{acct.ID, res.IDs.Clients["c"], res.IDs.Services["s30"], res.IDs.Professionals[a.pro], res.IDs.EventTypes["visit"],
			db.Micros(a.start), db.Micros(a.start.Add(time.Duration(a.minutes) * time.Minute)), status, int64(0), int64(0)}
	}
	err := db.InsertMany(context.Background(), store, `INSERT INTO appointments (account_id, client_id, service_id, professional_id,
		event_type_id, start_at, end_at, status, created_at, updated_at)`, rows, "")
	if err != nil {
		tb.Fatal(err)
	}
}

var madrid, _ = time.LoadLocation("Europe/Madrid")

func TestFreeSlots(t *testing.T) {
	dbtest.Engines(t, func(t *testing.T, store *db.DB) {
		acct, res := clinic(t, store, "slots", 2)
		mon := func(h, m int) time.Time { return time.Date(2026, 11, 30, h, m, 0, 0, madrid) }
		insertAppointments(t, store, acct, res, []appt{
			{pro: "p0", start: mon(9, 30), minutes: 30},
			{pro: "p0", start: mon(10, 0), minutes: 180, status: "cancelled"}, // does not block
			{pro: "p1", start: mon(8, 0), minutes: 150},                       // until 10:30
		})
		now := mon(8, 0)
		slots, err := calendar.FreeSlots(context.Background(), store, acct, []int64{res.IDs.Services["s45"], res.IDs.Services["s60"]}, mon(9, 0), mon(12, 0), now)
		if err != nil {
			t.Fatal(err)
		}
		var got []string
		for _, s := range slots {
			got = append(got, fmt.Sprintf("%d/%d %s-%s", s.ServiceID, s.ProfessionalID, s.Start.In(madrid).Format("15:04"), s.End.In(madrid).Format("15:04")))
		}
		s45, s60 := res.IDs.Services["s45"], res.IDs.Services["s60"]
		p0, p1 := res.IDs.Professionals["p0"], res.IDs.Professionals["p1"]
		want := []string{
			fmt.Sprintf("%d/%d 10:00-10:45", s45, p0), // 09:00-09:30 is too short for 45 minutes
			fmt.Sprintf("%d/%d 10:30-11:30", s60, p1),
			fmt.Sprintf("%d/%d 10:45-11:30", s45, p0), // 11:30-12:15 would end after the window
		}
		if fmt.Sprint(got) != fmt.Sprint(want) {
			t.Errorf("slots = %v\nwant %v", got, want)
		}
		// Never before now.
		slots, _ = calendar.FreeSlots(context.Background(), store, acct, []int64{s45}, mon(9, 0), mon(12, 0), mon(11, 0))
		if len(slots) != 1 || !slots[0].Start.Equal(mon(11, 0)) {
			t.Errorf("after 11:00: %v", slots)
		}
	})
}

// TestAvailabilityMatchesFreeSlots checks the two readings of free time agree
// on a busy calendar (working hours never cross midnight, so the day split
// of availability changes nothing).
func TestAvailabilityMatchesFreeSlots(t *testing.T) {
	dbtest.Engines(t, func(t *testing.T, store *db.DB) {
		acct, res := clinic(t, store, "agree", 4)
		now := time.Date(2026, 11, 23, 9, 0, 0, 0, time.UTC)
		insertAppointments(t, store, acct, res, randomAppointments(4, 500, now, 21))
		av, err := calendar.ComputeAvailability(context.Background(), store, acct, calendar.AvailabilityQuery{Days: 21}, now)
		if err != nil {
			t.Fatal(err)
		}
		from := time.Date(2026, 11, 23, 0, 0, 0, 0, madrid)
		slots, err := calendar.FreeSlots(context.Background(), store, acct, nil, from, from.AddDate(0, 0, 21), now)
		if err != nil {
			t.Fatal(err)
		}
		perService := map[int64]int{}
		for _, s := range slots {
			perService[s.ServiceID]++
		}
		if len(av.Services) != 3 {
			t.Fatalf("services = %d", len(av.Services))
		}
		for _, s := range av.Services {
			if s.Capacity != perService[s.ServiceID] || s.Capacity == 0 {
				t.Errorf("service %d: capacity %d, free slots %d", s.ServiceID, s.Capacity, perService[s.ServiceID])
			}
		}
	})
}

// randomAppointments spreads n appointments of 30 or 60 minutes over the
// working hours of pros professionals in the days from now, deterministically.
func randomAppointments(pros, n int, now time.Time, days int) []appt {
	r := rand.New(rand.NewPCG(1, 2))
	start := now.In(madrid)
	out := make([]appt, n)
	for i := range out {
		d := start.AddDate(0, 0, r.IntN(days))
		slot := r.IntN(18) // half hours from 09:00 to 17:30
		out[i] = appt{pro: fmt.Sprintf("p%d", r.IntN(pros)),
			start:   time.Date(d.Year(), d.Month(), d.Day(), 9, 30*slot, 0, 0, madrid),
			minutes: 30 * (1 + r.IntN(2))}
	}
	return out
}

// BenchmarkAvailability90Days reads 90 days of availability for every
// service of a clinic with 10 professionals and 5,000 booked appointments in
// the window (plus 20,000 in the past, which the query must not wade through).
func BenchmarkAvailability90Days(b *testing.B) {
	for _, e := range []db.Engine{db.SQLite, db.Postgres} {
		b.Run(string(e), func(b *testing.B) {
			store := dbtest.Open(b, e)
			acct, res := clinic(b, store, "bench", 10)
			now := time.Date(2026, 11, 23, 9, 0, 0, 0, time.UTC)
			insertAppointments(b, store, acct, res, randomAppointments(10, 5000, now, 90))
			insertAppointments(b, store, acct, res, randomAppointments(10, 20000, now.AddDate(-1, 0, 0), 300))
			// Fresh tables have no statistics yet; a live store's are kept
			// current by autovacuum (PostgreSQL) or ANALYZE (SQLite).
			if _, err := store.Exec(context.Background(), "ANALYZE appointments"); err != nil {
				b.Fatal(err)
			}
			ctx := context.Background()
			var av calendar.Availability
			for b.Loop() {
				var err error
				av, err = calendar.ComputeAvailability(ctx, store, acct, calendar.AvailabilityQuery{Days: 90}, now)
				if err != nil {
					b.Fatal(err)
				}
			}
			b.ReportMetric(float64(av.Services[0].Capacity), "capacity_30min")
		})
	}
}
