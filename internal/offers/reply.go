package offers

import (
	"context"
	"fmt"
	"time"

	"github.com/frontdesk/frontdesk/internal/account"
	"github.com/frontdesk/frontdesk/internal/calendar"
	"github.com/frontdesk/frontdesk/internal/db"
	"github.com/frontdesk/frontdesk/internal/errs"
	"github.com/frontdesk/frontdesk/internal/texts"
)

// LateReplyWindow is how long after an offer went out a "yes" to it that
// can no longer be honoured is still answered ("no longer available")
// rather than treated as an ordinary chat message.
const LateReplyWindow = 72 * time.Hour

// ReplyResult is what a client's yes or no to a seat offer did.
type ReplyResult struct {
	Handled bool   // the reply was about a seat offer
	Answer  string // what to send back (in the account's language)
	Booked  *calendar.Booking
}

// Reply acts on a client's yes (accept) or no (decline) to their newest
// seat offer (docs/contract.md, Replies that act), in tx:
//
//   - yes, the hold still valid and the slot still free: the slot is booked
//     (source waitlist, already confirmed), the entry is booked, the
//     webhooks fire, and the answer names the appointment;
//   - yes too late (expired, released because a booking took the slot, the
//     slot has begun or is no longer free): "no longer available", the
//     entry stays on the list;
//   - no: the hold is released, the entry waits again, and the slot is
//     offered to the next entry of the list at once.
//
// A client with no offer in the last LateReplyWindow is not handled; with
// liveOnly, neither is one whose newest offer no longer holds a slot (so
// that a pending confirmation request gets the reply first).
func Reply(ctx context.Context, tx *db.Tx, acct account.Account, clientID int64, yes, liveOnly bool, now time.Time) (ReplyResult, error) {
	var lang string
	if err := tx.QueryRow(ctx, `SELECT language FROM accounts WHERE id = ?`, acct.ID).Scan(&lang); err != nil {
		return ReplyResult{}, err
	}
	h, err := scanHeld(tx.QueryRow(ctx, selectHeld+` WHERE account_id = ? AND client_id = ? AND offered_at IS NOT NULL AND offered_at > ?
			AND status IN ('waiting', 'queued')
		ORDER BY offered_at DESC, id DESC LIMIT 1`+tx.Dialect().ForUpdate(),
		acct.ID, clientID, db.Micros(now.Add(-LateReplyWindow))))
	if db.IsNoRows(err) {
		return ReplyResult{}, nil
	}
	if err != nil {
		return ReplyResult{}, fmt.Errorf("seat offer of client %d: %w", clientID, err)
	}
	gone := ReplyResult{Handled: true, Answer: texts.Render(lang, texts.NoLongerAvailable, texts.Vars{})}
	active := h.live(now)
	if liveOnly && !active {
		return ReplyResult{}, nil
	}
	if !yes {
		if !active {
			return ReplyResult{Handled: true, Answer: texts.Render(lang, texts.SeatReleased, texts.Vars{})}, nil
		}
		if err := release(ctx, tx, acct, h.entryID, now); err != nil {
			return ReplyResult{}, err
		}
		if err := reoffer(ctx, tx, acct, h, lang, now); err != nil {
			return ReplyResult{}, err
		}
		return ReplyResult{Handled: true, Answer: texts.Render(lang, texts.SeatReleased, texts.Vars{})}, nil
	}
	if !active {
		if h.status == "queued" { // the slot has begun: the entry waits for another
			return gone, release(ctx, tx, acct, h.entryID, now)
		}
		return gone, nil
	}
	b, err := book(ctx, tx, acct, h, now)
	if err != nil || b == nil {
		return gone, err
	}
	loc := acct.Location()
	return ReplyResult{Handled: true, Booked: b, Answer: texts.Render(lang, texts.SeatBooked, texts.Vars{
		Service: b.Appointment.Service.Name, Professional: b.Appointment.CalendarProfile.Name, When: db.Time(*h.start).In(loc)})}, nil
}

// heldOffer is a waiting-list entry's newest seat offer, as stored.
type heldOffer struct {
	entryID, listID, serviceID, clientID, proID int64
	resourceID                                  int64 // held with the slot (docs/rooms.md), 0 none
	status                                      string
	start, end, expires                         *int64
}

const selectHeld = `SELECT id, waitlist_id, service_id, client_id, status, offer_professional_id, offer_start_at, offer_end_at, seat_expires_at,
		COALESCE(offer_resource_id, 0) FROM waitlist_entries`

func scanHeld(row interface{ Scan(...any) error }) (heldOffer, error) {
	var h heldOffer
	err := row.Scan(&h.entryID, &h.listID, &h.serviceID, &h.clientID, &h.status, &proIDPtr{&h.proID}, &h.start, &h.end, &h.expires, &h.resourceID)
	return h, err
}

// live reports whether the offer still holds its slot at now: a hold is
// live until seat_expires_at; a slot that has begun can no longer be
// taken, whatever the hold says.
func (h heldOffer) live(now time.Time) bool {
	us := db.Micros(now)
	return h.status == "queued" && h.expires != nil && *h.expires > us && h.start != nil && h.end != nil && *h.start > us
}

// book books a live held offer for its patient (calendar.BookSeat: source
// waitlist, confirmed, the entry resolved as booked, appointment.booked),
// in tx. When the seat is gone after all (another booking holds the time
// without having released the hold, or the professional no longer offers
// the service) the hold is released and the booking is nil.
func book(ctx context.Context, tx *db.Tx, acct account.Account, h heldOffer, now time.Time) (*calendar.Booking, error) {
	var busy int
	if err := tx.QueryRow(ctx, `SELECT COUNT(*) FROM appointments WHERE account_id = ? AND professional_id = ? AND status IN ('booked', 'arrived')
		AND start_at < ? AND end_at > ?`, acct.ID, h.proID, *h.end, *h.start).Scan(&busy); err != nil {
		return nil, err
	}
	if busy > 0 {
		return nil, release(ctx, tx, acct, h.entryID, now)
	}
	b, err := calendar.BookSeat(ctx, tx, acct, calendar.Seat{EntryID: h.entryID, ClientID: h.clientID, ServiceID: h.serviceID,
		ProfessionalID: h.proID, Start: db.Time(*h.start), End: db.Time(*h.end), ResourceID: h.resourceID}, now)
	if errs.Is(err, errs.ValidationError) {
		return nil, release(ctx, tx, acct, h.entryID, now)
	}
	if err != nil {
		return nil, err
	}
	return &b, nil
}

// reoffer offers the list's free seats at once after h's hold was given
// back, leaving h's entry out of this run.
func reoffer(ctx context.Context, tx *db.Tx, acct account.Account, h heldOffer, lang string, now time.Time) error {
	l, err := loadList(ctx, tx, acct, h.listID, lang)
	if err != nil || !l.active {
		return err
	}
	return offer(ctx, tx, acct, l.list, now, h.entryID)
}

// proIDPtr scans a nullable professional id.
type proIDPtr struct{ dst *int64 }

func (p *proIDPtr) Scan(v any) error {
	switch x := v.(type) {
	case nil:
		*p.dst = 0
	case int64:
		*p.dst = x
	default:
		return fmt.Errorf("professional id: unexpected %T", v)
	}
	return nil
}

// release gives an offer's hold back: the entry waits again.
func release(ctx context.Context, tx *db.Tx, acct account.Account, entryID int64, now time.Time) error {
	_, err := tx.Exec(ctx, `UPDATE waitlist_entries SET status = 'waiting', seat_expires_at = NULL, queued_at = NULL, offer_resource_id = NULL, updated_at = ?
		WHERE account_id = ? AND id = ? AND status = 'queued'`, db.Micros(now), acct.ID, entryID)
	return err
}

type loadedList struct {
	list
	active bool
}

func loadList(ctx context.Context, tx *db.Tx, acct account.Account, id int64, lang string) (loadedList, error) {
	var (
		l          loadedList
		every, ttl int64
	)
	err := tx.QueryRow(ctx, `SELECT id, account_id, horizon_days, run_every_seconds, seat_ttl_seconds, max_offers, active AND deleted_at IS NULL
		FROM waitlists WHERE account_id = ? AND id = ?`, acct.ID, id).
		Scan(&l.id, &l.accountID, &l.horizonDays, &every, &ttl, &l.maxOffers, &l.active)
	l.runEvery, l.seatTTL, l.language = time.Duration(every)*time.Second, time.Duration(ttl)*time.Second, lang
	return l, err
}
