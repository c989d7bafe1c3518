package waitlist_test

import (
	"context"
	"errors"
	"os"
	"testing"
	"time"

	"github.com/frontdesk/frontdesk/internal/db"
	"github.com/frontdesk/frontdesk/internal/db/dbtest"
	"github.com/frontdesk/frontdesk/internal/errs"
	"github.com/frontdesk/frontdesk/internal/waitlist"
	"github.com/frontdesk/frontdesk/internal/workspace"
)

// TestUpdateSchedule: a list's schedule is refused outside its bounds, kept
// within the account, and its next run follows the workspace file's rule
// (set on switching on, cleared on switching off, brought forward by a
// shorter interval).
func TestUpdateSchedule(t *testing.T) {
	dbtest.Engines(t, func(t *testing.T, store *db.DB) {
		ctx := context.Background()
		acct, ids := acme(t, store)
		main := ids.Waitlists["main"]
		data, err := os.ReadFile("../httpapi/testdata/other.yaml")
		if err != nil {
			t.Fatal(err)
		}
		other, err := (&workspace.Applier{DB: store, Now: func() time.Time { return now }}).Apply(ctx, data)
		if err != nil {
			t.Fatal(err)
		}
		code := func(err error) string {
			var e *errs.Error
			if errors.As(err, &e) {
				return e.Code
			}
			return ""
		}
		good := waitlist.Schedule{Active: true, HorizonDays: 30, RunEvery: 15 * time.Minute, SeatTTL: 2 * time.Hour, MaxOffers: 3}
		lists, err := waitlist.Schedules(ctx, store, acct)
		if err != nil || len(lists) != 1 || lists[0].Schedule != good || lists[0].NextRunAt == nil || len(lists[0].Services) != 1 {
			t.Fatalf("schedules as the file set them: %+v %v", lists, err)
		}
		next := *lists[0].NextRunAt
		if changes, err := waitlist.UpdateSchedule(ctx, store, acct, main, good, now); err != nil || len(changes) != 0 {
			t.Fatalf("the same schedule: %v %v", changes, err)
		}
		for _, bad := range []func(s *waitlist.Schedule){
			func(s *waitlist.Schedule) { s.HorizonDays = 0 },
			func(s *waitlist.Schedule) { s.HorizonDays = 366 },
			func(s *waitlist.Schedule) { s.RunEvery = time.Second },
			func(s *waitlist.Schedule) { s.RunEvery = 8 * 24 * time.Hour },
			func(s *waitlist.Schedule) { s.SeatTTL = 0 },
			func(s *waitlist.Schedule) { s.MaxOffers = 0 },
			func(s *waitlist.Schedule) { s.MaxOffers = 101 },
		} {
			s := good
			bad(&s)
			if _, err := waitlist.UpdateSchedule(ctx, store, acct, main, s, now); code(err) != errs.ValidationError {
				t.Errorf("%+v: %v, want a validation error", s, err)
			}
		}
		if _, err := waitlist.UpdateSchedule(ctx, store, acct, other.IDs.Waitlists["main"], good, now); code(err) != errs.NotFound {
			t.Errorf("another account's list: %v", err)
		}
		read := func() waitlist.ListSchedule {
			lists, err := waitlist.Schedules(ctx, store, acct)
			if err != nil {
				t.Fatal(err)
			}
			return lists[0]
		}
		// A longer interval keeps the sooner next run; a shorter one brings
		// it forward.
		later := now.Add(time.Minute)
		s := good
		s.RunEvery = time.Hour
		if _, err := waitlist.UpdateSchedule(ctx, store, acct, main, s, later); err != nil {
			t.Fatal(err)
		}
		if l := read(); !l.NextRunAt.Equal(next) || l.Schedule.RunEvery != time.Hour {
			t.Fatalf("longer interval: next %v, want %v", l.NextRunAt, next)
		}
		s.RunEvery = time.Minute
		waitlist.UpdateSchedule(ctx, store, acct, main, s, later)
		if l := read(); !l.NextRunAt.Equal(later.Add(time.Minute)) {
			t.Fatalf("shorter interval: next %v", l.NextRunAt)
		}
		s.Active = false
		waitlist.UpdateSchedule(ctx, store, acct, main, s, later)
		if l := read(); l.NextRunAt != nil || l.Schedule.Active {
			t.Fatalf("switched off: %+v", l)
		}
		s.Active = true
		waitlist.UpdateSchedule(ctx, store, acct, main, s, later)
		if l := read(); l.NextRunAt == nil || !l.NextRunAt.Equal(later.Add(time.Minute)) {
			t.Fatalf("switched on: %+v", l)
		}
	})
}
