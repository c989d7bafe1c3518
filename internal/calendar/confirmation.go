package calendar

import (
	"context"
	"fmt"
	"time"

	"github.com/frontdesk/frontdesk/internal/account"
	"github.com/frontdesk/frontdesk/internal/clock"
	"github.com/frontdesk/frontdesk/internal/db"
	"github.com/frontdesk/frontdesk/internal/errs"
	"github.com/frontdesk/frontdesk/internal/jobs"
)

// An appointment's confirmation_status: pending until the client answers
// the confirmation request (docs/contract.md, Replies that act).
const (
	ConfirmationPending   = "pending"
	ConfirmationConfirmed = "confirmed"
	ConfirmationDeclined  = "declined"
)

// Who set a confirmation_status, as appointment.confirmation_changed's
// data.by says: the client (a reply, the manage link) or staff (confirmed by
// phone on the dashboard, docs/today.md).
const (
	ConfirmedByClient = "client"
	ConfirmedByStaff  = "staff"
)

// ConfirmationWindow is how long after a confirmation request was sent a
// yes/no reply still answers it.
const ConfirmationWindow = 72 * time.Hour

// ConfirmationChange is what an answer did to an appointment.
type ConfirmationChange struct {
	AppointmentID int64
	Previous      string // the confirmation_status before
	Status        string // the confirmation_status now
	Changed       bool   // false when the appointment had that status already
}

// ConfirmationRequestFor finds the appointment a yes/no reply from a number
// (E.164) answers, and its confirmation_status: among the booking
// confirmation requests sent to that number in the account within
// ConfirmationWindow whose appointment is still booked, the newest one
// still pending; when every one was answered already, the newest one (the
// client's latest word revises it). ok is false when there is none: the
// reply is just a chat message.
func ConfirmationRequestFor(ctx context.Context, q db.Querier, acct account.Account, recipient string, now time.Time) (id int64, status string, ok bool, err error) {
	err = q.QueryRow(ctx, `SELECT a.id, a.confirmation_status
		FROM outbox o JOIN appointments a ON a.account_id = o.account_id AND a.id = o.source_id
		WHERE o.account_id = ? AND o.recipient = ? AND o.kind = ? AND o.sent_at >= ?
			AND o.source_type = 'booking' AND o.status IN ('sent', 'delivered', 'read') AND a.status = 'booked'
		ORDER BY CASE WHEN a.confirmation_status = 'pending' THEN 0 ELSE 1 END, o.sent_at DESC, o.id DESC
		LIMIT 1`, acct.ID, recipient, jobs.MsgConfirmation, db.Micros(now.Add(-ConfirmationWindow))).Scan(&id, &status)
	if db.IsNoRows(err) {
		return 0, "", false, nil
	}
	if err != nil {
		return 0, "", false, fmt.Errorf("find confirmation request: %w", err)
	}
	return id, status, true, nil
}

// AnswerConfirmation applies a client's yes (confirmed) or no (declined)
// from a number to the confirmation request it answers, in tx. found is
// false when no request is waiting for that number.
func AnswerConfirmation(ctx context.Context, tx *db.Tx, acct account.Account, recipient, status string, now time.Time) (c ConfirmationChange, found bool, err error) {
	id, _, found, err := ConfirmationRequestFor(ctx, tx, acct, recipient, now)
	if err != nil || !found {
		return c, found, err
	}
	if c, err = SetConfirmation(ctx, tx, acct, id, status, now); err != nil {
		return c, true, err
	}
	// A course's one confirmation request lists every date: the answer is
	// each still-booked occurrence's, each with its own event
	// (docs/series.md).
	siblings, err := db.QueryInt64s(ctx, tx, `SELECT id FROM appointments WHERE account_id = ? AND status = 'booked' AND id <> ?
		AND series_id = (SELECT series_id FROM appointments WHERE account_id = ? AND id = ?) ORDER BY start_at, id`, acct.ID, id, acct.ID, id)
	if err != nil {
		return c, true, fmt.Errorf("series occurrences: %w", err)
	}
	for _, o := range siblings {
		if _, err := SetConfirmation(ctx, tx, acct, o, status, now); err != nil {
			return c, true, err
		}
	}
	return c, true, nil
}

// SetConfirmation sets a booked appointment's confirmation_status to
// confirmed or declined in tx, with its effects in the same transaction:
// the webhook event appointment.confirmation_changed, and the reminders —
// a declined appointment's pending reminders are withdrawn (the appointment
// itself stays booked: the clinic decides what to do with the slot), and
// confirming after declining puts back those still to come. Setting the
// status it has already changes nothing and emits nothing.
func SetConfirmation(ctx context.Context, tx *db.Tx, acct account.Account, appointmentID int64, status string, now time.Time) (ConfirmationChange, error) {
	return SetConfirmationBy(ctx, tx, acct, appointmentID, status, ConfirmedByClient, now)
}

// SetConfirmationBy is SetConfirmation said by someone: by (ConfirmedByClient
// or ConfirmedByStaff) is the event's data.by. Every door that sets a
// confirmation_status comes here.
func SetConfirmationBy(ctx context.Context, tx *db.Tx, acct account.Account, appointmentID int64, status, by string, now time.Time) (ConfirmationChange, error) {
	c := ConfirmationChange{AppointmentID: appointmentID, Status: status}
	if status != ConfirmationConfirmed && status != ConfirmationDeclined {
		return c, errs.New(errs.ValidationError, "confirmation_status must be confirmed or declined, not %q.", status)
	}
	var (
		apptStatus, source                 string
		client, service, pro, et, from, to int64
		resource, series                   int64
	)
	err := tx.QueryRow(ctx, `SELECT status, confirmation_status, client_id, service_id, professional_id, event_type_id, start_at, end_at, source,
			COALESCE(resource_id, 0), COALESCE(series_id, 0)
		FROM appointments WHERE account_id = ? AND id = ?`, acct.ID, appointmentID).
		Scan(&apptStatus, &c.Previous, &client, &service, &pro, &et, &from, &to, &source, &resource, &series)
	if db.IsNoRows(err) {
		return c, errs.New(errs.NotFound, "appointment %d not found", appointmentID)
	}
	if err != nil {
		return c, err
	}
	if apptStatus != "booked" {
		return c, errs.WithDetails(errs.ValidationError, map[string]any{"current_status": apptStatus}, "This appointment is %s.", apptStatus)
	}
	if c.Previous == status {
		return c, nil
	}
	// The guard on the old value makes a concurrent answer to the same
	// appointment lose cleanly instead of emitting twice.
	// confirmed_at is when it last became confirmed, for the reports'
	// time to confirm (docs/reports.md).
	res, err := tx.Exec(ctx, `UPDATE appointments SET confirmation_status = ?, updated_at = ?,
			confirmed_at = CASE WHEN ? = 'confirmed' THEN ? ELSE confirmed_at END
		WHERE account_id = ? AND id = ? AND confirmation_status = ?`, status, db.Micros(now), status, db.Micros(now), acct.ID, appointmentID, c.Previous)
	if err != nil {
		return c, fmt.Errorf("set confirmation: %w", err)
	}
	if n, err := res.RowsAffected(); err != nil || n == 0 {
		return c, err
	}
	c.Changed = true
	switch {
	case status == ConfirmationDeclined:
		_, err = jobs.CancelReminders(ctx, tx, acct, appointmentID, jobs.ReasonDeclined, now)
	case c.Previous == ConfirmationDeclined:
		_, err = jobs.RestoreReminders(ctx, tx, acct, appointmentID, jobs.ReasonDeclined, now)
	}
	if err != nil {
		return c, err
	}
	return c, jobs.Emit(ctx, tx, acct, now, jobs.Event{Type: jobs.EventConfirmationChanged, SourceID: appointmentID, Data: withSeries(map[string]any{
		"appointment_id": appointmentID, "client_id": client, "service_id": service, "calendar_profile_id": pro, "event_type_id": et,
		"start_at": clock.Format(db.Time(from)), "end_at": clock.Format(db.Time(to)), "source": source, "resource_id": eventResource(resource),
		"confirmation_status": status, "previous_confirmation_status": c.Previous, "by": by}, series)})
}
