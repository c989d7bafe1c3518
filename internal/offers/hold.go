package offers

import (
	"context"
	"time"

	"github.com/frontdesk/frontdesk/internal/account"
	"github.com/frontdesk/frontdesk/internal/calendar"
	"github.com/frontdesk/frontdesk/internal/channels"
	"github.com/frontdesk/frontdesk/internal/db"
	"github.com/frontdesk/frontdesk/internal/jobs"
	"github.com/frontdesk/frontdesk/internal/texts"
)

// pick is a seat given to a candidate.
type pick struct {
	candidate
	slot calendar.Slot
}

// writer writes seat offers: what every offer of one transaction needs
// once (the account's language, its professionals' names, the seat
// offers' channel and the quiet hours).
type writer struct {
	acct       account.Account
	lang       string
	names      map[int64]string
	optedOutOf int64 // the seat offers' channel (0: none)
	quiet      channels.QuietHours
}

func newWriter(ctx context.Context, q db.Querier, acct account.Account) (*writer, error) {
	w := &writer{acct: acct}
	settings, err := channels.LoadSettings(ctx, q, acct)
	if err != nil {
		return nil, err
	}
	w.lang = settings.Language
	// A malformed stored window is no window, as the relay reads it.
	w.quiet, _ = channels.ParseQuietHours(settings.QuietHours)
	if w.optedOutOf, err = channelID(ctx, q, acct, settings); err != nil {
		return nil, err
	}
	if w.names, err = professionalNames(ctx, q, acct); err != nil {
		return nil, err
	}
	return w, nil
}

// sendAt is when an offer made at now goes out (OfferTiming): a seat that
// begins before then is never offered, as the patient could not hear of it in
// time.
func (w *writer) sendAt(now time.Time) time.Time {
	return OfferTiming(now, 0, w.quiet, w.acct.Location()).SendAt
}

// hold gives p its seat, in tx: the entry is queued on the slot, and on
// p.slot.ResourceID, the room or equipment it holds with it
// (docs/rooms.md), until the hold expires (OfferTiming: the hold starts
// when the message goes out, after quiet hours), the offer's message is
// queued for then, and the waitlist.seat_offered event is returned for
// the caller to emit. ok is false when the entry changed since it was
// read (no offer, no message).
func (w *writer) hold(ctx context.Context, tx *db.Tx, p pick, ttl time.Duration, now time.Time) (ev jobs.Event, tm Timing, ok bool, err error) {
	// The hold lasts seat_ttl outside quiet hours (docs/contract.md, Seat
	// offers); a yes that arrives after the slot has begun is answered "no
	// longer available".
	loc := w.acct.Location()
	tm = OfferTiming(now, ttl, w.quiet, loc)
	us := db.Micros(now)
	res, err := tx.Exec(ctx, `UPDATE waitlist_entries SET status = 'queued', queued_at = ?, offered_at = ?, seat_expires_at = ?,
			queue_attempts = queue_attempts + 1, offer_professional_id = ?, offer_start_at = ?, offer_end_at = ?, offer_resource_id = ?,
			updated_at = ?
		WHERE account_id = ? AND id = ? AND status = 'waiting'`, us, us, db.Micros(tm.ExpiresAt), p.slot.ProfessionalID,
		db.Micros(p.slot.Start), db.Micros(p.slot.End), heldResource(p.slot), us, w.acct.ID, p.entryID)
	if err != nil {
		return ev, tm, false, err
	}
	if n, _ := res.RowsAffected(); n == 0 {
		return ev, tm, false, nil
	}
	id, client := p.entryID, p.clientID
	ev = jobs.Event{Type: jobs.EventWaitlistSeatOffered, SourceID: id, Data: map[string]any{
		"entry_id": id, "waitlist_id": p.listID, "client_id": client, "seat_expires_at": tm.ExpiresAt.UTC().Format(time.RFC3339),
		"slot": map[string]any{"start_at": p.slot.Start.UTC().Format(time.RFC3339), "end_at": p.slot.End.UTC().Format(time.RFC3339),
			"professional": map[string]any{"id": p.slot.ProfessionalID, "name": w.names[p.slot.ProfessionalID]}}}}
	body := texts.Render(w.lang, texts.SeatOffer, texts.Vars{Name: p.first, Service: p.service,
		Professional: w.names[p.slot.ProfessionalID], When: p.slot.Start.In(loc), Until: tm.ExpiresAt.In(loc)})
	err = jobs.QueueMessage(ctx, tx, w.acct, now, jobs.Message{Kind: jobs.MsgSeatOffer, Channel: "whatsapp", Recipient: p.to,
		ClientID: &client, Body: body, Source: jobs.MessageSource{Type: "waitlist", ID: &id}}, tm.SendAt, nil)
	return ev, tm, err == nil, err
}

// channelID is the id of the channel seat offers are routed to (0 when
// there is none: then no consent applies). A client opted out of it would
// never hear of the slot: holding it for them would keep it from everyone.
func channelID(ctx context.Context, q db.Querier, acct account.Account, settings channels.Settings) (int64, error) {
	key := settings.ChannelFor(jobs.MsgSeatOffer)
	if key == "" {
		return 0, nil
	}
	var id int64
	err := q.QueryRow(ctx, `SELECT id FROM channels WHERE account_id = ? AND file_key = ?`, acct.ID, key).Scan(&id)
	if db.IsNoRows(err) {
		return 0, nil
	}
	return id, err
}

// heldResource is the stored form of the resource a seat offer holds:
// NULL when its service needs none.
func heldResource(s calendar.Slot) any {
	if s.ResourceID == 0 {
		return nil
	}
	return s.ResourceID
}
