package offers

// Seat offers by hand (docs/waiting-list-by-hand.md): staff offer a freed
// time to the next in line or to one patient, and accept or release a held
// offer on the patient's behalf. Each is the automatic path's own step:
// the same matching rule, hold and message, the same booking as a "sí",
// the same return to the queue as an expired hold.

import (
	"context"
	"time"

	"github.com/frontdesk/frontdesk/internal/account"
	"github.com/frontdesk/frontdesk/internal/calendar"
	"github.com/frontdesk/frontdesk/internal/contact"
	"github.com/frontdesk/frontdesk/internal/db"
	"github.com/frontdesk/frontdesk/internal/errs"
	"github.com/frontdesk/frontdesk/internal/jobs"
)

// Refusals of the offers by hand.
var (
	ErrUnknownTime  = errs.New(errs.ValidationError, "That professional or service is not in this workspace.")
	ErrTimePast     = errs.New(errs.ValidationError, "That time has already begun: it can no longer be offered.")
	ErrTimeTaken    = errs.New(errs.ValidationError, "That time is no longer free: it was booked, a waiting-list offer holds it, or it is outside working hours.")
	ErrTimeInQuiet  = errs.New(errs.ValidationError, "That time begins before quiet hours end: an offer could not reach the patient in time.")
	ErrNoMatch      = errs.New(errs.ValidationError, "No waiting patient's preferences fit that time.")
	ErrNotMatched   = errs.New(errs.ValidationError, "That patient is not among the waiting patients that time suits (status, preferences, phone or consent).")
	ErrUnknownOffer = errs.New(errs.ValidationError, "That seat offer is not in this workspace.")
	ErrNotHeld      = errs.New(errs.ValidationError, "That offer no longer holds its slot: it expired, was released or answered, or the time has begun.")
)

// OfferTime offers a free time of professionalID from start by hand, in
// tx: to the entry entryID, which must be among MatchTime's matches, or
// (entryID 0) to the first of them, the next in line. The offer is the
// automatic one: the entry is queued on the seat, the hold and the message
// follow OfferTiming, and waitlist.seat_offered is emitted.
func OfferTime(ctx context.Context, tx *db.Tx, acct account.Account, professionalID, serviceID int64, start time.Time, entryID int64, now time.Time) (Match, error) {
	if err := lockOffers(ctx, tx, acct); err != nil {
		return Match{}, err
	}
	if err := calendar.LockProfessionalTime(ctx, tx, acct, professionalID); err != nil {
		return Match{}, err
	}
	ft, err := MatchTime(ctx, tx, acct, professionalID, serviceID, start, now)
	if err != nil {
		return Match{}, err
	}
	if len(ft.Matches) == 0 {
		return Match{}, ErrNoMatch
	}
	m := ft.Matches[0]
	if entryID != 0 {
		found := false
		for _, x := range ft.Matches {
			if x.EntryID == entryID {
				m, found = x, true
			}
		}
		if !found {
			return Match{}, ErrNotMatched
		}
	}
	w, err := newWriter(ctx, tx, acct)
	if err != nil {
		return Match{}, err
	}
	l, err := loadList(ctx, tx, acct, m.WaitlistID, w.lang)
	if err != nil {
		return Match{}, err
	}
	rid, free, err := calendar.SeatResource(ctx, tx, acct, m.Slot, now)
	if err != nil {
		return Match{}, err
	}
	if !free {
		return Match{}, ErrTimeTaken
	}
	m.Slot.ResourceID = rid
	ev, tm, ok, err := w.hold(ctx, tx, pick{candidate: m.cand, slot: m.Slot}, l.seatTTL, now)
	if err != nil {
		return Match{}, err
	}
	if ok {
		m.Timing = tm
		return m, jobs.Emit(ctx, tx, acct, now, ev)
	}
	return Match{}, ErrNotMatched
}

// heldByID reads a seat offer (its entry) of acct, locked for the
// transaction.
func heldByID(ctx context.Context, tx *db.Tx, acct account.Account, entryID int64) (heldOffer, error) {
	h, err := scanHeld(tx.QueryRow(ctx, selectHeld+` WHERE account_id = ? AND id = ?`+tx.Dialect().ForUpdate(), acct.ID, entryID))
	if db.IsNoRows(err) {
		return h, ErrUnknownOffer
	}
	return h, err
}

// Accepted is a held offer booked on the patient's behalf.
type Accepted struct {
	Booking calendar.Booking
	Start   time.Time
}

// Accept books a live held offer for its patient on their behalf, in tx:
// the booking a patient's "sí" makes (Reply), with the same events,
// webhooks and resolution of the entry. Nil means the seat was gone after
// all: the hold is released, and tx must commit to keep that.
func Accept(ctx context.Context, tx *db.Tx, acct account.Account, entryID int64, now time.Time) (*Accepted, error) {
	h, err := heldByID(ctx, tx, acct, entryID)
	if err != nil {
		return nil, err
	}
	if !h.live(now) {
		return nil, ErrNotHeld
	}
	b, err := book(ctx, tx, acct, h, now)
	if err != nil || b == nil {
		return nil, err
	}
	return &Accepted{Booking: *b, Start: db.Time(*h.start)}, nil
}

// Release gives a held offer's slot back by hand, in tx, as an expired
// hold goes back: the entry waits again (flagged for review after the
// list's max_offers offers), and the list offers its free seats at once,
// leaving this entry out of that run.
// It returns the patient's name.
func Release(ctx context.Context, tx *db.Tx, acct account.Account, entryID int64, now time.Time) (string, error) {
	h, err := heldByID(ctx, tx, acct, entryID)
	if err != nil {
		return "", err
	}
	if h.status != "queued" {
		return "", ErrNotHeld
	}
	var lang, first, last string
	if err := tx.QueryRow(ctx, `SELECT a.language, c.first_name, c.last_name FROM accounts a JOIN clients c ON c.account_id = a.id
		WHERE a.id = ? AND c.id = ?`, acct.ID, h.clientID).Scan(&lang, &first, &last); err != nil {
		return "", err
	}
	l, err := loadList(ctx, tx, acct, h.listID, lang)
	if err != nil {
		return "", err
	}
	if err := expire(ctx, tx, acct, l.list, entryID, now); err != nil {
		return "", err
	}
	name := contact.DisplayName(first, last)
	if !l.active {
		return name, nil
	}
	return name, offer(ctx, tx, acct, l.list, now, entryID)
}

// expire returns held offers to the queue: the list's offers whose hold
// ran out by now, or (entryID not 0) that entry's offer. An entry offered
// max_offers times is flagged for review.
func expire(ctx context.Context, tx *db.Tx, acct account.Account, l list, entryID int64, now time.Time) error {
	us := db.Micros(now)
	which, arg := `seat_expires_at <= ?`, us
	if entryID != 0 {
		which, arg = `id = ?`, entryID
	}
	_, err := tx.Exec(ctx, `UPDATE waitlist_entries SET status = 'waiting', queued_at = NULL, seat_expires_at = NULL, offer_resource_id = NULL, updated_at = ?,
			flagged_for_review = CASE WHEN queue_attempts >= ? THEN TRUE ELSE flagged_for_review END
		WHERE account_id = ? AND waitlist_id = ? AND status = 'queued' AND `+which, us, l.maxOffers, acct.ID, l.id, arg)
	return err
}
