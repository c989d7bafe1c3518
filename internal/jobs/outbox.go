package jobs

import (
	"bytes"
	"context"
	"crypto/hmac"
	"crypto/sha256"
	"database/sql"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"net/http"
	"strconv"
	"strings"
	"time"

	"github.com/frontdesk/frontdesk/internal/account"
	"github.com/frontdesk/frontdesk/internal/channels"
	"github.com/frontdesk/frontdesk/internal/contact"
	"github.com/frontdesk/frontdesk/internal/db"
	"github.com/frontdesk/frontdesk/internal/outbound"
)

// Outbox message kinds (docs/contract.md, Internal effects).
const (
	MsgAutomation   = "automation_message"
	MsgSequence     = "sequence_message"
	MsgWebhook      = "webhook"
	MsgConfirmation = "booking_confirmation"
	MsgReminder     = "booking_reminder"
	MsgSeatOffer    = "seat_offer"
	// MsgVerificationCode is a patient's one-time code (docs/patient-api.md).
	MsgVerificationCode = "verification_code"
)

// Message is an outbound message or webhook call recorded in the outbox.
type Message struct {
	ID          int64         `json:"id"`
	Kind        string        `json:"kind"`
	Channel     string        `json:"channel"`
	Recipient   string        `json:"recipient"`
	ClientID    *int64        `json:"client_id"`
	Body        string        `json:"body"`
	Status      string        `json:"status"`
	Attempts    int           `json:"attempts"`
	ScheduledAt time.Time     `json:"scheduled_at"`
	CreatedAt   time.Time     `json:"created_at"`
	SentAt      *time.Time    `json:"sent_at"`
	Source      MessageSource `json:"source"`
	// Delivery through a channel (docs/contract.md, Channels).
	ChannelKey        *string    `json:"channel_key"`
	ProviderMessageID *string    `json:"provider_message_id"`
	Error             *string    `json:"error"`
	DeliveredAt       *time.Time `json:"delivered_at"`
	Segments          *int       `json:"segments"`
	// PossibleDuplicate: an earlier attempt was cut off mid-call (a crash)
	// at a provider that cannot say whether it got the message, and this
	// one sent it again (docs/api-notes.md).
	PossibleDuplicate bool `json:"possible_duplicate"`
	// SendStartedAt is when the last attempt to hand the message to its
	// provider started; a pending message with it set is in doubt.
	SendStartedAt *time.Time     `json:"-"`
	ChannelID     *int64         `json:"-"`
	Secret        string         `json:"-"`
	Extra         map[string]any `json:"-"`
}

// MessageSource says what produced a message.
type MessageSource struct {
	Type string `json:"type"`
	ID   *int64 `json:"id"`
}

// Sender delivers a message through the account's channel (package
// channels implements it). It runs outside any transaction; the worker
// records the SendResult on the outbox row. Right before it hands the
// message to a provider it calls start, and only calls the provider when
// start returned nil (send_attempt.go).
type Sender interface {
	Send(ctx context.Context, acct account.Account, m Message, start Start) (SendResult, error)
}

// Recorder is an optional part of a Sender: it runs in the transaction that
// completes a sent message's job (the message joins the customer's
// conversation), so it happens exactly once per message.
type Recorder interface {
	RecordSent(ctx context.Context, tx *db.Tx, acct account.Account, m Message) error
}

// BatchRecorder is an optional part of a Recorder: RecordSent for the
// messages of a whole batch of jobs at once.
type BatchRecorder interface {
	RecordSentMany(ctx context.Context, tx *db.Tx, acct account.Account, ms []Message) error
}

// Delivery statuses a Sender reports.
const (
	DeliverySent       = "sent"
	DeliverySuppressed = "suppressed"
	DeliveryDeferred   = "deferred"
)

// SendResult is what became of one message.
type SendResult struct {
	Status     string
	Channel    string // the channel's type (sms, whatsapp, email, log)
	ChannelID  int64
	ChannelKey string
	ProviderID string
	Segments   int
	Reason     string    // why a message was suppressed
	Until      time.Time // when a deferred message is due again
	// PossibleDuplicate: the message was in doubt, its provider could not
	// be asked, and it was sent again.
	PossibleDuplicate bool
}

// RecordOnly is the Sender of tests and of servers without channels: the
// outbox row is the delivery.
type RecordOnly struct{}

// Send implements Sender.
func (RecordOnly) Send(context.Context, account.Account, Message, Start) (SendResult, error) {
	return SendResult{Status: DeliverySent}, nil
}

// Permanent marks a send error that retrying cannot fix (a provider's 4xx):
// the message fails at once.
func Permanent(err error) error { return &permanentError{err} }

type permanentError struct{ error }

func (e *permanentError) Unwrap() error { return e.error }

// Deferred asks the worker to run the job again at Until without counting
// an attempt (quiet hours).
type Deferred struct{ Until time.Time }

func (d *Deferred) Error() string { return "deferred until " + d.Until.Format(time.RFC3339) }

// QueueMessage writes one outbox message and the job that delivers it at
// scheduledAt, in tx (queueMessages: inside quiet hours that hold the
// message, the job is first due when they end).
func QueueMessage(ctx context.Context, tx *db.Tx, acct account.Account, now time.Time, m Message, scheduledAt time.Time, payload map[string]any) error {
	return queueMessages(ctx, tx, acct, now, []queued{{m: m, scheduledAt: scheduledAt, payload: payload}})
}

// queued is one message for queueMessages.
type queued struct {
	m           Message
	scheduledAt time.Time
	payload     map[string]any // of its delivery job, besides outbox_id
}

// queueMessages is QueueMessage for many messages: one statement writes the
// outbox rows and one their delivery jobs.
func queueMessages(ctx context.Context, tx *db.Tx, acct account.Account, now time.Time, qs []queued) error {
	if len(qs) == 0 {
		return nil
	}
	ids, err := tx.Dialect().ReserveIDs(ctx, tx, "outbox", len(qs))
	if err != nil {
		return err
	}
	rows := make([][]any, len(qs))
	news := make([]New, len(qs))
	var settings *channels.Settings // loaded once, when a message may be held
	for i, q := range qs {
		m, at := q.m, q.scheduledAt
		if at.IsZero() {
			at = now
		}
		// A message due now that quiet hours hold is first tried when they
		// end: trying it now would only defer it (the sender still checks
		// at every attempt).
		runAt := at
		if !at.After(now) && channels.HeldKind(m.Kind) {
			if settings == nil {
				s, err := channels.LoadSettings(ctx, tx, acct)
				if err != nil {
					return err
				}
				settings = &s
			}
			if until, inside := settings.QuietUntil(m.Kind, now, acct.Location()); inside {
				runAt = until
			}
		}
		var channelKey any
		if m.ChannelKey != nil {
			channelKey = *m.ChannelKey
		}
		rows[i] = []any{ids[i], acct.ID, m.Kind, m.Channel, m.Recipient, nullID(m.ClientID), m.Body, "pending", db.Micros(at), db.Micros(now),
			m.Source.Type, nullID(m.Source.ID), channelKey}
		kind := KindDeliverMessage
		if m.Kind == MsgWebhook {
			kind = KindWebhookDelivery
		}
		payload := map[string]any{}
		for k, v := range q.payload {
			payload[k] = v
		}
		payload["outbox_id"] = ids[i]
		news[i] = New{Kind: kind, Payload: payload, RunAt: runAt, SourceType: m.Source.Type, SourceID: derefID(m.Source.ID), OutboxID: ids[i]}
	}
	const head = `INSERT INTO outbox (id, account_id, kind, channel, recipient, client_id, body, status, scheduled_at, created_at, source_type, source_id, channel_key)`
	if err := db.InsertMany(ctx, tx, head, rows, ""); err != nil {
		return fmt.Errorf("queue messages: %w", err)
	}
	return Enqueue(ctx, tx, acct, now, news...)
}

func nullID(p *int64) any {
	if p == nil {
		return nil
	}
	return *p
}

func derefID(p *int64) int64 {
	if p == nil {
		return 0
	}
	return *p
}

// ListOutbox lists an account's outbox, newest first.
func ListOutbox(ctx context.Context, q db.Querier, acct account.Account, limit int) ([]Message, error) {
	return ListOutboxFiltered(ctx, q, acct, OutboxFilter{}, limit)
}

const selectMessage = `SELECT id, kind, channel, recipient, client_id, body, status, attempts, scheduled_at, created_at, sent_at, source_type, source_id,
	channel_key, provider_message_id, error, delivered_at, segments, channel_id, send_started_at, possible_duplicate`

func scanMessage(row interface{ Scan(...any) error }) (Message, error) {
	var (
		m                         Message
		client, src, sent         sql.NullInt64
		scheduled, created        int64
		key, provider, failure    sql.NullString
		delivered, segments, chID sql.NullInt64
		started                   sql.NullInt64
	)
	if err := row.Scan(&m.ID, &m.Kind, &m.Channel, &m.Recipient, &client, &m.Body, &m.Status, &m.Attempts, &scheduled, &created, &sent, &m.Source.Type, &src,
		&key, &provider, &failure, &delivered, &segments, &chID, &started, &m.PossibleDuplicate); err != nil {
		return m, err
	}
	if started.Valid {
		t := db.Time(started.Int64)
		m.SendStartedAt = &t
	}
	m.ChannelKey, m.ProviderMessageID, m.Error = nullString(key), nullString(provider), nullString(failure)
	if delivered.Valid {
		t := db.Time(delivered.Int64)
		m.DeliveredAt = &t
	}
	if segments.Valid {
		n := int(segments.Int64)
		m.Segments = &n
	}
	if chID.Valid {
		m.ChannelID = &chID.Int64
	}
	if client.Valid {
		m.ClientID = &client.Int64
	}
	if src.Valid {
		m.Source.ID = &src.Int64
	}
	m.ScheduledAt, m.CreatedAt = db.Time(scheduled), db.Time(created)
	if sent.Valid {
		t := db.Time(sent.Int64)
		m.SentAt = &t
	}
	return m, nil
}

func nullString(v sql.NullString) *string {
	if !v.Valid {
		return nil
	}
	return &v.String
}

func loadMessage(ctx context.Context, q db.Querier, acct account.Account, id int64) (Message, error) {
	return scanMessage(q.QueryRow(ctx, selectMessage+` FROM outbox WHERE account_id = ? AND id = ?`, acct.ID, id))
}

func markSent(ctx context.Context, tx *db.Tx, acctID, id int64, now time.Time) error {
	_, err := tx.Exec(ctx, `UPDATE outbox SET status = 'sent', attempts = attempts + 1, sent_at = ? WHERE account_id = ? AND id = ?`, db.Micros(now), acctID, id)
	return err
}

// deliveryRecord is the Record of a Sender's answer, written on the outbox
// row outside the job's transaction and right after the provider answered,
// so that a retry of the job never sends the message twice. Only a pending
// row changes.
func deliveryRecord(acctID, id int64, d SendResult, now time.Time) Record {
	if d.Status != DeliverySuppressed && d.Status != DeliveryDeferred {
		return sentMark{acctID: acctID, id: id, d: d, at: now}
	}
	var key, channel, chID any
	if d.ChannelKey != "" {
		key = d.ChannelKey
	}
	if d.Channel != "" {
		channel = d.Channel
	}
	if d.ChannelID != 0 {
		chID = d.ChannelID
	}
	return RecordFunc(func(ctx context.Context, q db.Querier) error {
		if d.Status == DeliveryDeferred {
			_, err := q.Exec(ctx, `UPDATE outbox SET scheduled_at = ? WHERE account_id = ? AND id = ? AND status = 'pending'`, db.Micros(d.Until), acctID, id)
			return err
		}
		_, err := q.Exec(ctx, `UPDATE outbox SET status = 'suppressed', error = ?, channel_key = COALESCE(?, channel_key),
			channel = COALESCE(?, channel), channel_id = COALESCE(?, channel_id) WHERE account_id = ? AND id = ? AND status = 'pending'`, d.Reason, key, channel, chID, acctID, id)
		return err
	})
}

// recordFailure counts a failed attempt and keeps the provider's error;
// a permanent failure also fails the message. Unless the provider may have
// the message anyway (inDoubt), the attempt's start is forgotten: the next
// attempt sends without asking.
func recordFailure(ctx context.Context, q db.Querier, acctID, id int64, cause error, permanent, inDoubt bool) error {
	msg := cause.Error()
	if len(msg) > 1000 {
		msg = msg[:1000]
	}
	status := "pending"
	if permanent {
		status = "failed"
	}
	_, err := q.Exec(ctx, `UPDATE outbox SET attempts = attempts + 1, error = ?, status = ?,
		send_started_at = CASE WHEN ? THEN send_started_at ELSE NULL END WHERE account_id = ? AND id = ? AND status = 'pending'`, msg, status, inDoubt, acctID, id)
	return err
}

// Render fills a template's {placeholders} with the client's fields and
// custom data ({first_name}, {last_name}, {name}, {phone}, {email},
// {company}, {plan} for data.plan). Unknown placeholders stay as written.
func Render(tmpl string, c contact.Client) string {
	vals := map[string]string{
		"first_name": c.FirstName, "last_name": c.LastName, "name": c.Name(),
		"phone": c.Phone.E164(), "email": c.Email, "company": c.Company,
	}
	for k, v := range c.Data {
		if _, taken := vals[k]; !taken {
			vals[k] = fmt.Sprint(v)
		}
	}
	var b strings.Builder
	for {
		open := strings.IndexByte(tmpl, '{')
		if open < 0 {
			b.WriteString(tmpl)
			return b.String()
		}
		end := strings.IndexByte(tmpl[open:], '}')
		if end < 0 {
			b.WriteString(tmpl)
			return b.String()
		}
		key := tmpl[open+1 : open+end]
		b.WriteString(tmpl[:open])
		if v, ok := vals[key]; ok {
			b.WriteString(v)
		} else {
			b.WriteString(tmpl[open : open+end+1])
		}
		tmpl = tmpl[open+end+1:]
	}
}

// Sign returns the Frontdesk-Signature header value for body at t:
// "t=<unix>,v1=<hex HMAC-SHA256 of "<unix>.<body>">".
func Sign(secret string, body []byte, t time.Time) string {
	ts := strconv.FormatInt(t.Unix(), 10)
	mac := hmac.New(sha256.New, []byte(secret))
	mac.Write([]byte(ts + "."))
	mac.Write(body)
	return "t=" + ts + ",v1=" + hex.EncodeToString(mac.Sum(nil))
}

// postWebhookRequest delivers a signed JSON body; anything but a 2xx is an
// error (retried with backoff by the worker), a redirect included. The
// error says only what a user may see in the delivery log: the answer's
// status, or whether the target could be reached (outbound.Describe) —
// never the network's words, nor the URL (the log shows it).
func postWebhookRequest(ctx context.Context, client *http.Client, url, secret string, body []byte, now time.Time) error {
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, url, bytes.NewReader(body))
	if err != nil {
		return fmt.Errorf("invalid webhook URL")
	}
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("User-Agent", "Frontdesk-Webhooks/1")
	if secret != "" {
		req.Header.Set("Frontdesk-Signature", Sign(secret, body, now))
	}
	resp, err := client.Do(req)
	if err != nil {
		if errors.Is(err, outbound.ErrNotAllowed) {
			return outbound.ErrNotAllowed
		}
		return errors.New(outbound.Describe(err))
	}
	defer resp.Body.Close()
	io.Copy(io.Discard, io.LimitReader(resp.Body, 64<<10))
	if resp.StatusCode < 200 || resp.StatusCode > 299 {
		if resp.StatusCode >= 300 && resp.StatusCode < 400 {
			return fmt.Errorf("answered HTTP %d (redirects are not followed)", resp.StatusCode)
		}
		return fmt.Errorf("answered HTTP %d", resp.StatusCode)
	}
	return nil
}
