// Package offers runs the waiting lists' schedules: each active list, every
// run_every, wakes snoozed entries whose snooze ended, returns expired seat
// offers to the queue (flagging an entry for review after max_offers
// expired offers), and offers the free capacity of its services within
// horizon_days to the waiting entries by priority, then position.
//
// It sits apart from calendar and waitlist because it needs both (free
// slots from one, entries from the other) while booking, in calendar,
// resolves waiting-list entries: keeping the scheduler here keeps the
// import graph acyclic.
package offers

import (
	"context"
	"fmt"
	"time"

	"github.com/frontdesk/frontdesk/internal/account"
	"github.com/frontdesk/frontdesk/internal/calendar"
	"github.com/frontdesk/frontdesk/internal/db"
	"github.com/frontdesk/frontdesk/internal/jobs"
	"github.com/frontdesk/frontdesk/internal/phone"
	"github.com/frontdesk/frontdesk/internal/texts"
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
	claim, err := tx.Exec(ctx, `UPDATE waitlists SET last_run_at = ?, next_run_at = ? WHERE id = ? AND next_run_at = ? AND active`,
		us, db.Micros(now.Add(l.runEvery)), l.id, l.nextRunAt)
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
	if _, err := tx.Exec(ctx, `UPDATE waitlist_entries SET status = 'waiting', queued_at = NULL, seat_expires_at = NULL, updated_at = ?,
			flagged_for_review = CASE WHEN queue_attempts >= ? THEN TRUE ELSE flagged_for_review END
		WHERE account_id = ? AND waitlist_id = ? AND status = 'queued' AND seat_expires_at <= ?`, us, l.maxOffers, acct.ID, l.id, us); err != nil {
		return false, err
	}
	return true, offer(ctx, tx, acct, l, now)
}

// offer gives each service's free seats, minus the seats already held by
// outstanding offers, to its waiting entries in queue order.
func offer(ctx context.Context, tx *db.Tx, acct account.Account, l list, now time.Time) error {
	serviceIDs, err := ids(ctx, tx, `SELECT service_id FROM waitlist_services WHERE account_id = ? AND waitlist_id = ? ORDER BY service_id`, acct.ID, l.id)
	if err != nil || len(serviceIDs) == 0 {
		return err
	}
	slots, err := calendar.FreeSlots(ctx, tx, acct, serviceIDs, now, now.AddDate(0, 0, l.horizonDays), now)
	if err != nil {
		return err
	}
	free := map[int64]int{}
	for _, s := range slots {
		free[s.ServiceID]++
	}
	rows, err := tx.Query(ctx, `SELECT service_id, COUNT(*) FROM waitlist_entries
		WHERE account_id = ? AND waitlist_id = ? AND status = 'queued' GROUP BY service_id`, acct.ID, l.id)
	if err != nil {
		return err
	}
	for rows.Next() {
		var sid int64
		var n int
		if err := rows.Scan(&sid, &n); err != nil {
			rows.Close()
			return err
		}
		free[sid] -= n
	}
	rows.Close()

	// Candidates in queue order: priority, then age, then id (the position).
	cand, err := tx.Query(ctx, `SELECT e.id, e.service_id, e.client_id, s.name, c.first_name, c.phone_cc, c.phone_national
		FROM waitlist_entries e JOIN services s ON s.id = e.service_id JOIN clients c ON c.id = e.client_id
		WHERE e.account_id = ? AND e.waitlist_id = ? AND e.status = 'waiting' AND NOT e.flagged_for_review
		ORDER BY e.service_id, e.priority, e.created_at, e.id`, acct.ID, l.id)
	if err != nil {
		return err
	}
	type pick struct {
		entryID, clientID  int64
		service, first, to string
	}
	var picks []pick
	for cand.Next() {
		var (
			p        pick
			sid      int64
			cc       *int64
			national *string
		)
		if err := cand.Scan(&p.entryID, &sid, &p.clientID, &p.service, &p.first, &cc, &national); err != nil {
			cand.Close()
			return err
		}
		if free[sid] <= 0 {
			continue
		}
		free[sid]--
		if cc != nil && national != nil {
			p.to = phone.Number{CountryCode: int(*cc), National: *national}.E164()
		}
		picks = append(picks, p)
	}
	cand.Close()
	if len(picks) == 0 {
		return nil
	}
	entryIDs := make([]int64, len(picks))
	for i, p := range picks {
		entryIDs[i] = p.entryID
	}
	in, args := db.In(entryIDs)
	us := db.Micros(now)
	if _, err := tx.Exec(ctx, `UPDATE waitlist_entries SET status = 'queued', queued_at = ?, seat_expires_at = ?, queue_attempts = queue_attempts + 1, updated_at = ?
		WHERE id IN `+in, append([]any{us, db.Micros(now.Add(l.seatTTL)), us}, args...)...); err != nil {
		return err
	}
	events := make([]jobs.Event, 0, len(picks))
	for _, p := range picks {
		id, client := p.entryID, p.clientID
		events = append(events, jobs.Event{Type: jobs.EventWaitlistSeatOffered, SourceID: id, Data: map[string]any{
			"entry_id": id, "waitlist_id": l.id, "client_id": client, "seat_expires_at": now.Add(l.seatTTL).UTC().Format(time.RFC3339)}})
		body := texts.Render(l.language, texts.SeatOfferAnySlot, texts.Vars{Name: p.first, Service: p.service,
			Until: now.Add(l.seatTTL).In(acct.Location())})
		if err := jobs.QueueMessage(ctx, tx, acct, now, jobs.Message{Kind: jobs.MsgSeatOffer, Channel: "whatsapp", Recipient: p.to,
			ClientID: &client, Body: body, Source: jobs.MessageSource{Type: "waitlist", ID: &id}}, now, nil); err != nil {
			return err
		}
	}
	return jobs.Emit(ctx, tx, acct, now, events...)
}

func ids(ctx context.Context, q db.Querier, query string, args ...any) ([]int64, error) {
	rows, err := q.Query(ctx, query, args...)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	var out []int64
	for rows.Next() {
		var id int64
		if err := rows.Scan(&id); err != nil {
			return nil, err
		}
		out = append(out, id)
	}
	return out, rows.Err()
}
