// Package manage is what a patient does with the manage link of their
// appointment (docs/manage-links.md): see it, confirm or decline it as a
// reply to the confirmation request would, cancel it, or move it to one of
// the slots the calendar lists. It holds the rules (who may still change
// what, until when) and calls the calendar and the waiting lists for the
// effects, so the JSON door (/api/v2/manage/{token}) and the page
// (/m/{token}) answer alike. It has no HTTP.
//
// A token opens one appointment of one account; an unknown token and one
// whose appointment ended more than managelink.Lifetime ago are NOT_FOUND.
package manage

import (
	"context"
	"time"

	"github.com/frontdesk/frontdesk/internal/account"
	"github.com/frontdesk/frontdesk/internal/calendar"
	"github.com/frontdesk/frontdesk/internal/db"
	"github.com/frontdesk/frontdesk/internal/errs"
	"github.com/frontdesk/frontdesk/internal/managelink"
)

// View is the GET answer's data: the appointment and the client's first
// name (nothing more about the client), and what the patient may still do.
type View struct {
	Appointment   Appointment `json:"appointment"`
	Client        Client      `json:"client"`
	CanCancel     bool        `json:"can_cancel"`
	CanReschedule bool        `json:"can_reschedule"`
	// CancelCutoffAt is the last instant a change is taken: the start
	// minus the service's cancel_cutoff.
	CancelCutoffAt time.Time `json:"cancel_cutoff_at"`
}

// Appointment is the appointment as its patient sees it; Timezone is the
// account's.
type Appointment struct {
	ID                 int64        `json:"id"`
	StartAt            time.Time    `json:"start_at"`
	EndAt              time.Time    `json:"end_at"`
	Timezone           string       `json:"timezone"`
	Status             string       `json:"status"`
	ConfirmationStatus string       `json:"confirmation_status"`
	Service            calendar.Ref `json:"service"`
	Professional       calendar.Ref `json:"professional"`
}

// Client is all the manage answer says about the client.
type Client struct {
	FirstName string `json:"first_name"`
}

// URL is the manage link of an appointment of acct,
// `{FRONTDESK_PUBLIC_URL}/m/{token}` — the same for every message about
// it — or "" when no public URL (or no FRONTDESK_SECRET_KEY) is configured
// (managelink.WithConfig).
func URL(ctx context.Context, q db.Querier, acct account.Account, appointmentID int64) (string, error) {
	return managelink.URL(ctx, q, acct, appointmentID)
}

// ErrNotFound answers an unknown or expired token.
var ErrNotFound = errs.New(errs.NotFound, "This link is not valid or has expired.")

// ErrChangeNotAllowed refuses a cancel or move after the cancel cutoff,
// once the appointment has started, or when it is cancelled (or over).
var ErrChangeNotAllowed = errs.New(errs.ChangeNotAllowed, "This appointment can no longer be changed online; please call the clinic.")

// Open is the appointment a token names, as its patient sees it at now.
func Open(ctx context.Context, store *db.DB, token string, now time.Time) (account.Account, View, error) {
	acct, a, err := find(ctx, store, token, now)
	if err != nil {
		return acct, View{}, err
	}
	return acct, a.view(acct, now), nil
}

// Confirm confirms the appointment, as a "yes" to its confirmation request
// does (calendar.SetConfirmation: appointment.confirmation_changed, the
// reminders put back after a decline).
func Confirm(ctx context.Context, store *db.DB, token string, now time.Time) (View, error) {
	return answer(ctx, store, token, calendar.ConfirmationConfirmed, now)
}

// Decline declines the appointment, as a "no" to its confirmation request
// does: it stays booked, its reminders are withdrawn, and
// appointment.confirmation_changed fires.
func Decline(ctx context.Context, store *db.DB, token string, now time.Time) (View, error) {
	return answer(ctx, store, token, calendar.ConfirmationDeclined, now)
}

func answer(ctx context.Context, store *db.DB, token, status string, now time.Time) (View, error) {
	var out View
	err := store.Transact(ctx, func(tx *db.Tx) error {
		acct, a, err := find(ctx, tx, token, now)
		if err != nil {
			return err
		}
		if a.Status != calendar.StatusBooked {
			return ErrChangeNotAllowed
		}
		if _, err := calendar.SetConfirmation(ctx, tx, acct, a.ID, status, now); err != nil {
			return err
		}
		a.ConfirmationStatus = status
		out = a.view(acct, now)
		return nil
	})
	return out, err
}
