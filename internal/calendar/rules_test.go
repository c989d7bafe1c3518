package calendar_test

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/frontdesk/frontdesk/internal/account"
	"github.com/frontdesk/frontdesk/internal/calendar"
	"github.com/frontdesk/frontdesk/internal/db"
	"github.com/frontdesk/frontdesk/internal/db/dbtest"
	"github.com/frontdesk/frontdesk/internal/workspace"
)

// setRules applies booking rules to a clinic's account and services
// (service key → rules) with a workspace file, as an owner would.
func setRules(tb testing.TB, store *db.DB, slug string, acctRules map[string]any, services map[string]map[string]any) {
	tb.Helper()
	doc := map[string]any{"account": map[string]any{"slug": slug, "booking_rules": acctRules}}
	var specs []any
	for key, rules := range services {
		specs = append(specs, map[string]any{"key": key, "booking_rules": rules})
	}
	doc["services"] = specs
	data, _ := json.Marshal(doc)
	if _, err := (&workspace.Applier{DB: store, Now: time.Now}).Apply(context.Background(), data); err != nil {
		tb.Fatal(err)
	}
}

// TestSlotsHonourBookingRules lists one Monday's 60-minute slots of a
// professional working 09:00-13:00 and 15:00-19:00, with a 30-minute
// appointment (of the 30-minute service) at 10:00 and now at 08:00, under
// each rule; capacity and the seat offers' FreeSlots must count the same
// starts.
func TestSlotsHonourBookingRules(t *testing.T) {
	dbtest.Engines(t, func(t *testing.T, store *db.DB) {
		for i, test := range []struct {
			name     string
			acct     map[string]any
			services map[string]map[string]any
			want     string
		}{
			{name: "defaults", want: "09:00 10:30 11:30 15:00 16:00 17:00 18:00"},
			{name: "the booked service's buffer after", services: map[string]map[string]any{"s30": {"buffer_after": 15}},
				want: "09:00 10:45 11:45 15:00 16:00 17:00 18:00"},
			{name: "the booked service's buffer before", services: map[string]map[string]any{"s30": {"buffer_before": 5}},
				want: "10:30 11:30 15:00 16:00 17:00 18:00"},
			{name: "the listed service's buffers", services: map[string]map[string]any{"s60": {"buffer_before": 10, "buffer_after": 5}},
				want: "10:40 11:55 15:10 16:25 17:40"},
			{name: "the account's buffers hold for every service", acct: map[string]any{"buffer_after": 30},
				want: "11:00 15:00 16:30"},
			{name: "minimum notice", acct: map[string]any{"min_notice": "3h"}, want: "11:30 15:00 16:00 17:00 18:00"},
			{name: "minimum notice on a start keeps it", acct: map[string]any{"min_notice": "3h30m"}, want: "11:30 15:00 16:00 17:00 18:00"},
			{name: "a horizon is exclusive", acct: map[string]any{"max_advance": "9h"}, want: "09:00 10:30 11:30 15:00 16:00"},
			{name: "a day of horizon", acct: map[string]any{"max_advance": "1d"}, want: "09:00 10:30 11:30 15:00 16:00 17:00 18:00"},
			{name: "a service lifts the account's notice", acct: map[string]any{"min_notice": "3h"},
				services: map[string]map[string]any{"s60": {"min_notice": "0m"}}, want: "09:00 10:30 11:30 15:00 16:00 17:00 18:00"},
			{name: "a service's null horizon is none", acct: map[string]any{"max_advance": "1h", "min_notice": "2h"},
				services: map[string]map[string]any{"s60": {"max_advance": nil}}, want: "10:30 11:30 15:00 16:00 17:00 18:00"},
		} {
			t.Run(test.name, func(t *testing.T) {
				slug := fmt.Sprintf("rules%d", i)
				acct, res := clinic(t, store, slug, 2)
				mon := func(h, m int) time.Time { return time.Date(2026, 11, 30, h, m, 0, 0, madrid) }
				insertAppointments(t, store, acct, res, []appt{{pro: "p1", start: mon(10, 0), minutes: 30}})
				setRules(t, store, slug, test.acct, test.services)
				now := mon(8, 0)
				svc, pro := res.IDs.Services["s60"], res.IDs.Professionals["p1"]
				ctx := context.Background()

				list, err := calendar.ListFreeSlots(ctx, store, acct, calendar.SlotsQuery{ServiceID: svc, ProfessionalIDs: []int64{pro},
					StartDate: "2026-11-30", Days: 1, Limit: 100}, now)
				if err != nil {
					t.Fatal(err)
				}
				var got []string
				for _, s := range list.Slots {
					got = append(got, s.StartAt[11:16])
				}
				if strings.Join(got, " ") != test.want {
					t.Errorf("slots = %s\nwant    %s", strings.Join(got, " "), test.want)
				}

				av, err := calendar.ComputeAvailability(ctx, store, acct, calendar.AvailabilityQuery{StartDate: "2026-11-30", Days: 1,
					ServiceIDs: []int64{svc}}, now)
				if err != nil {
					t.Fatal(err)
				}
				if c := av.Services[0].Capacity; c != len(got) {
					t.Errorf("capacity = %d, slots %d", c, len(got))
				}
				seats, err := calendar.FreeSlots(ctx, store, acct, []int64{svc}, mon(0, 0), mon(24, 0), now)
				if err != nil {
					t.Fatal(err)
				}
				var offered []string
				for _, s := range seats {
					offered = append(offered, s.Start.In(madrid).Format("15:04"))
				}
				if !slices.Equal(offered, got) {
					t.Errorf("seat offers' slots = %v, listed %v", offered, got)
				}
			})
		}
	})
}

// TestBookingRulesAtBooking books against the rules: without KeepRules the
// booking is made with a breaks_booking_rule warning per rule broken; with
// it, the booking is refused with *RulesBroken and nothing is written.
func TestBookingRulesAtBooking(t *testing.T) {
	dbtest.Engines(t, func(t *testing.T, store *db.DB) {
		acct, res := clinic(t, store, "keeprules", 1)
		setRules(t, store, "keeprules", map[string]any{"min_notice": "2h", "max_advance": "30d", "max_future_per_client": 2},
			map[string]map[string]any{"s30": {"buffer_after": 15}})
		mon := func(h, m int) time.Time { return time.Date(2026, 11, 30, h, m, 0, 0, madrid) }
		now := mon(8, 0)
		// Ana ("c") already holds one future appointment, 10:00-10:30
		// (plus a cancelled and a past one, which do not count).
		insertAppointments(t, store, acct, res, []appt{{pro: "p0", start: mon(10, 0), minutes: 30},
			{pro: "p0", start: mon(17, 0), minutes: 30, status: "cancelled"}, {pro: "p0", start: mon(7, 0), minutes: 30}})
		svc, pro, et := res.IDs.Services["s30"], res.IDs.Professionals["p0"], res.IDs.EventTypes["visit"]
		book := func(at time.Time, phone string, keep bool) (calendar.Booking, error) {
			start, _ := calendar.ParseWallTime(at.Format("2006-01-02T15:04:05"))
			end, _ := calendar.ParseWallTime(at.Add(30 * time.Minute).Format("2006-01-02T15:04:05"))
			return calendar.Book(context.Background(), store, acct, calendar.BookRequest{
				Client: calendar.ClientInput{Phone: phone, FirstName: "Eva"}, ServiceID: &svc, ProfessionalID: &pro, EventTypeID: &et,
				StartAt: start, EndAt: end, Timezone: "Europe/Madrid", KeepRules: keep}, now)
		}
		const ana, eva = "+34600000001", "+34611000002"
		for _, test := range []struct {
			name  string
			at    time.Time
			phone string
			want  []string // broken rules
		}{
			{name: "a slot that keeps every rule", at: mon(11, 0), phone: eva},
			{name: "too soon", at: mon(9, 0), phone: eva, want: []string{"min_notice"}},
			{name: "too far ahead", at: mon(11, 0).AddDate(0, 0, 30), phone: eva, want: []string{"max_advance"}},
			{name: "inside the buffer after an appointment", at: mon(10, 30), phone: eva, want: []string{"buffer"}},
			{name: "inside the buffer of a booking just made", at: mon(11, 40), phone: eva, want: []string{"buffer"}},
			{name: "the client's second future appointment is allowed", at: mon(15, 0), phone: ana},
			{name: "the third is not", at: mon(16, 0), phone: ana, want: []string{"max_future_per_client"}},
			{name: "its own buffer runs into the next one", at: mon(14, 30), phone: eva, want: []string{"buffer"}},
			{name: "several at once", at: mon(9, 30), phone: ana, want: []string{"min_notice", "buffer", "max_future_per_client"}},
		} {
			t.Run(test.name, func(t *testing.T) {
				var before int
				count := func() int {
					var n int
					if err := store.QueryRow(context.Background(), `SELECT COUNT(*) FROM appointments WHERE account_id = ?`, acct.ID).Scan(&n); err != nil {
						t.Fatal(err)
					}
					return n
				}
				before = count()
				_, err := book(test.at, test.phone, true)
				var broken *calendar.RulesBroken
				switch {
				case len(test.want) == 0 && err != nil:
					t.Fatalf("KeepRules: %v", err)
				case len(test.want) > 0 && !errors.As(err, &broken):
					t.Fatalf("KeepRules: err = %v, want *RulesBroken", err)
				case len(test.want) > 0:
					if !slices.Equal(broken.Rules, test.want) {
						t.Errorf("broken = %v, want %v", broken.Rules, test.want)
					}
					if n := count(); n != before {
						t.Errorf("a refused booking wrote %d appointments", n-before)
					}
					// Without KeepRules: booked, with the warnings.
					b, err := book(test.at, test.phone, false)
					if err != nil {
						t.Fatal(err)
					}
					var rules []string
					for _, w := range b.Appointment.Warnings {
						if w.Code == calendar.WarnBreaksBookingRule {
							rules = append(rules, w.Rule)
							if w.Message == "" || w.Text.Key == "" {
								t.Errorf("warning without a message: %+v", w)
							}
						}
					}
					if !slices.Equal(rules, test.want) {
						t.Errorf("warned rules = %v, want %v", rules, test.want)
					}
					// Undo it, so the next rows see the same calendar.
					if _, err := store.Exec(context.Background(), `UPDATE appointments SET status = 'cancelled' WHERE id = ?`, b.Appointment.ID); err != nil {
						t.Fatal(err)
					}
				}
			})
		}
	})
}

// TestEffectiveRules reads the account's rules overridden field by field
// by a service's, and a service's that sets none.
func TestEffectiveRules(t *testing.T) {
	dbtest.Engines(t, func(t *testing.T, store *db.DB) {
		acct, res := clinic(t, store, "effective", 2)
		ctx := context.Background()
		if r, err := calendar.EffectiveRules(ctx, store, acct, res.IDs.Services["s30"]); err != nil || !isDefault(r) {
			t.Fatalf("defaults = %+v, %v", r, err)
		}
		setRules(t, store, "effective", map[string]any{"min_notice": "2h", "max_advance": "60d", "cancel_cutoff": "24h",
			"buffer_before": 0, "buffer_after": 0, "max_future_per_client": 3, "allow_series": true},
			map[string]map[string]any{"s30": {"min_notice": "12h", "buffer_after": 10, "max_future_per_client": nil, "allow_series": false}})
		r, err := calendar.EffectiveRules(ctx, store, acct, res.IDs.Services["s30"])
		if err != nil {
			t.Fatal(err)
		}
		if got := describe(r); got != "notice 12h0m0s advance 1440h0m0s cutoff 24h0m0s buffers 0/10 max none series false" {
			t.Errorf("s30 = %s", got)
		}
		r, _ = calendar.EffectiveRules(ctx, store, acct, res.IDs.Services["s45"])
		if got := describe(r); got != "notice 2h0m0s advance 1440h0m0s cutoff 24h0m0s buffers 0/0 max 3 series true" {
			t.Errorf("s45 = %s", got)
		}
		other := account.Account{ID: acct.ID + 1000}
		if _, err := calendar.EffectiveRules(ctx, store, other, res.IDs.Services["s30"]); err == nil {
			t.Error("an unknown account has rules")
		}
	})
}

func isDefault(r calendar.Rules) bool {
	return r.MinNotice == 0 && r.MaxAdvance == nil && r.CancelCutoff == 0 && r.BufferBefore == 0 && r.BufferAfter == 0 && r.MaxFuturePerClient == nil && !r.AllowSeries
}

func describe(r calendar.Rules) string {
	adv, max := "none", "none"
	if r.MaxAdvance != nil {
		adv = r.MaxAdvance.String()
	}
	if r.MaxFuturePerClient != nil {
		max = fmt.Sprint(*r.MaxFuturePerClient)
	}
	return fmt.Sprintf("notice %s advance %s cutoff %s buffers %d/%d max %s series %t", r.MinNotice, adv, r.CancelCutoff, r.BufferBefore, r.BufferAfter, max, r.AllowSeries)
}

func TestParseRuleDuration(t *testing.T) {
	for _, test := range []struct {
		in   string
		want time.Duration
		ok   bool
	}{
		{"30m", 30 * time.Minute, true}, {"2h", 2 * time.Hour, true}, {"60d", 60 * 24 * time.Hour, true}, {"1h30m", 90 * time.Minute, true},
		{"0m", 0, true}, {"3650d", 3650 * 24 * time.Hour, true},
		{"3651d", 0, false}, {"90s", 0, false}, {"-1h", 0, false}, {"2 hours", 0, false}, {"", 0, false}, {"1.5d", 0, false},
	} {
		got, err := calendar.ParseRuleDuration(test.in)
		if (err == nil) != test.ok || (test.ok && got != test.want) {
			t.Errorf("ParseRuleDuration(%q) = %v, %v", test.in, got, err)
		}
	}
}

// BenchmarkAvailability90DaysWithRules is BenchmarkAvailability90Days with
// every rule the slot engine reads set: buffers on the account and on one
// service (so each appointment is widened by its own service's), notice
// and a horizon.
func BenchmarkAvailability90DaysWithRules(b *testing.B) {
	for _, e := range []db.Engine{db.SQLite, db.Postgres} {
		b.Run(string(e), func(b *testing.B) {
			store := dbtest.Open(b, e)
			acct, res := clinic(b, store, "bench", 10)
			now := time.Date(2026, 11, 23, 9, 0, 0, 0, time.UTC)
			insertAppointments(b, store, acct, res, randomAppointments(10, 5000, now, 90))
			insertAppointments(b, store, acct, res, randomAppointments(10, 20000, now.AddDate(-1, 0, 0), 300))
			setRules(b, store, "bench", map[string]any{"min_notice": "2h", "max_advance": "60d", "buffer_after": 5},
				map[string]map[string]any{"s30": {"buffer_before": 5, "buffer_after": 10}})
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
