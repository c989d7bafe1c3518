package offers

import (
	"context"
	"time"

	"github.com/frontdesk/frontdesk/internal/account"
	"github.com/frontdesk/frontdesk/internal/calendar"
	"github.com/frontdesk/frontdesk/internal/contact"
	"github.com/frontdesk/frontdesk/internal/db"
	"github.com/frontdesk/frontdesk/internal/errs"
	"github.com/frontdesk/frontdesk/internal/phone"
)

// EntryTimes is an open entry and the free seats its preferences accept.
type EntryTimes struct {
	EntryID, ClientID, ServiceID int64
	ClientName, ServiceName      string
	Phone                        string // E.164, "" when none
	Slots                        []calendar.Slot
}

// ErrEntryClosed refuses "Book now" for an entry no longer on its list.
var ErrEntryClosed = errs.New(errs.ValidationError, "That entry is no longer waiting: it was booked or removed.")

// EntrySlots lists the first free seats (at most limit) within the entry's
// list's horizon that the entry accepts by the matching rule of the seat
// offers (candidate.accepts): what "Book now" on a waiting row shows
// (docs/waiting-list-by-hand.md). Any open entry may be booked by hand,
// snoozed or flagged ones included.
func EntrySlots(ctx context.Context, q db.Querier, acct account.Account, entryID int64, now time.Time, limit int) (EntryTimes, error) {
	var (
		et       EntryTimes
		c        candidate
		horizon  int
		status   string
		cc       *int64
		national *string
	)
	err := q.QueryRow(ctx, `SELECT e.id, e.service_id, e.client_id, e.status, s.name, c.first_name, c.last_name, c.phone_cc, c.phone_national,
			e.preferred_professional_id, e.time_preference, e.earliest_date, e.latest_date, w.horizon_days
		FROM waitlist_entries e JOIN services s ON s.account_id = e.account_id AND s.id = e.service_id JOIN clients c ON c.account_id = e.account_id AND c.id = e.client_id
		JOIN waitlists w ON w.account_id = e.account_id AND w.id = e.waitlist_id
		WHERE e.account_id = ? AND e.id = ?`, acct.ID, entryID).
		Scan(&c.entryID, &c.serviceID, &c.clientID, &status, &c.service, &c.first, &c.last, &cc, &national,
			&c.pref, &c.window, &c.earliest, &c.latest, &horizon)
	if db.IsNoRows(err) {
		return et, errs.New(errs.NotFound, "Waiting-list entry %v not found.", entryID)
	}
	if err != nil {
		return et, err
	}
	et = EntryTimes{EntryID: c.entryID, ClientID: c.clientID, ServiceID: c.serviceID, ClientName: contact.DisplayName(c.first, c.last), ServiceName: c.service}
	if cc != nil && national != nil {
		et.Phone = phone.Number{CountryCode: int(*cc), National: *national}.E164()
	}
	switch status {
	case "waiting", "queued", "snoozed":
	default:
		return et, ErrEntryClosed
	}
	slots, err := calendar.FreeSlots(ctx, q, acct, []int64{c.serviceID}, now, now.AddDate(0, 0, horizon), now)
	if err != nil {
		return et, err
	}
	loc := acct.Location()
	for _, s := range slots {
		if c.accepts(s, loc) {
			et.Slots = append(et.Slots, s)
			if len(et.Slots) == limit {
				break
			}
		}
	}
	return et, nil
}
