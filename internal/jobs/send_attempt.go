package jobs

import (
	"context"
	"errors"
	"time"

	"github.com/frontdesk/frontdesk/internal/clock"
)

// A message's send attempt, as the outbox remembers it: send_started_at is
// committed before the provider is called, and the provider's answer right
// after. A pending message with send_started_at set is "in doubt": an
// attempt reached out and nobody recorded how it ended (the process died
// mid-call, or the connection broke after the request went out). The next
// attempt waits until that call could surely no longer be under way, and
// then the Sender asks the provider where it can (Twilio) or sends again
// and marks the message possible_duplicate (README, "Channels").

// Start is what a Sender calls right before it hands a message to a
// provider, with the channel it goes through. It commits that the attempt
// started, sharing the worker's group-commit transactions, and returns once
// that is durable; the Sender must not call the provider unless it returned
// nil. ErrNotOurs means another worker took the job over, or the message is
// no longer pending. With unlessOptedOut, the attempt does not start when
// the message's client opted out of the channel (ErrOptedOut), read in the
// transaction that commits the start.
type Start func(ctx context.Context, channelID int64, unlessOptedOut bool) error

// DefaultSendTimeout is how long one provider call may take by default
// (Effects.SendTimeout).
const DefaultSendTimeout = 20 * time.Second

// SendTimeouts is the range of --send-timeout: a second to ten minutes.
var SendTimeouts = clock.Range{Min: time.Second, Max: 10 * time.Minute}

// MaybeSent marks a Sender's error after which the provider may have the
// message all the same (a connection that broke after the request was
// written, a provider that could not be asked about a message in doubt):
// the message stays in doubt for its next attempt.
func MaybeSent(err error) error { return &maybeSentError{err} }

type maybeSentError struct{ error }

func (e *maybeSentError) Unwrap() error { return e.error }

func isMaybeSent(err error) bool {
	var m *maybeSentError
	return errors.As(err, &m)
}

func (e *Effects) sendTimeout() time.Duration {
	if e.SendTimeout > 0 {
		return e.SendTimeout
	}
	return DefaultSendTimeout
}

// settled returns when a message in doubt may be tried again: once the call
// that left it in doubt has surely ended, even in a worker that was only
// slow (its beats late, its job taken over), so that asking the provider
// finds what that call did. Zero when m is not in doubt.
func (e *Effects) settled(m Message) time.Time {
	if m.SendStartedAt == nil {
		return time.Time{}
	}
	return m.SendStartedAt.Add(e.sendTimeout())
}
