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
	"hash/fnv"
	"time"

	"github.com/frontdesk/frontdesk/internal/account"
	"github.com/frontdesk/frontdesk/internal/calendar"
	"github.com/frontdesk/frontdesk/internal/channels"
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
	return true, offer(ctx, tx, acct, l, now, 0)
}

// offer gives each waiting entry, in queue order (priority, then age, then
// id), the earliest free slot of its service (the slots availability
// counts, from now on) that fits its preferences —
// its preferred professional, its time window (morning before 13:00,
// afternoon 13:00-18:00, evening from 18:00, in the account's zone) and its
// earliest and latest dates — and holds that slot until seat_expires_at.
// Slots come from the calendar's slot engine, which already leaves out
// booked time, time off and the holds of earlier offers; a slot given in
// this run is taken for every service of the professional. except is an
// entry that must not be offered in this run (it just said no).
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
	// A client opted out of the channel seat offers go through would never
	// hear of the slot: holding it for them would keep it from everyone.
	optedOutOf, err := seatOfferChannel(ctx, tx, acct)
	if err != nil {
		return err
	}
	cand, err := tx.Query(ctx, `SELECT e.id, e.service_id, e.client_id, s.name, c.first_name, c.phone_cc, c.phone_national,
			e.preferred_professional_id, e.time_preference, e.earliest_date, e.latest_date
		FROM waitlist_entries e JOIN services s ON s.id = e.service_id JOIN clients c ON c.id = e.client_id
		WHERE e.account_id = ? AND e.waitlist_id = ? AND e.status = 'waiting' AND NOT e.flagged_for_review AND e.id <> ?
			AND c.phone_national IS NOT NULL AND c.phone_national <> ''
			AND NOT EXISTS (SELECT 1 FROM channel_consents cc WHERE cc.account_id = e.account_id AND cc.client_id = e.client_id
				AND cc.channel_id = ? AND cc.opted_out)
		ORDER BY e.priority, e.created_at, e.id`, acct.ID, l.id, except, optedOutOf)
	if err != nil {
		return err
	}
	type pick struct {
		entryID, clientID, serviceID int64
		service, first, to           string
		slot                         calendar.Slot
	}
	loc := acct.Location()
	taken := map[int64][][2]time.Time{} // professional -> spans given in this run
	var picks []pick
	for cand.Next() {
		var (
			pk               pick
			cc, pref         *int64
			national         *string
			window           string
			earliest, latest *string
		)
		if err := cand.Scan(&pk.entryID, &pk.serviceID, &pk.clientID, &pk.service, &pk.first, &cc, &national, &pref, &window, &earliest, &latest); err != nil {
			cand.Close()
			return err
		}
		for _, s := range bySvc[pk.serviceID] {
			if pref != nil && s.ProfessionalID != *pref {
				continue
			}
			if !fits(s.Start.In(loc), window, earliest, latest) || overlaps(taken[s.ProfessionalID], s.Start, s.End) {
				continue
			}
			pk.slot = s
			taken[s.ProfessionalID] = append(taken[s.ProfessionalID], [2]time.Time{s.Start, s.End})
			if cc != nil && national != nil {
				pk.to = phone.Number{CountryCode: int(*cc), National: *national}.E164()
			}
			picks = append(picks, pk)
			break
		}
	}
	cand.Close()
	if err := cand.Err(); err != nil || len(picks) == 0 {
		return err
	}
	names, err := professionalNames(ctx, tx, acct)
	if err != nil {
		return err
	}
	us := db.Micros(now)
	events := make([]jobs.Event, 0, len(picks))
	for _, p := range picks {
		// The hold lasts seat_ttl (docs/contract.md, Seat offers); a yes that arrives
		// after the slot has begun is answered "no longer available".
		expires := now.Add(l.seatTTL)
		res, err := tx.Exec(ctx, `UPDATE waitlist_entries SET status = 'queued', queued_at = ?, offered_at = ?, seat_expires_at = ?,
				queue_attempts = queue_attempts + 1, offer_professional_id = ?, offer_start_at = ?, offer_end_at = ?, updated_at = ?
			WHERE account_id = ? AND id = ? AND status = 'waiting'`, us, us, db.Micros(expires), p.slot.ProfessionalID, db.Micros(p.slot.Start), db.Micros(p.slot.End), us,
			acct.ID, p.entryID)
		if err != nil {
			return err
		}
		if n, _ := res.RowsAffected(); n == 0 {
			continue // the entry changed since it was read: no offer, no message
		}
		id, client := p.entryID, p.clientID
		events = append(events, jobs.Event{Type: jobs.EventWaitlistSeatOffered, SourceID: id, Data: map[string]any{
			"entry_id": id, "waitlist_id": l.id, "client_id": client, "seat_expires_at": expires.UTC().Format(time.RFC3339),
			"slot": map[string]any{"start_at": p.slot.Start.UTC().Format(time.RFC3339), "end_at": p.slot.End.UTC().Format(time.RFC3339),
				"professional": map[string]any{"id": p.slot.ProfessionalID, "name": names[p.slot.ProfessionalID]}}}})
		body := texts.Render(l.language, texts.SeatOffer, texts.Vars{Name: p.first, Service: p.service,
			Professional: names[p.slot.ProfessionalID], When: p.slot.Start.In(loc), Until: expires.In(loc)})
		if err := jobs.QueueMessage(ctx, tx, acct, now, jobs.Message{Kind: jobs.MsgSeatOffer, Channel: "whatsapp", Recipient: p.to,
			ClientID: &client, Body: body, Source: jobs.MessageSource{Type: "waitlist", ID: &id}}, now, nil); err != nil {
			return err
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

// seatOfferChannel is the id of the channel seat offers are routed to (0
// when there is none: then no consent applies).
func seatOfferChannel(ctx context.Context, tx *db.Tx, acct account.Account) (int64, error) {
	settings, err := channels.LoadSettings(ctx, tx, acct)
	if err != nil {
		return 0, err
	}
	key := settings.ChannelFor(jobs.MsgSeatOffer)
	if key == "" {
		return 0, nil
	}
	var id int64
	err = tx.QueryRow(ctx, `SELECT id FROM channels WHERE account_id = ? AND file_key = ?`, acct.ID, key).Scan(&id)
	if db.IsNoRows(err) {
		return 0, nil
	}
	return id, err
}
