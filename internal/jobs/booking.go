package jobs

import (
	"context"
	"encoding/json"
	"fmt"
	"time"

	"github.com/frontdesk/frontdesk/internal/account"
	"github.com/frontdesk/frontdesk/internal/clock"
	"github.com/frontdesk/frontdesk/internal/db"
	"github.com/frontdesk/frontdesk/internal/managelink"
	"github.com/frontdesk/frontdesk/internal/texts"
)

// Booking describes a new appointment for its notifications.
type Booking struct {
	AppointmentID int64
	ClientID      int64
	Recipient     string // E.164
	ClientName    string
	ServiceName   string
	Professional  string
	StartAt       time.Time
	Location      *time.Location // the booking's zone, for the text
	// SkipConfirmationRequest: the client confirmed already (a seat offer
	// accepted by reply).
	SkipConfirmationRequest bool
	// ConfirmationAt is when the confirmation request goes (zero: now); a
	// moved appointment's waits out the quiet window after the last one
	// sent (docs/moving-appointments.md).
	ConfirmationAt time.Time
}

// QueueBookingNotifications follows the calendar's own notification
// settings, exactly as for a dashboard booking (the contract's booking rule
// 3): a confirmation request now when enabled, and a reminder at each
// configured offset before the start that is not already in the past. It
// runs in the booking's transaction, so a rolled-back booking sends nothing.
func QueueBookingNotifications(ctx context.Context, tx *db.Tx, acct account.Account, b Booking, now time.Time) error {
	var raw, lang string
	if err := tx.QueryRow(ctx, `SELECT notifications, language FROM accounts WHERE id = ?`, acct.ID).Scan(&raw, &lang); err != nil {
		return fmt.Errorf("notification settings: %w", err)
	}
	var settings NotificationSettings
	json.Unmarshal([]byte(raw), &settings)
	loc := b.Location
	if loc == nil {
		loc = acct.Location()
	}
	vars := texts.Vars{Name: b.ClientName, Service: b.ServiceName, Professional: b.Professional, When: b.StartAt.In(loc)}
	src := MessageSource{Type: "booking", ID: &b.AppointmentID}
	clientID := b.ClientID
	linkLine, err := manageLinkLine(ctx, tx, acct, lang, b.AppointmentID)
	if err != nil {
		return err
	}
	if settings.ConfirmationRequest && !b.SkipConfirmationRequest {
		body := texts.Render(lang, texts.ConfirmationRequest, vars) + linkLine
		if err := QueueMessage(ctx, tx, acct, now, Message{Kind: MsgConfirmation, Channel: "whatsapp", Recipient: b.Recipient,
			ClientID: &clientID, Body: body, Source: src}, b.ConfirmationAt, nil); err != nil {
			return err
		}
	}
	for _, r := range settings.Reminders {
		d, err := clock.ParseDuration(r)
		if err != nil {
			continue
		}
		at := b.StartAt.Add(-d)
		if !at.After(now) {
			continue // a reminder whose time has passed is not sent late
		}
		body := texts.Render(lang, texts.Reminder, vars) + linkLine
		if err := QueueMessage(ctx, tx, acct, now, Message{Kind: MsgReminder, Channel: "whatsapp", Recipient: b.Recipient,
			ClientID: &clientID, Body: body, Source: src}, at, nil); err != nil {
			return err
		}
	}
	return nil
}

// manageLinkLine is the line that ends an appointment's confirmation
// request and reminders: its manage link (texts.ManageLink,
// docs/manage-links.md), on a line of its own; "" when no link can be made
// (no public URL or no server key configured).
func manageLinkLine(ctx context.Context, tx *db.Tx, acct account.Account, lang string, appointmentID int64) (string, error) {
	link, err := managelink.URL(ctx, tx, acct, appointmentID)
	if err != nil || link == "" {
		return "", err
	}
	return "\n" + texts.Render(lang, texts.ManageLink, texts.Vars{Link: link}), nil
}

// Why a booking reminder was withdrawn (the outbox row's error).
const (
	ReasonDeclined  = "cancelled: the client declined the appointment"
	ReasonCancelled = "cancelled: the appointment is no longer booked"
)

// CancelReminders withdraws an appointment's reminders that are still
// pending (status cancelled, with reason as their error) and completes the
// jobs that would send them, in tx. A reminder a worker has claimed already
// is caught at delivery (reminderWithdrawn). It returns how many it withdrew.
func CancelReminders(ctx context.Context, tx *db.Tx, acct account.Account, appointmentID int64, reason string, now time.Time) (int64, error) {
	if _, err := tx.Exec(ctx, `UPDATE jobs SET status = 'done', finished_at = ?, last_error = ?
		WHERE account_id = ? AND source_type = 'booking' AND source_id = ? AND status = 'pending' AND outbox_id IN (SELECT id FROM outbox
			WHERE account_id = ? AND kind = ? AND source_type = 'booking' AND source_id = ? AND status = 'pending')`,
		db.Micros(now), reason, acct.ID, appointmentID, acct.ID, MsgReminder, appointmentID); err != nil {
		return 0, fmt.Errorf("cancel reminder jobs: %w", err)
	}
	res, err := tx.Exec(ctx, `UPDATE outbox SET status = 'cancelled', error = ?
		WHERE account_id = ? AND kind = ? AND source_type = 'booking' AND source_id = ? AND status = 'pending'`,
		reason, acct.ID, MsgReminder, appointmentID)
	if err != nil {
		return 0, fmt.Errorf("cancel reminders: %w", err)
	}
	return res.RowsAffected()
}

// RestoreReminders puts back the reminders CancelReminders withdrew for
// reason whose time has not come yet (a client who declined and then
// confirmed after all), with their jobs. Reminders whose time passed while
// they were withdrawn stay cancelled: they are never sent late.
func RestoreReminders(ctx context.Context, tx *db.Tx, acct account.Account, appointmentID int64, reason string, now time.Time) (int64, error) {
	t := db.Micros(now)
	if _, err := tx.Exec(ctx, `UPDATE jobs SET status = 'pending', finished_at = NULL, last_error = NULL
		WHERE account_id = ? AND source_type = 'booking' AND source_id = ? AND status = 'done' AND run_at > ? AND outbox_id IN (SELECT id FROM outbox
			WHERE account_id = ? AND kind = ? AND source_type = 'booking' AND source_id = ? AND status = 'cancelled' AND error = ? AND scheduled_at > ?)`,
		acct.ID, appointmentID, t, acct.ID, MsgReminder, appointmentID, reason, t); err != nil {
		return 0, fmt.Errorf("restore reminder jobs: %w", err)
	}
	res, err := tx.Exec(ctx, `UPDATE outbox SET status = 'pending', error = NULL
		WHERE account_id = ? AND kind = ? AND source_type = 'booking' AND source_id = ? AND status = 'cancelled' AND error = ? AND scheduled_at > ?`,
		acct.ID, MsgReminder, appointmentID, reason, t)
	if err != nil {
		return 0, fmt.Errorf("restore reminders: %w", err)
	}
	return res.RowsAffected()
}

// reminderWithdrawn is the delivery's second look at a booking reminder:
// the reason it must not go out (its appointment was declined by the
// client, or cancelled, after the reminder was queued or claimed), or "".
func reminderWithdrawn(ctx context.Context, q db.Querier, acct account.Account, m Message) (string, error) {
	if m.Kind != MsgReminder || m.Source.Type != "booking" || m.Source.ID == nil {
		return "", nil
	}
	var status, confirmation string
	err := q.QueryRow(ctx, `SELECT status, confirmation_status FROM appointments WHERE account_id = ? AND id = ?`,
		acct.ID, *m.Source.ID).Scan(&status, &confirmation)
	switch {
	case db.IsNoRows(err):
		return ReasonCancelled, nil
	case err != nil:
		return "", err
	case status != "booked":
		return ReasonCancelled, nil
	case confirmation == "declined":
		return ReasonDeclined, nil
	}
	return "", nil
}
