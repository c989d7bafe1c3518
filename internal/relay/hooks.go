package relay

import (
	"context"
	"fmt"
	"log/slog"
	"net/url"
	"time"

	"github.com/frontdesk/frontdesk/internal/account"
	"github.com/frontdesk/frontdesk/internal/channels"
	"github.com/frontdesk/frontdesk/internal/chat"
	"github.com/frontdesk/frontdesk/internal/clock"
	"github.com/frontdesk/frontdesk/internal/contact"
	"github.com/frontdesk/frontdesk/internal/db"
	"github.com/frontdesk/frontdesk/internal/errs"
	"github.com/frontdesk/frontdesk/internal/phone"
	"github.com/frontdesk/frontdesk/internal/secrets"
	"github.com/frontdesk/frontdesk/internal/texts"
)

// Reply is an inbound message that a reply handler may act on.
type Reply struct {
	Account        account.Account
	Channel        channels.Channel
	Client         *contact.Client // nil when the number matches no client
	Phone          phone.Number
	Intent         channels.Intent
	Body           string
	ConversationID int64
	Settings       channels.Settings
}

// ReplyHandler acts on a reply in the inbound message's transaction (a
// confirmation request's yes/no, a seat offer's answer) and reports whether
// it did. The first handler that acts wins.
type ReplyHandler func(ctx context.Context, tx *db.Tx, r Reply, now time.Time) (handled bool, err error)

// Answer queues a message back to the sender of a reply through the
// channel it came in on (kind channel_reply); it is never suppressed by an
// opt-out, so that STOP can be acknowledged.
type Answer func(ctx context.Context, tx *db.Tx, r Reply, body string, now time.Time) error

// Hooks processes the providers' callbacks (docs/contract.md, Provider
// callbacks): it verifies
// the signature against the channel's credentials, applies status reports
// and records inbound messages, idempotently on the provider's message id.
type Hooks struct {
	DB      *db.DB
	Secrets *secrets.Box
	Clock   clock.Clock
	Replies []ReplyHandler
	Answer  Answer
	Metrics *Metrics
	Log     *slog.Logger // items of a delivery left out are logged here (nil: slog.Default())
}

// skipped logs an item of a delivery that was left out: the channel and
// the reason, never the message's text.
func (h *Hooks) skipped(ch channels.Channel, reason string) {
	log := h.Log
	if log == nil {
		log = slog.Default()
	}
	log.Warn("callback item skipped", "provider", ch.Provider, "channel_uuid", ch.UUID, "account_id", ch.AccountID, "reason", reason)
}

func forbidden() error { return errs.New(errs.Forbidden, "signature does not verify") }

func bad(format string, args ...any) error {
	return errs.New(errs.ValidationError, format, args...)
}

func (h *Hooks) channel(ctx context.Context, uuid, provider string) (channels.Channel, error) {
	ch, err := channels.ByUUID(ctx, h.DB, h.Secrets, uuid)
	if err != nil {
		return ch, err
	}
	if ch.Provider != provider {
		return channels.Channel{}, errs.New(errs.NotFound, "channel not found")
	}
	return ch, nil
}

// TwilioStatus handles POST /hooks/twilio/{uuid}/status. fullURL is the URL
// Twilio called (the public base + path and query).
func (h *Hooks) TwilioStatus(ctx context.Context, uuid, fullURL string, form url.Values, signature string) error {
	ch, err := h.channel(ctx, uuid, channels.ProviderTwilio)
	if err != nil {
		return err
	}
	if !channels.VerifyTwilio(ch.Credentials["auth_token"], fullURL, form, signature) {
		return forbidden()
	}
	u, err := channels.ParseTwilioStatus(form)
	if err != nil {
		return bad("%v", err)
	}
	h.Metrics.status(channels.ProviderTwilio, u.Status)
	return h.DB.Transact(ctx, func(tx *db.Tx) error { return ApplyStatus(ctx, tx, ch, u, h.Clock.Now()) })
}

// TwilioInbound handles POST /hooks/twilio/{uuid}/inbound.
func (h *Hooks) TwilioInbound(ctx context.Context, uuid, fullURL string, form url.Values, signature string) error {
	ch, err := h.channel(ctx, uuid, channels.ProviderTwilio)
	if err != nil {
		return err
	}
	if !channels.VerifyTwilio(ch.Credentials["auth_token"], fullURL, form, signature) {
		return forbidden()
	}
	in, err := channels.ParseTwilioInbound(form)
	if err != nil {
		return bad("%v", err)
	}
	// A message to another number (a webhook pointed at the wrong channel)
	// is not this account's: nothing is recorded.
	if in.To != "" && phone.Digits(in.To) != phone.Digits(ch.From) {
		return nil
	}
	n, err := phone.ParseWithRegion(in.From, "")
	if err != nil {
		return bad("from %q is not an international phone number: %v", in.From, err)
	}
	return h.inbound(ctx, ch, []channels.Inbound{in}, []phone.Number{n}, nil)
}

// MetaVerify handles GET /hooks/whatsapp/{uuid}: the subscription check.
func (h *Hooks) MetaVerify(ctx context.Context, uuid string, q url.Values) (string, error) {
	ch, err := h.channel(ctx, uuid, channels.ProviderMeta)
	if err != nil {
		return "", err
	}
	c, ok := channels.VerifyMetaChallenge(ch, q)
	if !ok {
		return "", forbidden()
	}
	return c, nil
}

// MetaEvent handles POST /hooks/whatsapp/{uuid}: messages and statuses.
func (h *Hooks) MetaEvent(ctx context.Context, uuid string, body []byte, signature string) error {
	ch, err := h.channel(ctx, uuid, channels.ProviderMeta)
	if err != nil {
		return err
	}
	if !channels.VerifyMeta(ch.Credentials["app_secret"], body, signature) {
		return forbidden()
	}
	d, err := channels.ParseMetaWebhook(body)
	if err != nil {
		return bad("%v", err)
	}
	// One message or status that cannot be used does not cost the others
	// of the delivery (docs/api-notes.md, "Channels"): it is logged and left
	// out, and the delivery is answered 200 so that Meta does not resend it.
	for _, why := range d.Skipped {
		h.skipped(ch, why)
	}
	// Meta sends every number of an app to the same webhook, signed with the
	// same app secret: only this channel's number belongs to its account.
	own := ch.Credentials["phone_number_id"]
	var (
		ins     []channels.Inbound
		numbers []phone.Number
		sts     []channels.StatusUpdate
	)
	for _, in := range d.Inbound {
		if in.PhoneNumberID != "" && in.PhoneNumberID != own {
			continue
		}
		n, err := phone.ParseWithRegion(in.From, "")
		if err != nil {
			h.skipped(ch, "message "+in.ProviderID+": from is not an international phone number")
			continue
		}
		ins, numbers = append(ins, in), append(numbers, n)
	}
	for _, u := range d.Statuses {
		if u.PhoneNumberID != "" && u.PhoneNumberID != own {
			continue
		}
		h.Metrics.status(channels.ProviderMeta, u.Status)
		sts = append(sts, u)
	}
	return h.inbound(ctx, ch, ins, numbers, sts)
}

// inbound records messages (numbers[i] is ins[i]'s sender) and statuses of
// one callback in one transaction: a callback is applied whole or not at
// all, so the provider's retry after a failure finds nothing half-done.
func (h *Hooks) inbound(ctx context.Context, ch channels.Channel, ins []channels.Inbound, numbers []phone.Number, sts []channels.StatusUpdate) error {
	return h.DB.Transact(ctx, func(tx *db.Tx) error {
		now := h.Clock.Now()
		for _, u := range sts {
			if err := ApplyStatus(ctx, tx, ch, u, now); err != nil {
				return err
			}
		}
		if len(ins) == 0 {
			return nil
		}
		acct, err := account.ByID(ctx, tx, ch.AccountID)
		if err != nil {
			return err
		}
		settings, err := channels.LoadSettings(ctx, tx, acct)
		if err != nil {
			return err
		}
		for i, in := range ins {
			if err := h.one(ctx, tx, acct, settings, ch, in, numbers[i], now); err != nil {
				return err
			}
		}
		return nil
	})
}

func (h *Hooks) one(ctx context.Context, tx *db.Tx, acct account.Account, settings channels.Settings, ch channels.Channel, in channels.Inbound, n phone.Number, now time.Time) error {
	var media any
	if len(in.Media) > 0 {
		media = in.Media[0]
	}
	convID, _, dup, err := chat.RecordChannelMessage(ctx, tx, acct, chat.ChannelMessage{
		ChannelID: ch.ID, Phone: n.E164(), PhoneNational: n.National, Inbound: true,
		Content: in.Body, Media: media, ProviderID: in.ProviderID,
	}, now)
	if err != nil || dup {
		return err
	}
	r := Reply{Account: acct, Channel: ch, Phone: n, Intent: channels.Classify(in.Body), Body: in.Body, ConversationID: convID, Settings: settings}
	matches, err := contact.ByNationals(ctx, tx, acct, []string{n.National})
	if err != nil {
		return err
	}
	if c, ok := matches[n.National]; ok && c.Phone.CountryCode == n.CountryCode {
		r.Client = &c
	}
	switch r.Intent {
	case channels.IntentStop, channels.IntentStart:
		if r.Client == nil {
			return nil // nothing is ever sent to a number that is no client
		}
		changed, err := channels.SetConsent(ctx, tx, acct, r.Client.ID, ch.ID, r.Intent == channels.IntentStop, now)
		if err != nil || !changed || h.Answer == nil {
			return err
		}
		kind := texts.OptIn
		if r.Intent == channels.IntentStop {
			kind = texts.OptOut
		}
		return h.Answer(ctx, tx, r, texts.Render(settings.Language, kind, texts.Vars{}), now)
	case channels.IntentYes, channels.IntentNo:
		for _, handle := range h.Replies {
			done, err := handle(ctx, tx, r, now)
			if err != nil {
				return fmt.Errorf("reply: %w", err)
			}
			if done {
				return nil
			}
		}
	}
	return nil
}

// Status ranks: a report never moves a message backwards.
var statusRank = map[string]int{"pending": 0, "sent": 1, "delivered": 2, "read": 3}

// ApplyStatus applies a provider's status report to the outbox message it
// names. An unknown id changes nothing (a provider may report messages sent
// from the same number by other software); so does a report that would move
// the status backwards, or fail a message already delivered.
func ApplyStatus(ctx context.Context, tx *db.Tx, ch channels.Channel, u channels.StatusUpdate, now time.Time) error {
	if u.Status == "" {
		return nil
	}
	var (
		id  int64
		cur string
	)
	err := tx.QueryRow(ctx, `SELECT id, status FROM outbox WHERE channel_id = ? AND provider_message_id = ? AND account_id = ?`,
		ch.ID, u.ProviderID, ch.AccountID).Scan(&id, &cur)
	if db.IsNoRows(err) {
		return nil
	}
	if err != nil {
		return err
	}
	curRank, known := statusRank[cur]
	if !known { // failed, suppressed: final
		return nil
	}
	switch u.Status {
	case "failed":
		if curRank >= statusRank["delivered"] {
			return nil
		}
		msg := u.Error
		if msg == "" {
			msg = "provider reported the message as failed"
			if u.ErrorCode != "" {
				msg += " (error " + u.ErrorCode + ")"
			}
		}
		_, err = tx.Exec(ctx, `UPDATE outbox SET status = 'failed', error = ? WHERE account_id = ? AND id = ? AND status = ?`, msg, ch.AccountID, id, cur)
	default:
		if statusRank[u.Status] <= curRank {
			return nil
		}
		t := db.Micros(now)
		_, err = tx.Exec(ctx, `UPDATE outbox SET status = ?,
				delivered_at = CASE WHEN ? IN ('delivered', 'read') AND delivered_at IS NULL THEN CAST(? AS BIGINT) ELSE delivered_at END,
				read_at = CASE WHEN ? = 'read' THEN CAST(? AS BIGINT) ELSE read_at END
			WHERE account_id = ? AND id = ? AND status = ?`, u.Status, u.Status, t, u.Status, t, ch.AccountID, id, cur)
	}
	return err
}
