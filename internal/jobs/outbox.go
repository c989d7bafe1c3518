package jobs

import (
	"bytes"
	"context"
	"crypto/hmac"
	"crypto/sha256"
	"database/sql"
	"encoding/hex"
	"fmt"
	"github.com/frontdesk/frontdesk/internal/clock"
	"io"
	"net/http"
	"strconv"
	"strings"
	"time"

	"github.com/frontdesk/frontdesk/internal/account"
	"github.com/frontdesk/frontdesk/internal/contact"
	"github.com/frontdesk/frontdesk/internal/db"
)

// Outbox message kinds (decisions.md §7).
const (
	MsgAutomation   = "automation_message"
	MsgSequence     = "sequence_message"
	MsgWebhook      = "webhook"
	MsgConfirmation = "booking_confirmation"
	MsgReminder     = "booking_reminder"
	MsgSeatOffer    = "seat_offer"
)

// Message is an outbound message or webhook call recorded in the outbox.
type Message struct {
	ID          int64          `json:"id"`
	Kind        string         `json:"kind"`
	Channel     string         `json:"channel"`
	Recipient   string         `json:"recipient"`
	ClientID    *int64         `json:"client_id"`
	Body        string         `json:"body"`
	Status      string         `json:"status"`
	Attempts    int            `json:"attempts"`
	ScheduledAt string         `json:"scheduled_at"`
	CreatedAt   string         `json:"created_at"`
	SentAt      *string        `json:"sent_at"`
	Source      MessageSource  `json:"source"`
	Secret      string         `json:"-"`
	Extra       map[string]any `json:"-"`
}

// MessageSource says what produced a message.
type MessageSource struct {
	Type string `json:"type"`
	ID   *int64 `json:"id"`
}

// Sender delivers a message. The default records it only (the outbox is the
// delivery log); a channel integration implements the same interface.
type Sender interface {
	Send(ctx context.Context, m Message) error
}

// RecordOnly is the default Sender: the outbox row is the delivery.
type RecordOnly struct{}

// Send implements Sender.
func (RecordOnly) Send(context.Context, Message) error { return nil }

// QueueMessage writes one outbox message and the job that delivers it at
// scheduledAt, in tx.
func QueueMessage(ctx context.Context, tx *db.Tx, acct account.Account, now time.Time, m Message, scheduledAt time.Time, payload map[string]any) error {
	if scheduledAt.IsZero() {
		scheduledAt = now
	}
	var id int64
	err := tx.QueryRow(ctx, `INSERT INTO outbox (account_id, kind, channel, recipient, client_id, body, status, scheduled_at, created_at, source_type, source_id)
		VALUES (?, ?, ?, ?, ?, ?, 'pending', ?, ?, ?, ?) RETURNING id`,
		acct.ID, m.Kind, m.Channel, m.Recipient, nullID(m.ClientID), m.Body, db.Micros(scheduledAt), db.Micros(now), m.Source.Type, nullID(m.Source.ID)).Scan(&id)
	if err != nil {
		return fmt.Errorf("queue message: %w", err)
	}
	kind := KindDeliverMessage
	if m.Kind == MsgWebhook {
		kind = KindWebhookDelivery
	}
	if payload == nil {
		payload = map[string]any{}
	}
	payload["outbox_id"] = id
	return Enqueue(ctx, tx, acct, now, New{Kind: kind, Payload: payload, RunAt: scheduledAt, SourceType: m.Source.Type, SourceID: derefID(m.Source.ID), OutboxID: id})
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
	rows, err := q.Query(ctx, `SELECT id, kind, channel, recipient, client_id, body, status, attempts, scheduled_at, created_at, sent_at, source_type, source_id
		FROM outbox WHERE account_id = ? ORDER BY id DESC LIMIT ?`, acct.ID, limit)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	out := []Message{}
	for rows.Next() {
		m, err := scanMessage(rows)
		if err != nil {
			return nil, err
		}
		out = append(out, m)
	}
	return out, rows.Err()
}

func scanMessage(row interface{ Scan(...any) error }) (Message, error) {
	var (
		m                  Message
		client, src, sent  sql.NullInt64
		scheduled, created int64
	)
	if err := row.Scan(&m.ID, &m.Kind, &m.Channel, &m.Recipient, &client, &m.Body, &m.Status, &m.Attempts, &scheduled, &created, &sent, &m.Source.Type, &src); err != nil {
		return m, err
	}
	if client.Valid {
		m.ClientID = &client.Int64
	}
	if src.Valid {
		m.Source.ID = &src.Int64
	}
	m.ScheduledAt, m.CreatedAt = clock.Format(db.Time(scheduled)), clock.Format(db.Time(created))
	if sent.Valid {
		s := clock.Format(db.Time(sent.Int64))
		m.SentAt = &s
	}
	return m, nil
}

func loadMessage(ctx context.Context, q db.Querier, acct account.Account, id int64) (Message, error) {
	return scanMessage(q.QueryRow(ctx, `SELECT id, kind, channel, recipient, client_id, body, status, attempts, scheduled_at, created_at, sent_at, source_type, source_id
		FROM outbox WHERE account_id = ? AND id = ?`, acct.ID, id))
}

func markSent(ctx context.Context, tx *db.Tx, id int64, now time.Time) error {
	_, err := tx.Exec(ctx, `UPDATE outbox SET status = 'sent', attempts = attempts + 1, sent_at = ? WHERE id = ?`, db.Micros(now), id)
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

// postWebhook delivers a signed JSON body; anything but a 2xx is an error
// (retried with backoff by the worker).
func postWebhookRequest(ctx context.Context, client *http.Client, url, secret string, body []byte, now time.Time) error {
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, url, bytes.NewReader(body))
	if err != nil {
		return err
	}
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("User-Agent", "Frontdesk-Webhooks/1")
	if secret != "" {
		req.Header.Set("Frontdesk-Signature", Sign(secret, body, now))
	}
	resp, err := client.Do(req)
	if err != nil {
		return fmt.Errorf("webhook %s: %w", url, err)
	}
	defer resp.Body.Close()
	io.Copy(io.Discard, io.LimitReader(resp.Body, 64<<10))
	if resp.StatusCode < 200 || resp.StatusCode > 299 {
		return fmt.Errorf("webhook %s answered %d", url, resp.StatusCode)
	}
	return nil
}
