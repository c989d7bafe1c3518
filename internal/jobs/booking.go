package jobs

import (
	"context"
	"encoding/json"
	"fmt"
	"time"

	"github.com/frontdesk/frontdesk/internal/account"
	"github.com/frontdesk/frontdesk/internal/db"
	"github.com/frontdesk/frontdesk/internal/texts"
	"github.com/frontdesk/frontdesk/internal/workspace"
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
	var settings workspace.Notifications
	json.Unmarshal([]byte(raw), &settings)
	loc := b.Location
	if loc == nil {
		loc = acct.Location()
	}
	vars := texts.Vars{Name: b.ClientName, Service: b.ServiceName, Professional: b.Professional, When: b.StartAt.In(loc)}
	src := MessageSource{Type: "booking", ID: &b.AppointmentID}
	clientID := b.ClientID
	if settings.ConfirmationRequest && !b.SkipConfirmationRequest {
		body := texts.Render(lang, texts.ConfirmationRequest, vars)
		if err := QueueMessage(ctx, tx, acct, now, Message{Kind: MsgConfirmation, Channel: "whatsapp", Recipient: b.Recipient,
			ClientID: &clientID, Body: body, Source: src}, now, nil); err != nil {
			return err
		}
	}
	for _, r := range settings.Reminders {
		d, err := workspace.ParseDuration(r)
		if err != nil {
			continue
		}
		at := b.StartAt.Add(-d)
		if !at.After(now) {
			continue // a reminder whose time has passed is not sent late
		}
		body := texts.Render(lang, texts.Reminder, vars)
		if err := QueueMessage(ctx, tx, acct, now, Message{Kind: MsgReminder, Channel: "whatsapp", Recipient: b.Recipient,
			ClientID: &clientID, Body: body, Source: src}, at, nil); err != nil {
			return err
		}
	}
	return nil
}
