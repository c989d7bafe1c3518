// Package offers runs the waiting lists' schedules: each active list, every
// run_every, wakes snoozed entries whose snooze ended, returns expired seat
// offers to the queue (flagging an entry for review after max_offers
// expired offers), and offers the free capacity of its services within
// horizon_days to the waiting entries by priority, then position. Staff
// offer freed time, and accept or release held offers, through the same
// steps (hand.go; docs/waiting-list-by-hand.md); quiet hours delay an
// offer's message and its hold (OfferTiming).
//
// It sits apart from calendar and waitlist because it needs both (free
// slots from one, entries from the other) while booking, in calendar,
// resolves waiting-list entries: keeping the scheduler here keeps the
// import graph acyclic.
package offers

import (
	"context"
	"fmt"
	"hash/fnv"
	"time"

	"github.com/frontdesk/frontdesk/internal/account"
	"github.com/frontdesk/frontdesk/internal/calendar"
	"github.com/frontdesk/frontdesk/internal/db"
	"github.com/frontdesk/frontdesk/internal/jobs"
)

// list is a waiting list due for a run.
type list struct {
	id, accountID     int64
	horizonDays       int
	runEvery, seatTTL time.Duration
	language          string // the account's, for the offer's text
	maxOffers         int
	nextRunAt         int64
}

// RunDue runs every active list whose next run is due, across accounts. Each
// list runs in its own transaction, claimed by moving its next_run_at, so
// two instances never run one list twice for the same period.
func RunDue(ctx context.Context, store *db.DB, now time.Time) (int, error) {
	rows, err := store.Query(ctx, `SELECT id, account_id, horizon_days, run_every_seconds, seat_ttl_seconds, max_offers, next_run_at
		FROM waitlists WHERE active AND deleted_at IS NULL AND next_run_at IS NOT NULL AND next_run_at <= ? ORDER BY next_run_at, id`, db.Micros(now))
	if err != nil {
		return 0, fmt.Errorf("due waiting lists: %w", err)
	}
	var due []list
	for rows.Next() {
		var l list
		var every, ttl int64
		if err := rows.Scan(&l.id, &l.accountID, &l.horizonDays, &every, &ttl, &l.maxOffers, &l.nextRunAt); err != nil {
			rows.Close()
			return 0, err
		}
		l.runEvery, l.seatTTL = time.Duration(every)*time.Second, time.Duration(ttl)*time.Second
		due = append(due, l)
	}
	rows.Close()
	if err := rows.Err(); err != nil {
		return 0, err
	}
	ran := 0
	for _, l := range due {
		err := store.Transact(ctx, func(tx *db.Tx) error {
			ok, err := run(ctx, tx, l, now)
			if ok {
				ran++
			}
			return err
		})
		if err != nil {
			return ran, fmt.Errorf("waiting list %d: %w", l.id, err)
		}
	}
	return ran, nil
}

func run(ctx context.Context, tx *db.Tx, l list, now time.Time) (bool, error) {
	us := db.Micros(now)
	claim, err := tx.Exec(ctx, `UPDATE waitlists SET last_run_at = ?, next_run_at = ? WHERE account_id = ? AND id = ? AND next_run_at = ? AND active`,
		us, db.Micros(now.Add(l.runEvery)), l.accountID, l.id, l.nextRunAt)
	if err != nil {
		return false, err
	}
	if n, _ := claim.RowsAffected(); n == 0 {
		return false, nil // another instance took this run
	}
	var acct account.Account
	if err := tx.QueryRow(ctx, `SELECT id, slug, name, timezone, default_region, language FROM accounts WHERE id = ?`, l.accountID).
		Scan(&acct.ID, &acct.Slug, &acct.Name, &acct.Timezone, &acct.DefaultRegion, &l.language); err != nil {
		return false, err
	}
	// Snoozes that ended wake up.
	if _, err := tx.Exec(ctx, `UPDATE waitlist_entries SET status = 'waiting', snooze_until = NULL, updated_at = ?
		WHERE account_id = ? AND waitlist_id = ? AND status = 'snoozed' AND snooze_until <= ?`, us, acct.ID, l.id, us); err != nil {
		return false, err
	}
	// Expired offers go back to the queue; too many of them flag the entry.
	if err := expire(ctx, tx, acct, l, 0, now); err != nil {
		return false, err
	}
	return true, offer(ctx, tx, acct, l, now, 0)
}

// offer gives each waiting entry, in queue order (priority, then age, then
// id), the earliest free slot of its service (the slots availability
// counts, from now on) that the entry accepts (candidate.accepts: its
// preferred professional, time window and dates) and holds that slot
// (writer.hold), with the resource booking would give it when its service
// needs one (calendar.SeatResource; a slot with none left is skipped).
// Slots come from the calendar's slot engine, which already leaves out
// booked time, time off and the holds of earlier offers; a slot given in
// this run is taken for every service of the professional. except
// is an entry that must not be offered in this run (it just said no, or
// its hold was just released).
func offer(ctx context.Context, tx *db.Tx, acct account.Account, l list, now time.Time, except int64) error {
	if err := lockOffers(ctx, tx, acct); err != nil {
		return err
	}
	serviceIDs, err := db.QueryInt64s(ctx, tx, `SELECT service_id FROM waitlist_services WHERE account_id = ? AND waitlist_id = ? ORDER BY service_id`, acct.ID, l.id)
	if err != nil || len(serviceIDs) == 0 {
		return err
	}
	slots, err := calendar.FreeSlots(ctx, tx, acct, serviceIDs, now, now.AddDate(0, 0, l.horizonDays), now)
	if err != nil || len(slots) == 0 {
		return err
	}
	bySvc := map[int64][]calendar.Slot{}
	for _, s := range slots {
		bySvc[s.ServiceID] = append(bySvc[s.ServiceID], s)
	}
	w, err := newWriter(ctx, tx, acct)
	if err != nil {
		return err
	}
	cands, err := candidates(ctx, tx, acct, l.id, nil, except, w.optedOutOf)
	if err != nil {
		return err
	}
	loc := acct.Location()
	sendAt := w.sendAt(now)
	taken := map[int64][][2]time.Time{} // professional -> spans given in this run
	var events []jobs.Event
	for _, c := range cands {
		for _, s := range bySvc[c.serviceID] {
			if s.Start.Before(sendAt) || !c.accepts(s, loc) || overlaps(taken[s.ProfessionalID], s.Start, s.End) {
				continue
			}
			// The resource is picked as booking picks it, the holds
			// written earlier in this run counted (docs/rooms.md).
			rid, free, err := calendar.SeatResource(ctx, tx, acct, s, now)
			if err != nil {
				return err
			}
			if !free {
				continue
			}
			s.ResourceID = rid
			taken[s.ProfessionalID] = append(taken[s.ProfessionalID], [2]time.Time{s.Start, s.End})
			ev, _, ok, err := w.hold(ctx, tx, pick{candidate: c, slot: s}, l.seatTTL, now)
			if err != nil {
				return err
			}
			if ok {
				events = append(events, ev)
			}
			break
		}
	}
	return jobs.Emit(ctx, tx, acct, now, events...)
}

// Time windows of time_preference, in the account's zone.
const (
	afternoonFrom = 13
	eveningFrom   = 18
)

// fits reports whether a slot starting at t (account zone) suits an entry's
// time window and dates.
func fits(t time.Time, window string, earliest, latest *string) bool {
	h := t.Hour()
	switch window {
	case "morning":
		if h >= afternoonFrom {
			return false
		}
	case "afternoon":
		if h < afternoonFrom || h >= eveningFrom {
			return false
		}
	case "evening":
		if h < eveningFrom {
			return false
		}
	}
	day := t.Format("2006-01-02")
	if earliest != nil && *earliest != "" && day < *earliest {
		return false
	}
	if latest != nil && *latest != "" && day > *latest {
		return false
	}
	return true
}

func overlaps(spans [][2]time.Time, start, end time.Time) bool {
	for _, s := range spans {
		if start.Before(s[1]) && end.After(s[0]) {
			return true
		}
	}
	return false
}

func professionalNames(ctx context.Context, q db.Querier, acct account.Account) (map[int64]string, error) {
	rows, err := q.Query(ctx, `SELECT id, name FROM professionals WHERE account_id = ?`, acct.ID)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	out := map[int64]string{}
	for rows.Next() {
		var id int64
		var name string
		if err := rows.Scan(&id, &name); err != nil {
			return nil, err
		}
		out[id] = name
	}
	return out, rows.Err()
}

// lockOffers serialises seat offering within an account on PostgreSQL: a
// scheduled run and the immediate re-offer after a "no" (or runs of two
// lists sharing a professional, on two instances) would otherwise each
// compute free slots without the other's uncommitted holds and offer one
// slot twice. SQLite's write transactions already run one at a time.
func lockOffers(ctx context.Context, tx *db.Tx, acct account.Account) error {
	if tx.Dialect().Engine != db.Postgres {
		return nil
	}
	h := fnv.New64a()
	fmt.Fprintf(h, "offers/%d", acct.ID)
	_, err := tx.Exec(ctx, `SELECT pg_advisory_xact_lock(?)`, int64(h.Sum64()))
	return err
}
