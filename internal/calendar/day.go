package calendar

// A day (or week) of the front desk: each active professional's working
// time and time off over a window, for the dashboard's Today grid, and the
// rule "book only what is free" a booking from that grid asks for.

import (
	"context"
	"fmt"
	"hash/fnv"
	"time"

	"github.com/frontdesk/frontdesk/internal/account"
	"github.com/frontdesk/frontdesk/internal/db"
	"github.com/frontdesk/frontdesk/internal/errs"
)

// TimeRange is a span of instants [Start, End).
type TimeRange struct{ Start, End time.Time }

// ProfessionalSchedule is an active professional's time within a window:
// Work is the working hours less time off, Off the time off, both clipped to
// the window and ordered.
type ProfessionalSchedule struct {
	ID   int64
	Name string
	Work []TimeRange
	Off  []TimeRange
}

// Schedules lays every active professional's weekly hours and time off onto
// [from, to) in the account's zone, ordered by name. One query.
func Schedules(ctx context.Context, q db.Querier, acct account.Account, from, to time.Time) ([]ProfessionalSchedule, error) {
	rows, err := q.Query(ctx, `SELECT id, name, working_hours, time_off FROM professionals
		WHERE account_id = ? AND active = ? ORDER BY name, id`, acct.ID, true)
	if err != nil {
		return nil, fmt.Errorf("load schedules: %w", err)
	}
	defer rows.Close()
	loc := acct.Location()
	lo, hi := db.Micros(from), db.Micros(to)
	var out []ProfessionalSchedule
	for rows.Next() {
		var (
			p            ProfessionalSchedule
			hours, offed string
		)
		if err := rows.Scan(&p.ID, &p.Name, &hours, &offed); err != nil {
			return nil, err
		}
		w := parseWeekHours(hours)
		var off []interval
		for _, o := range parseTimeOff(offed) {
			if o.start < hi && o.end > lo {
				off = append(off, interval{max(o.start, lo), min(o.end, hi)})
			}
		}
		off = normalize(off)
		p.Work = ranges(subtract(normalize(workIntervals(&w, loc, from, to)), off))
		p.Off = ranges(off)
		out = append(out, p)
	}
	return out, rows.Err()
}

func ranges(iv []interval) []TimeRange {
	out := make([]TimeRange, len(iv))
	for i, x := range iv {
		out[i] = TimeRange{db.Time(x.start), db.Time(x.end)}
	}
	return out
}

// Refusals of a booking that asked for a free slot (BookRequest.FreeSlotOnly).
var (
	ErrSlotTaken = errs.New(errs.ValidationError, "The slot is no longer free: an appointment, a waiting-list seat offer or time off takes it, or it is outside working hours.")
	ErrSlotPast  = errs.New(errs.ValidationError, "The slot has already started.")
)

// LockProfessionalTime takes, on PostgreSQL, the lock per professional
// that bookings of a free slot take (until tx ends), so a caller that
// checks a slot is free and then takes it runs after any other such booking
// of that professional and sees it. SQLite's write transactions already
// run one at a time.
func LockProfessionalTime(ctx context.Context, tx *db.Tx, acct account.Account, professionalID int64) error {
	if tx.Dialect().Engine != db.Postgres {
		return nil
	}
	h := fnv.New64a()
	fmt.Fprintf(h, "calendar/free/%d/%d", acct.ID, professionalID)
	_, err := tx.Exec(ctx, `SELECT pg_advisory_xact_lock(?)`, int64(h.Sum64()))
	return err
}

// requireFree refuses a booking of pro for [start, end) unless the slot
// engine (freeTime, which the free-slot list reads) counts it free at now.
// On PostgreSQL it first takes a lock per professional, so two free-slot
// bookings of one professional run one after the other and the second sees
// the first; SQLite's write transactions already do.
func requireFree(ctx context.Context, tx *db.Tx, acct account.Account, pro *professional, start, end, now time.Time) error {
	if start.Before(now.Truncate(time.Minute)) {
		return ErrSlotPast
	}
	if err := LockProfessionalTime(ctx, tx, acct, pro.ID); err != nil {
		return err
	}
	free, err := freeTime(ctx, tx, acct, []*professional{pro}, start, end, now.Truncate(time.Minute), nil)
	if err != nil {
		return err
	}
	if !covers(free[pro.ID], db.Micros(start), db.Micros(end)) {
		return ErrSlotTaken
	}
	return nil
}
