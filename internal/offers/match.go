package offers

// Who may be offered a slot: the one matching rule of every seat offer,
// made by the schedule, after a "no", for freed time, or by hand
// (docs/waiting-list-by-hand.md).

import (
	"context"
	"time"

	"github.com/frontdesk/frontdesk/internal/account"
	"github.com/frontdesk/frontdesk/internal/calendar"
	"github.com/frontdesk/frontdesk/internal/contact"
	"github.com/frontdesk/frontdesk/internal/db"
	"github.com/frontdesk/frontdesk/internal/phone"
)

// candidate is a waiting entry that may be offered a seat: waiting (not
// snoozed, not already holding an offer), not flagged for review, with a
// phone the offer can reach and not opted out of the seat offers' channel,
// on a list that still lists its service.
type candidate struct {
	entryID, listID, serviceID, clientID int64
	service, first, last, to             string
	priority                             int
	pref                                 *int64 // preferred professional
	window                               string // time_preference
	earliest, latest                     *string
}

// accepts reports whether slot s suits the entry: its service, its
// preferred professional, its time window (morning before 13:00, afternoon
// 13:00-18:00, evening from 18:00, in the account's zone) and its earliest
// and latest dates.
func (c candidate) accepts(s calendar.Slot, loc *time.Location) bool {
	if s.ServiceID != c.serviceID || (c.pref != nil && s.ProfessionalID != *c.pref) {
		return false
	}
	return fits(s.Start.In(loc), c.window, c.earliest, c.latest)
}

// candidates lists the entries that may be offered a seat, in queue order
// (priority, then age, then id): of list listID, or of every list not
// deleted when listID is 0 (an offer by hand); of the services serviceIDs
// when given. except is an entry left out (it just said no, or its hold was
// just released); optedOutOf is the seat offers' channel (0: none).
func candidates(ctx context.Context, q db.Querier, acct account.Account, listID int64, serviceIDs []int64, except, optedOutOf int64) ([]candidate, error) {
	where, args := ``, []any{acct.ID, except, optedOutOf}
	if listID != 0 {
		where += ` AND e.waitlist_id = ?`
		args = append(args, listID)
	}
	if len(serviceIDs) > 0 {
		in, ids := db.In(serviceIDs)
		where += ` AND e.service_id IN ` + in
		args = append(args, ids...)
	}
	rows, err := q.Query(ctx, `SELECT e.id, e.waitlist_id, e.service_id, e.client_id, s.name, c.first_name, c.last_name, c.phone_cc, c.phone_national,
			e.priority, e.preferred_professional_id, e.time_preference, e.earliest_date, e.latest_date
		FROM waitlist_entries e JOIN services s ON s.account_id = e.account_id AND s.id = e.service_id JOIN clients c ON c.account_id = e.account_id AND c.id = e.client_id
		JOIN waitlists w ON w.account_id = e.account_id AND w.id = e.waitlist_id AND w.deleted_at IS NULL
		WHERE e.account_id = ? AND e.status = 'waiting' AND NOT e.flagged_for_review AND e.id <> ?
			AND c.phone_national IS NOT NULL AND c.phone_national <> ''
			AND EXISTS (SELECT 1 FROM waitlist_services ws WHERE ws.account_id = e.account_id AND ws.waitlist_id = e.waitlist_id AND ws.service_id = e.service_id)
			AND NOT EXISTS (SELECT 1 FROM channel_consents cc WHERE cc.account_id = e.account_id AND cc.client_id = e.client_id
				AND cc.channel_id = ? AND cc.opted_out)`+where+`
		ORDER BY e.priority, e.created_at, e.id`, args...)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	var out []candidate
	for rows.Next() {
		var (
			c        candidate
			cc       *int64
			national *string
		)
		if err := rows.Scan(&c.entryID, &c.listID, &c.serviceID, &c.clientID, &c.service, &c.first, &c.last, &cc, &national,
			&c.priority, &c.pref, &c.window, &c.earliest, &c.latest); err != nil {
			return nil, err
		}
		if cc != nil && national != nil {
			c.to = phone.Number{CountryCode: int(*cc), National: *national}.E164()
		}
		out = append(out, c)
	}
	return out, rows.Err()
}

// Match is a waiting patient a freed time suits, and the seat they would
// be offered (of their service, from that time).
type Match struct {
	EntryID, WaitlistID, ClientID int64
	ClientName, ServiceName       string
	Priority                      int
	Slot                          calendar.Slot
	Timing                        Timing // of the offer made (OfferTime)
	cand                          candidate
}

// FreedTime is a time a professional is free from, and the waiting
// patients it suits in queue order (the first is "the next in line").
type FreedTime struct {
	ProfessionalID   int64
	ProfessionalName string
	Start            time.Time
	Slots            []calendar.Slot // one per service free for its whole duration from Start
	Matches          []Match
}

// MatchTime finds who a free time of professionalID starting at start may
// be offered to (docs/waiting-list-by-hand.md): each service the
// professional offers (only serviceID when not 0) whose whole default
// duration is free from start, as the slot engine counts it, and the
// candidates whose preferences that seat fits. Refusals: an unknown
// professional or service (another account's ids among them), a time that
// has begun, a time no longer free, a time that begins before quiet hours
// end (the offer could not reach the patient before it).
func MatchTime(ctx context.Context, q db.Querier, acct account.Account, professionalID, serviceID int64, start, now time.Time) (FreedTime, error) {
	ft := FreedTime{ProfessionalID: professionalID, Start: start}
	if err := q.QueryRow(ctx, `SELECT name FROM professionals WHERE account_id = ? AND id = ?`, acct.ID, professionalID).Scan(&ft.ProfessionalName); db.IsNoRows(err) {
		return ft, ErrUnknownTime
	} else if err != nil {
		return ft, err
	}
	var services []int64
	if serviceID != 0 {
		var n int
		if err := q.QueryRow(ctx, `SELECT COUNT(*) FROM services WHERE account_id = ? AND id = ?`, acct.ID, serviceID).Scan(&n); err != nil {
			return ft, err
		}
		if n == 0 {
			return ft, ErrUnknownTime
		}
		services = []int64{serviceID}
	}
	if !start.After(now) {
		return ft, ErrTimePast
	}
	slots, err := calendar.FreeSlots(ctx, q, acct, services, start, start.AddDate(0, 0, 1), now)
	if err != nil {
		return ft, err
	}
	var ids []int64
	for _, s := range slots {
		if s.ProfessionalID == professionalID && s.Start.Equal(start) {
			ft.Slots = append(ft.Slots, s)
			ids = append(ids, s.ServiceID)
		}
	}
	if len(ft.Slots) == 0 {
		return ft, ErrTimeTaken
	}
	w, err := newWriter(ctx, q, acct)
	if err != nil {
		return ft, err
	}
	if start.Before(w.sendAt(now)) {
		return ft, ErrTimeInQuiet
	}
	cands, err := candidates(ctx, q, acct, 0, ids, 0, w.optedOutOf)
	if err != nil {
		return ft, err
	}
	loc := acct.Location()
	for _, c := range cands {
		for _, s := range ft.Slots {
			if c.accepts(s, loc) {
				ft.Matches = append(ft.Matches, Match{EntryID: c.entryID, WaitlistID: c.listID, ClientID: c.clientID,
					ClientName: contact.DisplayName(c.first, c.last), ServiceName: c.service, Priority: c.priority, Slot: s, cand: c})
				break
			}
		}
	}
	return ft, nil
}
