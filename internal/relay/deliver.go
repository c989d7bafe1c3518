// Package relay moves messages between Frontdesk and the outside world:
// outbox messages through the account's channels (the job worker's Sender),
// and the providers' callbacks back in — delivery reports onto the outbox,
// patients' messages into their conversation, STOP/START into consent, and
// yes/no replies to the areas that asked (docs/contract.md, Replies that act).
package relay

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/frontdesk/frontdesk/internal/account"
	"github.com/frontdesk/frontdesk/internal/channels"
	"github.com/frontdesk/frontdesk/internal/chat"
	"github.com/frontdesk/frontdesk/internal/clock"
	"github.com/frontdesk/frontdesk/internal/contact"
	"github.com/frontdesk/frontdesk/internal/db"
	"github.com/frontdesk/frontdesk/internal/errs"
	"github.com/frontdesk/frontdesk/internal/jobs"
	"github.com/frontdesk/frontdesk/internal/phone"
	"github.com/frontdesk/frontdesk/internal/secrets"
)

// KindReply is the outbox kind of the answers Frontdesk sends to a reply
// (opt-out and opt-in acknowledgements, confirmation answers). It goes back
// through the channel the reply came in on and is never suppressed by an
// opt-out: acknowledging STOP is the one message an opted-out client gets.
const KindReply = "channel_reply"

// Message is an outbox message to deliver.
type Message struct {
	ID         int64
	Kind       string
	Recipient  string // E.164
	ClientID   *int64
	Body       string
	ChannelKey string // forced channel (replies); "" routes by kind
	// Started is set when the message is in doubt: an attempt through
	// channel StartedChannel began then and its answer was never recorded
	// (doubt.go).
	Started        *time.Time
	StartedChannel int64
	// Start commits that an attempt through a channel begins (jobs.Start),
	// unless the client opted out of it (jobs.ErrOptedOut); the provider is
	// called only when it returns nil. nil: nothing to commit, and the
	// opt-out is read on its own.
	Start jobs.Start
}

// Outcome says what became of a message.
type Outcome struct {
	Status     string // StatusSent, StatusSuppressed or StatusDeferred
	Type       string // the channel's type
	Provider   string // the channel's provider ("" when there is no channel)
	ChannelID  int64
	ChannelKey string
	ProviderID string
	Segments   int
	Reason     string    // why it was suppressed
	Until      time.Time // when a deferred message is due again
	// Started: this call began an attempt at the provider (Start returned
	// nil), so its error, if any, is that attempt's.
	Started bool
	// Found: the message was in doubt and the provider had it already
	// (ProviderID is its id there); PossibleDuplicate: it was in doubt, the
	// provider could not be asked, and it was sent again.
	Found, PossibleDuplicate bool
}

// Outcome statuses.
const (
	StatusSent       = "sent"
	StatusSuppressed = "suppressed"
	StatusDeferred   = "deferred"
)

// Deliverer sends outbox messages through the account's channels.
type Deliverer struct {
	DB        *db.DB
	Secrets   *secrets.Box
	Clock     clock.Clock
	Providers *channels.Providers
	// PublicURL is the base URL providers call back (FRONTDESK_PUBLIC_URL);
	// without it Twilio is not asked for status callbacks.
	PublicURL string
	// SendTimeout bounds each provider call, lookups included (default
	// jobs.DefaultSendTimeout): the worker waits that long after a call
	// was cut off before it asks again (jobs/send_attempt.go).
	SendTimeout time.Duration
	// Slots bounds the messages handed to one channel's provider at once
	// (nil: no bound). The log channel, which has no provider, is not
	// bounded by it.
	Slots *jobs.Slots
}

// settingsKey and channelKey name what Deliver memoises per round.
type (
	settingsKey struct{ account int64 }
	channelKey  struct {
		account int64
		key     string
	}
)

// Deliver routes m to its channel and sends it, unless the client opted out
// of that channel, there is no channel or no address (suppressed), or quiet
// hours hold it (deferred). A provider's refusal comes back as an *channels.Error.
// A message in doubt is first looked for at the provider it may have
// reached (doubt.go): found there, it is not sent again.
func (d *Deliverer) Deliver(ctx context.Context, acct account.Account, m Message) (Outcome, error) {
	// Within one round of the job worker, the account's settings and
	// channels are read once for all its messages (jobs.Memo).
	settings, err := jobs.Memo(ctx, settingsKey{acct.ID}, func() (channels.Settings, error) {
		return channels.LoadSettings(ctx, d.DB, acct)
	})
	if err != nil {
		return Outcome{}, err
	}
	key := m.ChannelKey
	if key == "" {
		key = settings.ChannelFor(m.Kind)
	}
	if key == "" {
		return Outcome{Status: StatusSuppressed, Reason: fmt.Sprintf("no channel: the account routes no channel for %s and has no default_channel", m.Kind)}, nil
	}
	ch, err := jobs.Memo(ctx, channelKey{acct.ID, key}, func() (channels.Channel, error) {
		return channels.ByKey(ctx, d.DB, d.Secrets, acct, key)
	})
	if errs.Is(err, errs.NotFound) {
		return Outcome{Status: StatusSuppressed, ChannelKey: key, Reason: fmt.Sprintf("no channel %q in this account", key)}, nil
	}
	if err != nil {
		return Outcome{}, err
	}
	out := Outcome{ChannelID: ch.ID, ChannelKey: ch.Key, Type: ch.Type, Provider: ch.Provider}
	release, err := d.hold(ctx, ch)
	if err != nil {
		return out, err
	}
	defer release()
	if m.Started != nil {
		found, unsure, err := d.settleDoubt(ctx, acct, m, ch)
		if err != nil || found != nil {
			if found != nil {
				return *found, nil
			}
			return out, err
		}
		out.PossibleDuplicate = unsure
	}
	if !ch.Active {
		out.Status, out.Reason = StatusSuppressed, fmt.Sprintf("channel %q is inactive", ch.Key)
		return out, nil
	}
	to := m.Recipient
	if ch.Type == channels.TypeEmail {
		to = ""
		if m.ClientID != nil {
			c, err := contact.Get(ctx, d.DB, acct, *m.ClientID)
			if err != nil && !errs.Is(err, errs.NotFound) {
				return Outcome{}, err
			}
			to = c.Email
		}
	}
	if strings.TrimSpace(to) == "" {
		out.Status, out.Reason = StatusSuppressed, "no recipient: the client has no "+map[bool]string{true: "e-mail address", false: "phone"}[ch.Type == channels.TypeEmail]
		return out, nil
	}
	// An opted-out client's message is suppressed (never a reply: the
	// acknowledgement of STOP is one). The opt-out is read in the
	// transaction that commits the attempt's start, set-based with the
	// other starts of the worker's group commit; without a Start, or when
	// quiet hours hold the message, on its own.
	optOut := m.ClientID != nil && m.Kind != KindReply
	suppressOptedOut := func() Outcome {
		out.Status, out.Reason = StatusSuppressed, fmt.Sprintf("opted out: the client replied STOP on channel %q", ch.Key)
		return out
	}
	until, quiet := settings.QuietUntil(m.Kind, d.Clock.Now(), acct.Location())
	if optOut && (m.Start == nil || quiet) {
		opted, err := channels.OptedOut(ctx, d.DB, acct, *m.ClientID, ch.ID)
		if err != nil {
			return Outcome{}, err
		}
		if opted {
			return suppressOptedOut(), nil
		}
	}
	if quiet {
		out.Status, out.Until = StatusDeferred, until
		return out, nil
	}
	og := channels.Outgoing{Kind: m.Kind, To: to, Body: m.Body}
	if ch.Provider == channels.ProviderTwilio && d.PublicURL != "" {
		og.StatusCallback = strings.TrimRight(d.PublicURL, "/") + "/hooks/twilio/" + ch.UUID + "/status"
	}
	if m.Start != nil {
		err := m.Start(ctx, ch.ID, optOut)
		if errors.Is(err, jobs.ErrOptedOut) {
			return suppressOptedOut(), nil
		}
		if err != nil {
			return out, err
		}
	}
	out.Started = true
	callCtx, cancel := d.callContext(ctx)
	defer cancel()
	res, err := d.Providers.Send(callCtx, ch, og)
	if err != nil {
		return out, err
	}
	out.Status, out.ProviderID, out.Segments = StatusSent, res.ProviderID, res.Segments
	return out, nil
}

// hold waits for a slot of ch's provider (Slots), held until the message's
// provider calls are over.
func (d *Deliverer) hold(ctx context.Context, ch channels.Channel) (release func(), err error) {
	if d.Slots == nil || ch.Provider == channels.ProviderLog {
		return func() {}, nil
	}
	return d.Slots.Acquire(ctx, fmt.Sprintf("channel/%d", ch.ID))
}

// RecordSent appends a message Frontdesk sent to the customer's conversation
// on that channel, as a business_app message (docs/contract.md, Provider callbacks), in the
// transaction that marks it delivered to the provider.
func RecordSent(ctx context.Context, tx *db.Tx, acct account.Account, channelID int64, recipient, body, providerID string, now time.Time) error {
	n, err := phone.ParseWithRegion(recipient, "")
	if err != nil {
		return nil // an e-mail-only client: there is no phone conversation to join
	}
	_, _, _, err = chat.RecordChannelMessage(ctx, tx, acct, chat.ChannelMessage{
		ChannelID: channelID, Phone: n.E164(), PhoneNational: n.National, Content: body, ProviderID: providerID, At: now,
	}, now)
	return err
}
