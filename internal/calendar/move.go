package calendar

// Moving an appointment (docs/moving-appointments.md): the one rule every
// door that moves an appointment calls, and how a burst of moves is told to
// the patient in one confirmation request.

import (
	"context"
	"database/sql"
	"slices"
	"time"

	"github.com/frontdesk/frontdesk/internal/account"
	"github.com/frontdesk/frontdesk/internal/db"
	"github.com/frontdesk/frontdesk/internal/errs"
	"github.com/frontdesk/frontdesk/internal/jobs"
)

// ConfirmationQuietWindow is how long after a confirmation request of an
// appointment was sent a move's new request waits (MoveRequest.QuietWindow
// overrides it): moves within the window replace one another's request, so
// the patient gets one message with the final time.
const ConfirmationQuietWindow = 10 * time.Minute

// MoveRequest is a move of a booked appointment to Start, keeping its
// length.
type MoveRequest struct {
	AppointmentID  int64
	Start          time.Time
	ProfessionalID int64 // 0: the appointment's own professional
	Change         Change
	// Override makes a move to a time that is not a free slot, returning
	// its warnings. Staff and API only: a patient's move never overrides.
	Override bool
	// QuietWindow replaces ConfirmationQuietWindow when positive.
	QuietWindow time.Duration
	// noConfirmation queues no confirmation request: MoveSeriesFrom asks
	// once for the course.
	noConfirmation bool
}

// Moved is a move made: the appointment at its new time and, for an
// overridden move, what is unusual about that time (never nil).
type Moved struct {
	Appointment AppointmentView
	Warnings    []Warning
}

// ErrSlotNotFree is the answer a move to a time that is not a free slot
// gets without an override (SLOT_NOT_AVAILABLE).
var ErrSlotNotFree = errs.New(errs.SlotNotAvailable, "That time is not a free slot; choose a free slot, or move it there anyway.")

// MoveRefused refuses a move to a time that is not a free slot: the
// warnings Book would give there (possibly none: a time inside free time
// but not on a slot's start). It reads as ErrSlotNotFree to errs.Is.
type MoveRefused struct {
	Warnings []Warning
}

func (e *MoveRefused) Error() string { return ErrSlotNotFree.Error() }

// Unwrap lets errs.Is and errs.As see ErrSlotNotFree.
func (e *MoveRefused) Unwrap() error { return ErrSlotNotFree }

// FreeSlotAt is the free slot of the service starting at start (with
// professionalID when given, else the first professional free then) that
// ListFreeSlots lists now for start's day in the account's zone; ok false
// when there is none (a service or professional no longer bookable
// included).
func FreeSlotAt(ctx context.Context, q db.Querier, acct account.Account, serviceID int64, start time.Time, professionalID *int64, now time.Time) (OpenSlot, bool, error) {
	loc := acct.Location()
	sq := SlotsQuery{ServiceID: serviceID, StartDate: start.In(loc).Format(time.DateOnly), Days: 1, Limit: SlotLimitMax}
	if professionalID != nil {
		sq.ProfessionalIDs = []int64{*professionalID}
	}
	list, err := ListFreeSlots(ctx, q, acct, sq, now)
	if errs.Is(err, errs.ValidationError) || errs.Is(err, errs.ServiceNotFound) || errs.Is(err, errs.ProfessionalNotFound) {
		return OpenSlot{}, false, nil
	}
	if err != nil {
		return OpenSlot{}, false, err
	}
	for _, s := range list.Slots {
		if s.StartAtUTC.Equal(start) && (professionalID == nil || s.Professional.ID == *professionalID) {
			return s, true, nil
		}
	}
	return OpenSlot{}, false, nil
}

// MoveAppointment is MoveAppointmentTx in a transaction of its own.
func MoveAppointment(ctx context.Context, store *db.DB, acct account.Account, req MoveRequest, now time.Time) (Moved, error) {
	return db.InTx(ctx, store, func(tx *db.Tx) (Moved, error) { return MoveAppointmentTx(ctx, tx, acct, req, now) })
}

// MoveAppointmentTx moves a booked appointment, in tx. It takes the
// professional's booking lock (LockProfessionalTime), so two moves never
// land in one slot, then: a start that is a free slot of the one slot
// engine (FreeSlotAt, booking rules included), or a shift within the
// appointment's own old time that fits once the appointment leaves it
// (moveIsFree), is moved to; any other start is refused with *MoveRefused
// carrying Book's warnings there, unless req.Override, which moves it and
// returns them. The move re-queues the
// confirmation request and reminders (coalesced: see
// ConfirmationQuietWindow) and emits appointment.rescheduled.
func MoveAppointmentTx(ctx context.Context, tx *db.Tx, acct account.Account, req MoveRequest, now time.Time) (Moved, error) {
	if req.Override && req.Change.By == ByPatient {
		return Moved{}, errs.New(errs.ValidationError, "A patient cannot move an appointment to a time that is not free.")
	}
	a, err := GetAppointment(ctx, tx, acct, req.AppointmentID)
	if err != nil {
		return Moved{}, err
	}
	pro := req.ProfessionalID
	if pro == 0 {
		pro = a.ProfessionalID
	}
	if err := LockProfessionalTime(ctx, tx, acct, pro); err != nil {
		return Moved{}, err
	}
	warnings := []Warning{}
	if free, err := moveIsFree(ctx, tx, acct, a, pro, req.Start, now); err != nil {
		return Moved{}, err
	} else if !free && a.Status == StatusBooked {
		warnings, err = moveWarnings(ctx, tx, acct, a, pro, req.Start, now)
		if err != nil {
			return Moved{}, err
		}
		if !req.Override {
			return Moved{}, &MoveRefused{Warnings: warnings}
		}
	}
	window := req.QuietWindow
	if window <= 0 {
		window = ConfirmationQuietWindow
	}
	moved, more, err := rescheduleTx(ctx, tx, acct, a, req.Start, pro, req.Change, window, req.noConfirmation, now)
	if err != nil {
		return Moved{}, err
	}
	return Moved{Appointment: moved, Warnings: append(warnings, more...)}, nil
}

// moveIsFree says whether moving a to start with professional pro needs
// no override: start is a free slot of the slot engine (FreeSlotAt, the
// appointment still holding its old time, as the reschedule page lists
// slots), or the move is a shift that overlaps the appointment's own old
// time with the same professional and fits once the appointment has left
// it (fitsOwnTime). An overlap with any other booking, a hold, time off,
// hours not worked or a broken booking rule is never free.
func moveIsFree(ctx context.Context, tx *db.Tx, acct account.Account, a AppointmentView, pro int64, start, now time.Time) (bool, error) {
	if _, ok, err := FreeSlotAt(ctx, tx, acct, a.ServiceID, start, &pro, now); err != nil || ok {
		return ok, err
	}
	return fitsOwnTime(ctx, tx, acct, a, pro, start, now)
}

// fitsOwnTime reports whether a, moved to start by its own professional
// and overlapping its old time, lies inside that professional's free time
// computed without a itself: working hours, minus other appointments
// (widened by their buffers), held seat offers and time off, never before
// now; its own buffers, minimum notice and maximum advance are kept as the
// slot engine keeps them (docs/booking-rules.md). It is the slot engine's
// question off the slot grid: the grid is laid from the start of each free
// interval, and the appointment's own time is what cuts that interval.
func fitsOwnTime(ctx context.Context, tx *db.Tx, acct account.Account, a AppointmentView, pro int64, start, now time.Time) (bool, error) {
	length := a.EndAt.Sub(a.StartAt)
	end := start.Add(length)
	if pro != a.ProfessionalID || !start.Before(a.EndAt) || !end.After(a.StartAt) {
		return false, nil
	}
	cat, err := loadCatalog(ctx, tx, acct)
	if err != nil {
		return false, err
	}
	svc := cat.byID[a.ServiceID]
	if svc == nil {
		return false, nil
	}
	i := slices.IndexFunc(svc.Pros, func(p *professional) bool { return p.ID == pro })
	if i < 0 {
		return false, nil
	}
	rules, err := loadRuleBook(ctx, tx, acct)
	if err != nil {
		return false, err
	}
	rule := slotRuleOf(0, rules.of(svc.ID), now)
	s := db.Micros(start)
	if s < rule.earliest || s >= rule.latest {
		return false, nil
	}
	lo, hi := s-rule.before, db.Micros(end)+rule.after
	free, err := freeTimeExcept(ctx, tx, acct, svc.Pros[i:i+1], db.Time(lo), db.Time(hi), now, rules, a.ID)
	if err != nil {
		return false, err
	}
	return covers(free[pro], lo, hi), nil
}

// moveWarnings are Book's warnings for the appointment at start with
// professional pro, the appointment itself left out: it does not overlap
// the time it leaves, nor count twice among its client's appointments.
func moveWarnings(ctx context.Context, tx *db.Tx, acct account.Account, a AppointmentView, proID int64, start, now time.Time) ([]Warning, error) {
	cat, err := loadCatalog(ctx, tx, acct)
	if err != nil {
		return nil, err
	}
	svc := cat.byID[a.ServiceID]
	if svc == nil {
		return []Warning{}, nil // no longer bookable: the move itself says so
	}
	i := slices.IndexFunc(svc.Pros, func(p *professional) bool { return p.ID == proID })
	if i < 0 {
		return []Warning{}, nil
	}
	end := start.Add(a.EndAt.Sub(a.StartAt))
	out, err := bookingWarnings(ctx, tx, acct, svc.Pros[i], start, end, now)
	if err != nil {
		return nil, err
	}
	out = slices.DeleteFunc(out, func(w Warning) bool { return w.Code == WarnOverlap && w.AppointmentID == a.ID })
	breaks, err := ruleBreaks(ctx, tx, acct, svc, svc.Pros[i], a.ClientID, true, start, end, now)
	if err != nil {
		return nil, err
	}
	return append(out, ruleWarnings(breaks)...), nil
}

// confirmationNotBefore is when a moved appointment's new confirmation
// request may go: the end of the quiet window after the last request of
// the appointment that went out (or was claimed for sending), else now.
func confirmationNotBefore(ctx context.Context, tx *db.Tx, acct account.Account, appointmentID int64, window time.Duration, now time.Time) (time.Time, error) {
	var last sql.NullInt64
	err := tx.QueryRow(ctx, `SELECT MAX(COALESCE(sent_at, scheduled_at)) FROM outbox
		WHERE account_id = ? AND source_type = 'booking' AND source_id = ? AND kind = ? AND status NOT IN ('pending', 'cancelled')`,
		acct.ID, appointmentID, jobs.MsgConfirmation).Scan(&last)
	if err != nil || !last.Valid {
		return now, err
	}
	if until := db.Time(last.Int64).Add(window); until.After(now) {
		return until, nil
	}
	return now, nil
}
