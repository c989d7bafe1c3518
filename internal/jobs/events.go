package jobs

import (
	"context"
	"encoding/json"
	"fmt"
	"github.com/frontdesk/frontdesk/internal/clock"
	"time"

	"github.com/frontdesk/frontdesk/internal/account"
	"github.com/frontdesk/frontdesk/internal/db"
)

// Event types delivered to the account's outbound webhooks (beyond the
// contract: a caller that configures none sees exactly the contract).
const (
	EventAppointmentBooked      = "appointment.booked"
	EventAppointmentRescheduled = "appointment.rescheduled"
	EventAppointmentCancelled   = "appointment.cancelled"
	EventConfirmationChanged    = "appointment.confirmation_changed"
	EventWaitlistEntryCreated   = "waitlist.entry_created"
	EventWaitlistSeatOffered    = "waitlist.seat_offered"
	EventWaitlistEntryResolved  = "waitlist.entry_resolved"
	EventPipelineClientPlaced   = "pipeline.client_placed"
	EventPipelineClientMoved    = "pipeline.client_moved"
	EventPipelineClientRemoved  = "pipeline.client_removed"
	EventChatConversationUpdate = "chat.conversation_updated"
)

// EventAppointmentStatusChanged: the front desk marked an appointment
// arrived, no_show or completed, or undid that (calendar.MarkAppointmentStatus).
const EventAppointmentStatusChanged = "appointment.status_changed"

// EventClientErased: a client's personal data was erased
// (privacy.Erase, docs/data-rights.md); data is {client_id}, so
// integrators erase what they copied downstream.
const EventClientErased = "client.erased"

// EventTypes lists every event type a webhook can subscribe to.
var EventTypes = []string{EventAppointmentBooked, EventAppointmentRescheduled, EventAppointmentCancelled, EventConfirmationChanged,
	EventAppointmentStatusChanged, EventWaitlistEntryCreated, EventWaitlistSeatOffered, EventWaitlistEntryResolved,
	EventPipelineClientPlaced, EventPipelineClientMoved, EventPipelineClientRemoved, EventChatConversationUpdate, EventClientErased}

// webhookAttempts spreads retries over more than 24 hours with the default
// backoff (2^n seconds, at most an hour).
const webhookAttempts = 36

// Event is one thing that happened, for the account's webhooks.
type Event struct {
	Type     string
	SourceID int64 // the object's id (appointment, entry, card, conversation)
	Data     any
}

type hook struct {
	url, secret string
	events      []string
}

// Emit queues a delivery of each event to every active webhook of the
// account subscribed to its type, in tx: a rolled-back write emits nothing.
// One query reads the hooks and one statement per table writes the
// deliveries, whatever the number of events.
func Emit(ctx context.Context, tx db.Querier, acct account.Account, now time.Time, events ...Event) error {
	if len(events) == 0 {
		return nil
	}
	hooks, err := LoadHooks(ctx, tx, acct)
	if err != nil {
		return err
	}
	return hooks.Emit(ctx, tx, acct, now, events...)
}

// Hooks are an account's active webhooks as read at one moment.
type Hooks struct {
	account int64
	list    []hook
}

// LoadHooks reads the account's active webhooks. A caller that holds a
// lock while it emits (an ingest batch, whose input node takes one batch
// at a time) reads them before it takes the lock and emits with
// Hooks.Emit: its events go to the webhooks active when it arrived, and a
// webhook changed while it waited for its turn applies from the next one
// (docs/performance.md, "The input node's lock").
func LoadHooks(ctx context.Context, q db.Querier, acct account.Account) (*Hooks, error) {
	rows, err := q.Query(ctx, `SELECT url, secret, events FROM webhooks WHERE account_id = ? AND active ORDER BY id`, acct.ID)
	if err != nil {
		return nil, fmt.Errorf("load webhooks: %w", err)
	}
	defer rows.Close()
	hs := &Hooks{account: acct.ID}
	for rows.Next() {
		var h hook
		var evs string
		if err := rows.Scan(&h.url, &h.secret, &evs); err != nil {
			return nil, err
		}
		json.Unmarshal([]byte(evs), &h.events)
		hs.list = append(hs.list, h)
	}
	return hs, rows.Err()
}

// Emit is jobs.Emit to these hooks, which must be acct's.
func (hs *Hooks) Emit(ctx context.Context, tx db.Querier, acct account.Account, now time.Time, events ...Event) error {
	if hs.account != acct.ID {
		return fmt.Errorf("webhooks of account %d used for account %d", hs.account, acct.ID)
	}
	hooks := hs.list
	if len(events) == 0 || len(hooks) == 0 {
		return nil
	}
	type delivery struct {
		h    hook
		e    Event
		body string
	}
	var out []delivery
	for _, e := range events {
		for _, h := range hooks {
			if !subscribed(h.events, e.Type) {
				continue
			}
			body, err := json.Marshal(map[string]any{
				"id": fmt.Sprintf("evt_%s_%d_%d", e.Type, e.SourceID, now.UnixMicro()), "type": e.Type,
				"created_at": clock.Format(now), "data": e.Data,
			})
			if err != nil {
				return err
			}
			out = append(out, delivery{h, e, string(body)})
		}
	}
	if len(out) == 0 {
		return nil
	}
	ids, err := tx.Dialect().ReserveIDs(ctx, tx, "outbox", len(out))
	if err != nil {
		return err
	}
	us := db.Micros(now)
	msgs := make([][]any, len(out))
	jobsRows := make([][]any, len(out))
	for i, d := range out {
		msgs[i] = []any{ids[i], acct.ID, MsgWebhook, "webhook", d.h.url, d.body, "pending", us, us, "event:" + d.e.Type, d.e.SourceID}
		// The secret is copied as stored (sealed when the server has a key)
		// and opened only when the delivery is signed.
		payload, _ := json.Marshal(map[string]any{"outbox_id": ids[i], "secret": d.h.secret})
		jobsRows[i] = []any{acct.ID, KindWebhookDelivery, string(payload), us, webhookAttempts, "event:" + d.e.Type, d.e.SourceID, ids[i], us}
	}
	if err := db.InsertMany(ctx, tx, `INSERT INTO outbox (id, account_id, kind, channel, recipient, body, status, scheduled_at, created_at, source_type, source_id)`, msgs, ""); err != nil {
		return fmt.Errorf("queue webhook deliveries: %w", err)
	}
	if err := db.InsertMany(ctx, tx, `INSERT INTO jobs (account_id, kind, payload, run_at, max_attempts, source_type, source_id, outbox_id, created_at)`, jobsRows, ""); err != nil {
		return fmt.Errorf("queue webhook jobs: %w", err)
	}
	return nil
}

func subscribed(events []string, t string) bool {
	if len(events) == 0 {
		return true // a hook without a list gets every event
	}
	for _, e := range events {
		if e == t || e == "*" {
			return true
		}
	}
	return false
}

// Delivery is one webhook delivery with its attempts.
type Delivery struct {
	ID        int64      `json:"id"`
	Event     string     `json:"event"`
	URL       string     `json:"url"`
	Status    string     `json:"status"` // pending, sent, failed
	Attempts  []Attempt  `json:"attempts"`
	CreatedAt time.Time  `json:"created_at"`
	SentAt    *time.Time `json:"sent_at"`
}

// Attempt is one try of a delivery.
type Attempt struct {
	Attempt int       `json:"attempt"`
	At      time.Time `json:"at"`
	OK      bool      `json:"ok"`
	Error   *string   `json:"error"`
}

// ListDeliveries lists an account's webhook deliveries, newest first, with
// every attempt (two queries).
func ListDeliveries(ctx context.Context, q db.Querier, acct account.Account, limit int) ([]Delivery, error) {
	rows, err := q.Query(ctx, `SELECT o.id, o.source_type, o.recipient, o.status, o.created_at, o.sent_at, j.id, j.status
		FROM outbox o JOIN jobs j ON j.account_id = o.account_id AND j.outbox_id = o.id
		WHERE o.account_id = ? AND o.kind = ? ORDER BY o.id DESC LIMIT ?`, acct.ID, MsgWebhook, limit)
	if err != nil {
		return nil, err
	}
	var out []Delivery
	byJob := map[int64]*Delivery{}
	var jobIDs []int64
	for rows.Next() {
		var (
			d                Delivery
			created          int64
			sent             *int64
			jobID            int64
			source, jobState string
		)
		if err := rows.Scan(&d.ID, &source, &d.URL, &d.Status, &created, &sent, &jobID, &jobState); err != nil {
			rows.Close()
			return nil, err
		}
		d.Event = source
		if len(source) > 6 && source[:6] == "event:" {
			d.Event = source[6:]
		}
		if jobState == "failed" {
			d.Status = "failed"
		}
		d.CreatedAt = db.Time(created)
		if sent != nil {
			t := db.Time(*sent)
			d.SentAt = &t
		}
		d.Attempts = []Attempt{}
		out = append(out, d)
		jobIDs = append(jobIDs, jobID)
	}
	rows.Close()
	for i := range out {
		byJob[jobIDs[i]] = &out[i]
	}
	if len(jobIDs) == 0 {
		return []Delivery{}, rows.Err()
	}
	in, args := db.In(jobIDs)
	ar, err := q.Query(ctx, `SELECT job_id, attempt, at, ok, error FROM job_attempts WHERE account_id = ? AND job_id IN `+in+` ORDER BY job_id, attempt, id`, append([]any{acct.ID}, args...)...)
	if err != nil {
		return nil, err
	}
	defer ar.Close()
	for ar.Next() {
		var (
			jobID int64
			a     Attempt
			at    int64
		)
		if err := ar.Scan(&jobID, &a.Attempt, &at, &a.OK, &a.Error); err != nil {
			return nil, err
		}
		a.At = db.Time(at)
		byJob[jobID].Attempts = append(byJob[jobID].Attempts, a)
	}
	return out, ar.Err()
}
