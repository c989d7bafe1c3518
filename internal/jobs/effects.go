package jobs

import (
	"context"
	"database/sql"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"net/url"
	"time"

	"github.com/frontdesk/frontdesk/internal/account"
	"github.com/frontdesk/frontdesk/internal/clock"
	"github.com/frontdesk/frontdesk/internal/contact"
	"github.com/frontdesk/frontdesk/internal/db"
	"github.com/frontdesk/frontdesk/internal/outbound"
	"github.com/frontdesk/frontdesk/internal/secrets"
)

// Effects holds what the handlers need.
type Effects struct {
	Clock  clock.Clock
	Sender Sender
	// Targets decides which addresses webhook deliveries may reach
	// (docs/api-notes.md, "Outbound targets"); the zero value allows only
	// public ones. Deliveries follow no redirect.
	Targets outbound.Policy
	// WebhookTimeout bounds one delivery (default 10 s).
	WebhookTimeout time.Duration
	// WebhookSlots bounds the deliveries under way at once to one host
	// (nil: no bound).
	WebhookSlots *Slots
	http         *http.Client
	// Secrets opens webhook secrets sealed at rest (the stored value, and
	// the copy in a delivery job's payload, stay sealed until the request is
	// signed); nil opens only plaintext secrets.
	Secrets *secrets.Box
	// SendTimeout is the longest one provider call may take (default 20 s):
	// a message whose call was cut off is tried again only after it.
	SendTimeout time.Duration
}

// Handlers returns the worker's handler table.
func (e *Effects) Handlers() map[string]Handler {
	if e.Sender == nil {
		e.Sender = RecordOnly{}
	}
	if e.http == nil {
		timeout := e.WebhookTimeout
		if timeout <= 0 {
			timeout = 10 * time.Second
		}
		e.http = e.Targets.HTTPClient(timeout)
	}
	return map[string]Handler{
		KindStageArrival:    e.stageArrival,
		KindDeliverMessage:  e.deliverMessage,
		KindWebhookDelivery: e.deliverWebhook,
	}
}

type arrival struct {
	CardID     int64 `json:"card_id"`
	ClientID   int64 `json:"client_id"`
	StageID    int64 `json:"stage_id"`
	PipelineID int64 `json:"pipeline_id"`
}

// BatchHandlers returns the set-based form of the handlers that have one.
func (e *Effects) BatchHandlers() map[string]BatchHandler {
	e.Handlers() // defaults
	return map[string]BatchHandler{
		KindStageArrival:   e.stageArrivals,
		KindDeliverMessage: e.deliverMessages,
	}
}

// stageArrival expands a stage's on-arrival automations for one card into
// outbox messages (now and, for sequences, at their delays) and webhook
// calls.
func (e *Effects) stageArrival(ctx context.Context, tx *db.Tx, acct account.Account, j Job) error {
	return e.stageArrivals(ctx, tx, acct, []Job{j})
}

type stageAutomations struct {
	name  string
	autos []Automation
}

// stageArrivals is stageArrival for many cards: one query for their stages,
// one for their clients, and one statement per table for every message and
// delivery job they queue.
func (e *Effects) stageArrivals(ctx context.Context, tx *db.Tx, acct account.Account, js []Job) error {
	arrivals := make([]arrival, len(js))
	stageIDs := make([]int64, 0, len(js))
	clientIDs := make([]int64, 0, len(js))
	seen := map[int64]bool{}
	for i, j := range js {
		if err := json.Unmarshal(j.Payload, &arrivals[i]); err != nil {
			return fmt.Errorf("job %d: payload: %w", j.ID, err)
		}
		if !seen[arrivals[i].StageID] {
			seen[arrivals[i].StageID] = true
			stageIDs = append(stageIDs, arrivals[i].StageID)
		}
		clientIDs = append(clientIDs, arrivals[i].ClientID)
	}
	in, args := db.In(stageIDs)
	rows, err := tx.Query(ctx, `SELECT id, automations, name FROM stages WHERE account_id = ? AND id IN `+in, append([]any{acct.ID}, args...)...)
	if err != nil {
		return err
	}
	stages := map[int64]stageAutomations{}
	for rows.Next() {
		var id int64
		var autos string
		var st stageAutomations
		if err := rows.Scan(&id, &autos, &st.name); err != nil {
			rows.Close()
			return err
		}
		if err := json.Unmarshal([]byte(autos), &st.autos); err != nil {
			rows.Close()
			return fmt.Errorf("stage %d automations: %w", id, err)
		}
		stages[id] = st
	}
	rows.Close()
	if err := rows.Err(); err != nil {
		return err
	}
	clients, err := contact.ByIDs(ctx, tx, acct, clientIDs)
	if err != nil {
		return err
	}
	now := e.Clock.Now()
	var out []queued
	for i, j := range js {
		a := arrivals[i]
		st, ok := stages[a.StageID]
		if !ok {
			return fmt.Errorf("job %d: stage %d: %w", j.ID, a.StageID, sql.ErrNoRows)
		}
		c, ok := clients[a.ClientID]
		if !ok {
			return fmt.Errorf("job %d: client %d: %w", j.ID, a.ClientID, sql.ErrNoRows)
		}
		src := MessageSource{Type: j.SourceType, ID: &a.CardID}
		recipient := c.Phone.E164()
		for _, au := range st.autos {
			switch au.Kind {
			case "message":
				out = append(out, queued{Message{Kind: MsgAutomation, Channel: "whatsapp", Recipient: recipient, ClientID: &c.ID,
					Body: Render(au.Template, c), Source: src}, now, nil})
			case "sequence":
				at := now
				for _, step := range au.Steps {
					d, _ := clock.ParseDuration(step.After)
					at = at.Add(d)
					out = append(out, queued{Message{Kind: MsgSequence, Channel: "whatsapp", Recipient: recipient, ClientID: &c.ID,
						Body: Render(step.Template, c), Source: src}, at, nil})
				}
			case "webhook":
				body, _ := json.Marshal(map[string]any{
					"id": fmt.Sprintf("evt_card_%d_%d", a.CardID, j.ID), "type": "pipeline.client_placed", "created_at": clock.Format(now),
					"data": map[string]any{"card_id": a.CardID, "pipeline_id": a.PipelineID, "stage_id": a.StageID, "stage_name": st.name,
						"client": c.Summary()},
				})
				out = append(out, queued{Message{Kind: MsgWebhook, Channel: "webhook", Recipient: au.URL, ClientID: &c.ID,
					Body: string(body), Source: src}, now, map[string]any{"secret": au.Secret}})
			}
		}
	}
	return queueMessages(ctx, tx, acct, now, out)
}

// Calls returns the effects that run outside the database.
func (e *Effects) Calls() map[string]Call {
	e.Handlers() // defaults
	return map[string]Call{
		KindDeliverMessage:  e.sendMessage,
		KindWebhookDelivery: e.postWebhook,
	}
}

type delivery struct {
	OutboxID int64 `json:"outbox_id"`
	// Secret is the webhook secret as stored: sealed when the server has a
	// key, so job payloads hold no plaintext either.
	Secret string `json:"secret"`
}

// pending loads the outbox message of a delivery job; nil when it left the
// pending state already (sent by an attempt whose completion was lost,
// suppressed, failed).
func pending(ctx context.Context, q db.Querier, acct account.Account, j Job) (*Message, delivery, error) {
	m, p, err := outboxOf(ctx, q, acct, j)
	if err != nil || m.Status != "pending" {
		return nil, p, err
	}
	return &m, p, nil
}

func outboxOf(ctx context.Context, q db.Querier, acct account.Account, j Job) (Message, delivery, error) {
	var p delivery
	if err := json.Unmarshal(j.Payload, &p); err != nil {
		return Message{}, p, err
	}
	if m, ok := prefetched(ctx, p.OutboxID); ok {
		return m, p, nil
	}
	m, err := loadMessage(ctx, q, acct, p.OutboxID)
	return m, p, err
}

// sendMessage hands a pending message to the Sender and returns its answer
// as the Record the worker commits at once (outside the job's transaction):
// a provider that accepted the message is never asked again, whatever
// happens next. Before the provider is called, the Sender's start commits
// that the attempt began (send_attempt.go).
func (e *Effects) sendMessage(ctx context.Context, store *db.DB, commit Commit, acct account.Account, j Job) (Record, error) {
	m, _, err := pending(ctx, store, acct, j)
	if err != nil || m == nil {
		return nil, err
	}
	// A reminder claimed before its appointment was declined or cancelled
	// (the cancelling transaction only withdraws pending jobs) stops here.
	if reason, err := reminderWithdrawn(ctx, store, acct, *m); err != nil || reason != "" {
		if err != nil {
			return nil, err
		}
		return RecordFunc(func(ctx context.Context, q db.Querier) error {
			_, err := q.Exec(ctx, `UPDATE outbox SET status = 'cancelled', error = ? WHERE account_id = ? AND id = ? AND status = 'pending'`, reason, acct.ID, m.ID)
			return err
		}), nil
	}
	if until := e.settled(*m); e.Clock.Now().Before(until) {
		return nil, &Deferred{Until: until}
	}
	start := func(ctx context.Context, channelID int64, unlessOptedOut bool) error {
		mark := startMark{acct: acct, id: m.ID, at: e.Clock.Now(), channel: channelID}
		if unlessOptedOut && m.ClientID != nil {
			mark.client = *m.ClientID
		}
		return commit(ctx, mark)
	}
	d, err := e.Sender.Send(ctx, acct, *m, start)
	if errors.Is(err, ErrNotOurs) {
		return nil, err
	}
	if err != nil {
		var perm *permanentError
		permanent, inDoubt := errors.As(err, &perm), isMaybeSent(err)
		return RecordFunc(func(ctx context.Context, q db.Querier) error {
			return recordFailure(ctx, q, acct.ID, m.ID, err, permanent, inDoubt)
		}), err
	}
	rec := deliveryRecord(acct.ID, m.ID, d, e.Clock.Now())
	if d.Status == DeliveryDeferred {
		return rec, &Deferred{Until: d.Until}
	}
	return rec, nil
}

func (e *Effects) postWebhook(ctx context.Context, store *db.DB, _ Commit, acct account.Account, j Job) (Record, error) {
	m, p, err := pending(ctx, store, acct, j)
	if err != nil || m == nil {
		return nil, err
	}
	countAttempt := RecordFunc(func(ctx context.Context, q db.Querier) error {
		_, err := q.Exec(ctx, `UPDATE outbox SET attempts = attempts + 1 WHERE account_id = ? AND id = ?`, acct.ID, m.ID)
		return err
	})
	// A secret that does not open (sealed under another key, or no key)
	// fails this attempt with the reason, never the value; the delivery is
	// retried, so fixing FRONTDESK_SECRET_KEY lets it through.
	secret, err := e.Secrets.Open(p.Secret)
	if err != nil {
		return countAttempt, fmt.Errorf("webhook delivery %d: cannot open its signing secret: %w", m.ID, err)
	}
	release, err := e.webhookSlot(ctx, m.Recipient)
	if err != nil {
		return countAttempt, err
	}
	defer release()
	if err := postWebhookRequest(ctx, e.http, m.Recipient, secret, []byte(m.Body), e.Clock.Now()); err != nil {
		if errors.Is(err, outbound.ErrNotAllowed) {
			return countAttempt, Permanent(err) // only another URL fixes it
		}
		return countAttempt, err
	}
	return nil, nil
}

// webhookSlot waits for a slot of target's host (WebhookSlots).
func (e *Effects) webhookSlot(ctx context.Context, target string) (release func(), err error) {
	if e.WebhookSlots == nil {
		return func() {}, nil
	}
	host := target
	if u, err := url.Parse(target); err == nil && u.Host != "" {
		host = u.Host
	}
	return e.WebhookSlots.Acquire(ctx, "webhook/"+host)
}

// deliverMessage completes a message its Call sent: it is billed (one
// message, and its SMS segments) and joins the customer's conversation, in
// the transaction that completes the job, so exactly once. A suppressed
// message is neither.
func (e *Effects) deliverMessage(ctx context.Context, tx *db.Tx, acct account.Account, j Job) error {
	return e.deliverMessages(ctx, tx, acct, []Job{j})
}

// deliverMessages is deliverMessage for many jobs: one query loads their
// messages and one statement per metric bills them.
func (e *Effects) deliverMessages(ctx context.Context, tx *db.Tx, acct account.Account, js []Job) error {
	ids := make([]int64, len(js))
	for i, j := range js {
		var p delivery
		if err := json.Unmarshal(j.Payload, &p); err != nil {
			return fmt.Errorf("job %d: payload: %w", j.ID, err)
		}
		ids[i] = p.OutboxID
	}
	in, args := db.In(ids)
	rows, err := tx.Query(ctx, selectMessage+` FROM outbox WHERE account_id = ? AND id IN `+in, append([]any{acct.ID}, args...)...)
	if err != nil {
		return err
	}
	msgs := map[int64]Message{}
	for rows.Next() {
		m, err := scanMessage(rows)
		if err != nil {
			rows.Close()
			return err
		}
		msgs[m.ID] = m
	}
	rows.Close()
	if err := rows.Err(); err != nil {
		return err
	}
	var sent, segments int
	var recorded []Message
	for i, id := range ids {
		m, ok := msgs[id]
		if !ok {
			return fmt.Errorf("job %d: message %d: %w", js[i].ID, id, sql.ErrNoRows)
		}
		switch m.Status {
		case "sent", "delivered", "read":
		default:
			continue
		}
		sent++
		if m.Segments != nil {
			segments += *m.Segments
		}
		recorded = append(recorded, m)
	}
	now := e.Clock.Now()
	if sent > 0 {
		if err := countUsage(ctx, tx, acct, "messages_sent", now, sent); err != nil {
			return err
		}
	}
	if segments > 0 {
		if err := countUsage(ctx, tx, acct, "sms_segments", now, segments); err != nil {
			return err
		}
	}
	if r, ok := e.Sender.(BatchRecorder); ok && len(recorded) > 1 {
		return r.RecordSentMany(ctx, tx, acct, recorded)
	}
	if r, ok := e.Sender.(Recorder); ok {
		for _, m := range recorded {
			if err := r.RecordSent(ctx, tx, acct, m); err != nil {
				return err
			}
		}
	}
	return nil
}

// deliverWebhook records a webhook call its Call made.
func (e *Effects) deliverWebhook(ctx context.Context, tx *db.Tx, acct account.Account, j Job) error {
	m, _, err := pending(ctx, tx, acct, j)
	if err != nil || m == nil {
		return err
	}
	return markSent(ctx, tx, acct.ID, m.ID, e.Clock.Now())
}

// countUsage adds n to an account's billed usage for the month.
func countUsage(ctx context.Context, tx *db.Tx, acct account.Account, metric string, now time.Time, n int) error {
	period := now.UTC().Format("2006-01")
	_, err := tx.Exec(ctx, `INSERT INTO usage_counters (account_id, metric, period, count) VALUES (?, ?, ?, ?)
		ON CONFLICT (account_id, metric, period) DO UPDATE SET count = usage_counters.count + excluded.count`, acct.ID, metric, period, n)
	return err
}

// Usage returns an account's count of a metric in a month ("2026-11").
func Usage(ctx context.Context, q db.Querier, acct account.Account, metric, period string) (int, error) {
	var n int
	err := q.QueryRow(ctx, `SELECT count FROM usage_counters WHERE account_id = ? AND metric = ? AND period = ?`, acct.ID, metric, period).Scan(&n)
	if err == sql.ErrNoRows {
		return 0, nil
	}
	return n, err
}
