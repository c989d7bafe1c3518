package relay

import (
	"context"
	"errors"
	"fmt"

	"github.com/frontdesk/frontdesk/internal/account"
	"github.com/frontdesk/frontdesk/internal/channels"
	"github.com/frontdesk/frontdesk/internal/errs"
	"github.com/frontdesk/frontdesk/internal/jobs"
)

// settleDoubt decides, once, about a message in doubt: an attempt handed it
// to a provider and its answer was never recorded (README, "Channels").
//
//   - The provider can say whether it has it (Twilio): it is asked. A
//     message it has, under an id no other outbox row holds, is found: it
//     is recorded as sent with that id and not sent again. One it does not
//     have is sent as usual.
//   - It cannot (Meta, SMTP, log, or the channel is gone): the message is
//     sent again and marked possible_duplicate (unsure).
//   - The question failed: an error, so the message stays in doubt and the
//     worker asks again later; it is never sent blind.
//
// The provider asked is the one the attempt went through, even when the
// account has routed the kind elsewhere since.
func (d *Deliverer) settleDoubt(ctx context.Context, acct account.Account, m Message, routed channels.Channel) (found *Outcome, unsure bool, err error) {
	ch := routed
	if m.StartedChannel != 0 && m.StartedChannel != routed.ID {
		ch, err = channels.ByID(ctx, d.DB, d.Secrets, acct, m.StartedChannel)
		if errs.Is(err, errs.NotFound) {
			return nil, true, nil
		}
		if err != nil {
			return nil, false, err
		}
	}
	callCtx, cancel := d.callContext(ctx)
	defer cancel()
	results, err := d.Providers.Lookup(callCtx, ch, channels.Outgoing{Kind: m.Kind, To: m.Recipient, Body: m.Body}, *m.Started)
	if errors.Is(err, channels.ErrNoLookup) {
		return nil, true, nil
	}
	if err != nil {
		return nil, false, fmt.Errorf("outbox %d is in doubt, and asking %s whether it has it failed: %w", m.ID, ch.Provider, err)
	}
	for _, r := range results {
		var taken int
		// Two identical texts to one number in a few minutes, both in
		// doubt: each takes a different message of the provider's.
		if err := d.DB.QueryRow(ctx, `SELECT COUNT(*) FROM outbox WHERE account_id = ? AND channel_id = ? AND provider_message_id = ? AND id <> ?`,
			acct.ID, ch.ID, r.ProviderID, m.ID).Scan(&taken); err != nil {
			return nil, false, err
		}
		if taken == 0 {
			return &Outcome{Status: StatusSent, Type: ch.Type, Provider: ch.Provider, ChannelID: ch.ID, ChannelKey: ch.Key,
				ProviderID: r.ProviderID, Segments: r.Segments, Found: true}, false, nil
		}
	}
	return nil, false, nil
}

// callContext bounds one provider call by SendTimeout.
func (d *Deliverer) callContext(ctx context.Context) (context.Context, context.CancelFunc) {
	timeout := d.SendTimeout
	if timeout <= 0 {
		timeout = jobs.DefaultSendTimeout
	}
	return context.WithTimeout(ctx, timeout)
}

// jobError turns Deliver's error into the worker's vocabulary: a refusal
// that retrying cannot fix is permanent; an attempt that may have reached
// its provider, or a message in doubt that could not be settled, stays in
// doubt (jobs.MaybeSent).
func jobError(m Message, out Outcome, err error) error {
	if channels.MaybeSent(err) || (m.Started != nil && !out.Started) {
		err = jobs.MaybeSent(err)
	}
	if !channels.IsRetryable(err) {
		return jobs.Permanent(err)
	}
	return err
}
