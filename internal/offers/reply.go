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
	var (
		entryID, listID, serviceID, proID int64
		status                            string
		start, end, expires               *int64
		lang                              string
	)
	if err := tx.QueryRow(ctx, `SELECT language FROM accounts WHERE id = ?`, acct.ID).Scan(&lang); err != nil {
		return ReplyResult{}, err
	}
	err := tx.QueryRow(ctx, `SELECT id, waitlist_id, service_id, status, offer_professional_id, offer_start_at, offer_end_at, seat_expires_at
		FROM waitlist_entries WHERE account_id = ? AND client_id = ? AND offered_at IS NOT NULL AND offered_at > ?
			AND status IN ('waiting', 'queued')
		ORDER BY offered_at DESC, id DESC LIMIT 1`+tx.Dialect().ForUpdate(),
		acct.ID, clientID, db.Micros(now.Add(-LateReplyWindow))).
		Scan(&entryID, &listID, &serviceID, &status, &proIDPtr{&proID}, &start, &end, &expires)
	if db.IsNoRows(err) {
		return ReplyResult{}, nil
	}
	if err != nil {
		return ReplyResult{}, fmt.Errorf("seat offer of client %d: %w", clientID, err)
	}
	gone := ReplyResult{Handled: true, Answer: texts.Render(lang, texts.NoLongerAvailable, texts.Vars{})}
	// A hold is live until seat_expires_at; a slot that has begun can no
	// longer be taken, whatever the hold says.
	active := status == "queued" && expires != nil && *expires > db.Micros(now) && start != nil && end != nil && *start > db.Micros(now)
	if liveOnly && !active {
		return ReplyResult{}, nil
	}
	if !yes {
		if !active {
			return ReplyResult{Handled: true, Answer: texts.Render(lang, texts.SeatReleased, texts.Vars{})}, nil
		}
		if err := release(ctx, tx, acct, entryID, now); err != nil {
			return ReplyResult{}, err
		}
		l, err := loadList(ctx, tx, acct, listID, lang)
		if err != nil {
			return ReplyResult{}, err
		}
		if l.active {
			if err := offer(ctx, tx, acct, l.list, now, entryID); err != nil {
				return ReplyResult{}, err
			}
		}
		return ReplyResult{Handled: true, Answer: texts.Render(lang, texts.SeatReleased, texts.Vars{})}, nil
	}
	if !active {
		if status == "queued" { // the slot has begun: the entry waits for another
			return gone, release(ctx, tx, acct, entryID, now)
		}
		return gone, nil
	}
	// Another booking may hold the time without having released the hold
	// (booked before the offer's hold existed, or through a path that does
	// not release): then the seat is gone.
	var busy int
	if err := tx.QueryRow(ctx, `SELECT COUNT(*) FROM appointments WHERE account_id = ? AND professional_id = ? AND status IN ('booked', 'arrived')
		AND start_at < ? AND end_at > ?`, acct.ID, proID, *end, *start).Scan(&busy); err != nil {
		return ReplyResult{}, err
	}
	if busy > 0 {
		return gone, release(ctx, tx, acct, entryID, now)
	}
	b, err := calendar.BookSeat(ctx, tx, acct, calendar.Seat{EntryID: entryID, ClientID: clientID, ServiceID: serviceID,
		ProfessionalID: proID, Start: db.Time(*start), End: db.Time(*end)}, now)
	if errs.Is(err, errs.ValidationError) {
		return gone, release(ctx, tx, acct, entryID, now)
	}
	if err != nil {
		return ReplyResult{}, err
	}
	loc := acct.Location()
	return ReplyResult{Handled: true, Booked: &b, Answer: texts.Render(lang, texts.SeatBooked, texts.Vars{
		Service: b.Appointment.Service.Name, Professional: b.Appointment.CalendarProfile.Name, When: db.Time(*start).In(loc)})}, nil
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
	_, err := tx.Exec(ctx, `UPDATE waitlist_entries SET status = 'waiting', seat_expires_at = NULL, queued_at = NULL, updated_at = ?
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
