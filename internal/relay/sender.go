package relay

import (
	"context"
	"time"

	"github.com/prometheus/client_golang/prometheus"

	"github.com/frontdesk/frontdesk/internal/account"
	"github.com/frontdesk/frontdesk/internal/channels"
	"github.com/frontdesk/frontdesk/internal/chat"
	"github.com/frontdesk/frontdesk/internal/db"
	"github.com/frontdesk/frontdesk/internal/jobs"
	"github.com/frontdesk/frontdesk/internal/phone"
)

// Metrics counts messages per provider and outcome, and the providers'
// status reports.
type Metrics struct {
	sends    *prometheus.CounterVec
	statuses *prometheus.CounterVec
}

// NewMetrics registers the channel counters on reg.
func NewMetrics(reg prometheus.Registerer) *Metrics {
	m := &Metrics{
		sends: prometheus.NewCounterVec(prometheus.CounterOpts{Name: "frontdesk_channel_messages_total",
			Help: "Messages handed to a channel, by provider and outcome (sent, suppressed, deferred, failed, retry; after a crash mid-call: found at the provider, or possible_duplicate when resent where the provider cannot be asked)."}, []string{"provider", "status"}),
		statuses: prometheus.NewCounterVec(prometheus.CounterOpts{Name: "frontdesk_channel_status_callbacks_total",
			Help: "Delivery reports received from providers, by provider and reported status."}, []string{"provider", "status"}),
	}
	if reg != nil {
		reg.MustRegister(m.sends, m.statuses)
	}
	return m
}

func (m *Metrics) send(provider, status string) {
	if m != nil {
		if provider == "" {
			provider = "none"
		}
		m.sends.WithLabelValues(provider, status).Inc()
	}
}

func (m *Metrics) status(provider, status string) {
	if m != nil && status != "" {
		m.statuses.WithLabelValues(provider, status).Inc()
	}
}

// JobSender is the job worker's Sender when channels are configured: the
// outbox's messages go through the account's channels.
type JobSender struct {
	Deliverer *Deliverer
	Metrics   *Metrics
}

// Send implements jobs.Sender. A provider's refusal that retrying cannot fix
// (a 4xx other than 429, an SMTP 5xx) is permanent: the message fails at once.
// A message in doubt (an attempt started and left no answer) is settled with
// the provider first (doubt.go).
func (s JobSender) Send(ctx context.Context, acct account.Account, m jobs.Message, start jobs.Start) (jobs.SendResult, error) {
	msg := Message{ID: m.ID, Kind: m.Kind, Recipient: m.Recipient, ClientID: m.ClientID, Body: m.Body, Start: start, Started: m.SendStartedAt}
	if m.ChannelKey != nil {
		msg.ChannelKey = *m.ChannelKey
	}
	if m.SendStartedAt != nil && m.ChannelID != nil {
		msg.StartedChannel = *m.ChannelID
	}
	out, err := s.Deliverer.Deliver(ctx, acct, msg)
	provider := out.Provider
	if err != nil {
		if channels.IsRetryable(err) {
			s.Metrics.send(provider, "retry")
		} else {
			s.Metrics.send(provider, "failed")
		}
		return jobs.SendResult{}, jobError(msg, out, err)
	}
	status := out.Status
	switch {
	case out.Found:
		status = "found"
	case out.PossibleDuplicate && out.Status == StatusSent:
		status = "possible_duplicate"
	}
	s.Metrics.send(provider, status)
	return jobs.SendResult{Status: out.Status, Channel: out.Type, ChannelID: out.ChannelID, ChannelKey: out.ChannelKey,
		ProviderID: out.ProviderID, Segments: out.Segments, Reason: out.Reason, Until: out.Until,
		PossibleDuplicate: out.PossibleDuplicate && out.Status == StatusSent}, nil
}

// RecordSent implements jobs.Recorder: a message sent through a channel
// joins the customer's conversation on it.
func (s JobSender) RecordSent(ctx context.Context, tx *db.Tx, acct account.Account, m jobs.Message) error {
	if m.ChannelID == nil || !joinsConversation(m.Kind) {
		return nil
	}
	if m.Kind == KindTeamReply {
		return recordTeamReply(ctx, tx, acct, m)
	}
	provider := ""
	if m.ProviderMessageID != nil {
		provider = *m.ProviderMessageID
	}
	return RecordSent(ctx, tx, acct, *m.ChannelID, m.Recipient, m.Body, provider, s.Deliverer.Clock.Now())
}

// RecordSentMany implements jobs.BatchRecorder: RecordSent for many
// messages, in a few statements.
func (s JobSender) RecordSentMany(ctx context.Context, tx *db.Tx, acct account.Account, ms []jobs.Message) error {
	var out []chat.ChannelMessage
	for _, m := range ms {
		if m.ChannelID == nil || !joinsConversation(m.Kind) {
			continue
		}
		if m.Kind == KindTeamReply {
			if err := recordTeamReply(ctx, tx, acct, m); err != nil {
				return err
			}
			continue
		}
		n, err := phone.ParseWithRegion(m.Recipient, "")
		if err != nil {
			continue // an e-mail-only client: there is no phone conversation to join
		}
		provider := ""
		if m.ProviderMessageID != nil {
			provider = *m.ProviderMessageID
		}
		now := s.Deliverer.Clock.Now()
		out = append(out, chat.ChannelMessage{ChannelID: *m.ChannelID, Phone: n.E164(), PhoneNational: n.National, Content: m.Body, ProviderID: provider, At: now})
	}
	return chat.RecordChannelMessages(ctx, tx, acct, out, s.Deliverer.Clock.Now())
}

// QueueAnswer is the Hooks' Answer: the reply goes back through the channel
// the message came in on, as an outbox message of kind channel_reply.
func QueueAnswer(ctx context.Context, tx *db.Tx, r Reply, body string, now time.Time) error {
	key := r.Channel.Key
	var client *int64
	if r.Client != nil {
		client = &r.Client.ID
	}
	return jobs.QueueMessage(ctx, tx, r.Account, now, jobs.Message{Kind: KindReply, Channel: r.Channel.Type, Recipient: r.Phone.E164(),
		ClientID: client, Body: body, ChannelKey: &key, Source: jobs.MessageSource{Type: "channel"}}, now, nil)
}

// joinsConversation reports whether a sent message of kind joins the
// customer's conversation. A patient's verification code does not: it is
// a password, not a message to the team, and whoever asks for one (a
// stranger typing any phone) must not open a conversation.
func joinsConversation(kind string) bool { return kind != jobs.MsgVerificationCode }
