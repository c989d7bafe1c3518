package manage

import (
	"context"
	"time"

	"github.com/frontdesk/frontdesk/internal/account"
	"github.com/frontdesk/frontdesk/internal/calendar"
	"github.com/frontdesk/frontdesk/internal/db"
	"github.com/frontdesk/frontdesk/internal/errs"
	"github.com/frontdesk/frontdesk/internal/managelink"
	"github.com/frontdesk/frontdesk/internal/offers"
)

// appointment is what the rules read: the calendar's view of it, the
// client's first name and the cancel cutoff of its service.
type appointment struct {
	calendar.AppointmentView
	firstName string
	updatedAt time.Time
	cutoff    time.Duration
}

// find loads the appointment a token names, at now.
func find(ctx context.Context, q db.Querier, token string, now time.Time) (account.Account, appointment, error) {
	var a appointment
	accountID, appointmentID, ok, err := managelink.Lookup(ctx, q, token)
	if err != nil || !ok {
		return account.Account{}, a, notFound(err)
	}
	acct, err := account.ByID(ctx, q, accountID)
	if err != nil {
		return acct, a, notFound(err)
	}
	a.AppointmentView, err = calendar.GetAppointment(ctx, q, acct, appointmentID)
	if err != nil {
		return acct, a, notFound(err)
	}
	if !now.Before(a.EndAt.Add(managelink.Lifetime)) {
		return acct, a, ErrNotFound
	}
	var updated int64
	if err := q.QueryRow(ctx, `SELECT c.first_name, a.updated_at FROM appointments a JOIN clients c ON c.account_id = a.account_id AND c.id = a.client_id
		WHERE a.account_id = ? AND a.id = ?`, acct.ID, appointmentID).Scan(&a.firstName, &updated); err != nil {
		return acct, a, err
	}
	a.updatedAt = db.Time(updated)
	// The cut-off is the service's booking rule (docs/booking-rules.md):
	// the account's, overridden by the service's.
	rules, err := calendar.EffectiveRules(ctx, q, acct, a.ServiceID)
	a.cutoff = rules.CancelCutoff
	return acct, a, err
}

// notFound turns "no such row" into the one answer an unknown token gets
// and keeps every other error.
func notFound(err error) error {
	if err == nil || errs.Is(err, errs.NotFound) {
		return ErrNotFound
	}
	return err
}

// cutoffAt is the last instant the patient may still cancel or move it.
func (a appointment) cutoffAt() time.Time { return a.StartAt.Add(-a.cutoff) }

// changeable reports whether the patient may still cancel or move it: it
// is booked, and now is before both its start and its cutoff.
func (a appointment) changeable(now time.Time) bool {
	return a.Status == calendar.StatusBooked && now.Before(a.StartAt) && now.Before(a.cutoffAt())
}

func (a appointment) view(acct account.Account, now time.Time) View {
	can := a.changeable(now)
	return View{
		Appointment: Appointment{ID: a.ID, StartAt: a.StartAt.UTC(), EndAt: a.EndAt.UTC(), Timezone: acct.Timezone, Status: a.Status,
			ConfirmationStatus: a.ConfirmationStatus, Service: calendar.Ref{ID: a.ServiceID, Name: a.ServiceName},
			Professional: calendar.Ref{ID: a.ProfessionalID, Name: a.ProfessionalName}},
		Client:    Client{FirstName: a.firstName},
		CanCancel: can, CanReschedule: can, CancelCutoffAt: a.cutoffAt().UTC(),
	}
}

// Cancel cancels the appointment for its patient, with the reason they
// gave: appointment.cancelled with by "patient", its unsent messages
// withdrawn, and the freed time offered to the waiting lists at once, all
// in one transaction. After the cutoff, once started, or when no longer
// booked: CHANGE_NOT_ALLOWED.
func Cancel(ctx context.Context, store *db.DB, token, reason string, now time.Time) (View, error) {
	return change(ctx, store, token, now, func(tx *db.Tx, acct account.Account, a appointment) (appointment, error) {
		_, err := calendar.CancelAppointmentTx(ctx, tx, acct, a.ID, calendar.Change{By: calendar.ByPatient, Reason: reason}, now)
		a.Status = calendar.StatusCancelled
		return a, err
	})
}

// change is what every patient's change shares, in one transaction: the
// appointment the token names, the rule that it may still change (else
// CHANGE_NOT_ALLOWED, also when it changed meanwhile), the change itself,
// and the time it leaves offered to the waiting lists at once.
func change(ctx context.Context, store *db.DB, token string, now time.Time,
	apply func(tx *db.Tx, acct account.Account, a appointment) (appointment, error)) (View, error) {
	var out View
	err := store.Transact(ctx, func(tx *db.Tx) error {
		acct, a, err := find(ctx, tx, token, now)
		if err != nil {
			return err
		}
		if !a.changeable(now) {
			return ErrChangeNotAllowed
		}
		freed := a.ProfessionalID
		a, err = apply(tx, acct, a)
		if errs.Is(err, errs.ValidationError) { // changed meanwhile
			return ErrChangeNotAllowed
		}
		if err != nil {
			return err
		}
		if err := offers.OfferFreedTime(ctx, tx, acct, freed, now); err != nil {
			return err
		}
		out = a.view(acct, now)
		return nil
	})
	return out, err
}

// Reschedule moves the appointment to start (wall clock in the account's
// zone, or with an offset) with professionalID (nil: the first professional
// free then), which must be a slot Slots lists now, else
// SLOT_NOT_AVAILABLE: appointment.rescheduled with by "patient", the
// confirmation asked afresh, and the time it leaves offered to the waiting
// lists. The rules of Cancel apply.
func Reschedule(ctx context.Context, store *db.DB, token string, start calendar.WallTime, professionalID *int64, now time.Time) (View, error) {
	return change(ctx, store, token, now, func(tx *db.Tx, acct account.Account, a appointment) (appointment, error) {
		// The first professional free then, when none is named; the move
		// itself takes that professional's booking lock and checks the
		// slot again under it (the calendar's one move rule).
		slot, err := listedSlot(ctx, tx, acct, a.ServiceID, start, professionalID, now)
		if err != nil {
			return a, err
		}
		moved, err := calendar.MoveAppointmentTx(ctx, tx, acct, calendar.MoveRequest{AppointmentID: a.ID, Start: slot.StartAtUTC,
			ProfessionalID: slot.Professional.ID, Change: calendar.Change{By: calendar.ByPatient}}, now)
		if errs.Is(err, errs.SlotNotAvailable) {
			return a, ErrSlotNotAvailable
		}
		a.AppointmentView = moved.Appointment
		return a, err
	})
}

// ErrSlotNotAvailable refuses a move to a time that is not a listed slot.
var ErrSlotNotAvailable = errs.New(errs.SlotNotAvailable, "That time is not free any more; choose one of the listed slots.")

// listedSlot is the slot of the service at start (and with professionalID
// when given) that the calendar lists now for start's day
// (calendar.FreeSlotAt, the check every move makes).
func listedSlot(ctx context.Context, q db.Querier, acct account.Account, serviceID int64, start calendar.WallTime, professionalID *int64, now time.Time) (calendar.OpenSlot, error) {
	at, ok := start.In(acct.Location())
	if !ok {
		return calendar.OpenSlot{}, ErrSlotNotAvailable
	}
	slot, free, err := calendar.FreeSlotAt(ctx, q, acct, serviceID, at, professionalID, now)
	if err == nil && !free {
		err = ErrSlotNotAvailable
	}
	return slot, err
}

// Slots lists the slots the appointment may move to: the calendar's free
// slots of its service (every active professional) for days days from
// startDate (YYYY-MM-DD in the account's zone; "" today), at most
// SlotLimit. When the appointment can no longer be moved:
// CHANGE_NOT_ALLOWED.
func Slots(ctx context.Context, store *db.DB, token, startDate string, days int, now time.Time) (calendar.SlotList, error) {
	acct, a, err := find(ctx, store, token, now)
	if err != nil {
		return calendar.SlotList{}, err
	}
	if !a.changeable(now) {
		return calendar.SlotList{}, ErrChangeNotAllowed
	}
	if days < 1 || days > calendar.SlotDaysMax {
		days = calendar.SlotDaysDefault
	}
	return calendar.ListFreeSlots(ctx, store, acct, calendar.SlotsQuery{ServiceID: a.ServiceID, StartDate: startDate, Days: days, Limit: SlotLimit}, now)
}

// SlotLimit is the most slots Slots lists.
const SlotLimit = 200
