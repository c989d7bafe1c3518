package waitlist

// The waiting lists' offer schedules, edited by hand (the dashboard's
// settings): whether a list runs, how often (run_every), how far ahead it
// offers seats (horizon_days), how long an offered seat is held (seat_ttl)
// and after how many expired offers an entry is flagged (max_offers). The
// rules are the workspace file's waitlists section; internal/offers runs
// the schedule.

import (
	"context"
	"database/sql"
	"fmt"
	"time"

	"github.com/frontdesk/frontdesk/internal/account"
	"github.com/frontdesk/frontdesk/internal/clock"
	"github.com/frontdesk/frontdesk/internal/db"
	"github.com/frontdesk/frontdesk/internal/errs"
)

// Schedule is a waiting list's offer settings.
type Schedule struct {
	Active      bool
	HorizonDays int
	RunEvery    time.Duration
	SeatTTL     time.Duration
	MaxOffers   int
}

// Bounds of a schedule, for the dashboard and the workspace file alike: a
// list runs, and holds an offered seat, from a minute (less floods the
// clients, or expires an offer before it can be read) to a week (far
// beyond any clinic's use).
var (
	RunEvery = clock.Range{Min: time.Minute, Max: 7 * 24 * time.Hour}
	SeatTTL  = clock.Range{Min: time.Minute, Max: 7 * 24 * time.Hour}
)

// MaxMaxOffers is the most expired offers before an entry is flagged.
const MaxMaxOffers = 100

// Refusals of a schedule's durations, in words the dashboard translates.
const (
	MsgRunEvery = "A list runs every 1 minute to 7 days."
	MsgSeatTTL  = "A seat is held 1 minute to 7 days."
)

// ListSchedule is a list with its schedule, as the settings show it.
type ListSchedule struct {
	ID        int64
	Name      string
	Schedule  Schedule
	LastRunAt *time.Time
	NextRunAt *time.Time
	Services  []string // names of the services it offers seats of
}

// RunEveryMinutes and SeatTTLMinutes are the durations as the form shows
// them.
func (l ListSchedule) RunEveryMinutes() int64 { return int64(l.Schedule.RunEvery / time.Minute) }
func (l ListSchedule) SeatTTLMinutes() int64  { return int64(l.Schedule.SeatTTL / time.Minute) }

func (s Schedule) check() error {
	switch {
	case s.HorizonDays < 1 || s.HorizonDays > 365:
		return errs.New(errs.ValidationError, "The horizon must be 1 to 365 days.")
	case !RunEvery.Contains(s.RunEvery):
		return errs.WithDetails(errs.ValidationError, map[string]any{"field": "run_every"}, MsgRunEvery)
	case !SeatTTL.Contains(s.SeatTTL):
		return errs.WithDetails(errs.ValidationError, map[string]any{"field": "seat_ttl"}, MsgSeatTTL)
	case s.MaxOffers < 1 || s.MaxOffers > MaxMaxOffers:
		return errs.New(errs.ValidationError, "Offers before review must be 1 to 100.")
	}
	return nil
}

// Schedules lists the account's waiting lists (not deleted) with their
// schedules, by name.
func Schedules(ctx context.Context, q db.Querier, acct account.Account) ([]ListSchedule, error) {
	rows, err := q.Query(ctx, `SELECT id, name, active, horizon_days, run_every_seconds, seat_ttl_seconds, max_offers, last_run_at, next_run_at
		FROM waitlists WHERE account_id = ? AND deleted_at IS NULL ORDER BY name, id`, acct.ID)
	if err != nil {
		return nil, err
	}
	var out []ListSchedule
	byID := map[int64]int{}
	for rows.Next() {
		l, err := scanSchedule(rows)
		if err != nil {
			rows.Close()
			return nil, err
		}
		byID[l.ID] = len(out)
		out = append(out, l)
	}
	rows.Close()
	if err := rows.Err(); err != nil {
		return nil, err
	}
	rows, err = q.Query(ctx, `SELECT ws.waitlist_id, s.name FROM waitlist_services ws JOIN services s ON s.account_id = ws.account_id AND s.id = ws.service_id
		WHERE ws.account_id = ? ORDER BY s.name`, acct.ID)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	for rows.Next() {
		var id int64
		var name string
		if err := rows.Scan(&id, &name); err != nil {
			return nil, err
		}
		if i, ok := byID[id]; ok {
			out[i].Services = append(out[i].Services, name)
		}
	}
	return out, rows.Err()
}

func scanSchedule(row interface{ Scan(...any) error }) (ListSchedule, error) {
	var l ListSchedule
	var every, ttl int64
	var last, next sql.NullInt64
	if err := row.Scan(&l.ID, &l.Name, &l.Schedule.Active, &l.Schedule.HorizonDays, &every, &ttl, &l.Schedule.MaxOffers, &last, &next); err != nil {
		return l, err
	}
	l.Schedule.RunEvery, l.Schedule.SeatTTL = time.Duration(every)*time.Second, time.Duration(ttl)*time.Second
	if last.Valid {
		t := db.Time(last.Int64)
		l.LastRunAt = &t
	}
	if next.Valid {
		t := db.Time(next.Int64)
		l.NextRunAt = &t
	}
	return l, nil
}

// UpdateSchedule sets a list's schedule and returns what changed. As with
// the workspace file, a list switched on gets its next run one interval
// from now and a list switched off loses it; a shorter interval brings a
// later next run forward.
func UpdateSchedule(ctx context.Context, q db.Querier, acct account.Account, id int64, s Schedule, now time.Time) ([]string, error) {
	if err := s.check(); err != nil {
		return nil, err
	}
	old, err := scanSchedule(q.QueryRow(ctx, `SELECT id, name, active, horizon_days, run_every_seconds, seat_ttl_seconds, max_offers, last_run_at, next_run_at
		FROM waitlists WHERE account_id = ? AND id = ? AND deleted_at IS NULL`+q.Dialect().ForUpdate(), acct.ID, id))
	if db.IsNoRows(err) {
		return nil, errs.New(errs.NotFound, "Waiting list %v not found.", id)
	}
	if err != nil {
		return nil, err
	}
	o := old.Schedule
	var changes []string
	if o.Active != s.Active {
		changes = append(changes, fmt.Sprintf("active %t → %t", o.Active, s.Active))
	}
	if o.HorizonDays != s.HorizonDays {
		changes = append(changes, fmt.Sprintf("horizon %d → %d days", o.HorizonDays, s.HorizonDays))
	}
	if o.RunEvery != s.RunEvery {
		changes = append(changes, fmt.Sprintf("run every %s → %s", o.RunEvery, s.RunEvery))
	}
	if o.SeatTTL != s.SeatTTL {
		changes = append(changes, fmt.Sprintf("seat held %s → %s", o.SeatTTL, s.SeatTTL))
	}
	if o.MaxOffers != s.MaxOffers {
		changes = append(changes, fmt.Sprintf("offers before review %d → %d", o.MaxOffers, s.MaxOffers))
	}
	if len(changes) == 0 {
		return nil, nil
	}
	var next any
	if s.Active {
		soonest := now.Add(s.RunEvery)
		next = db.Micros(soonest)
		if old.NextRunAt != nil && o.Active && !old.NextRunAt.After(soonest) {
			next = db.Micros(*old.NextRunAt)
		}
	}
	if _, err := q.Exec(ctx, `UPDATE waitlists SET active = ?, horizon_days = ?, run_every_seconds = ?, seat_ttl_seconds = ?, max_offers = ?, next_run_at = ?
		WHERE account_id = ? AND id = ?`, s.Active, s.HorizonDays, int64(s.RunEvery/time.Second), int64(s.SeatTTL/time.Second), s.MaxOffers, next, acct.ID, id); err != nil {
		return nil, err
	}
	return changes, nil
}
