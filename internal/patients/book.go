package patients

import (
	"context"
	"errors"
	"slices"
	"time"

	"github.com/frontdesk/frontdesk/internal/calendar"
	"github.com/frontdesk/frontdesk/internal/db"
	"github.com/frontdesk/frontdesk/internal/errs"
	"github.com/frontdesk/frontdesk/internal/manage"
)

// BookInput is a patient's booking, schema-valid (DecodeBookInput).
type BookInput struct {
	ServiceID      int64
	ProfessionalID *int64 // nil: the first free professional of the slot, by id
	// StartAt is a listed slot's start: wall clock in the account's zone
	// (an explicit offset is read as the instant it names).
	StartAt calendar.WallTime
	Client  calendar.ClientInput
	Code    string // the verification code; ignored when the page verifies no phones
	Notes   string
	// Recurrence books a weekly course from StartAt (docs/series.md) when
	// the service's rules allow_series; nil books one appointment.
	Recurrence *calendar.Recurrence
}

// Booked is a patient's booking: the appointment as the booking response
// shows it, and the patient's link to manage it ("" when the server has no
// public URL or no FRONTDESK_SECRET_KEY; docs/manage-links.md).
type Booked struct {
	Appointment calendar.Appointment // with a Recurrence: the first session
	ManageURL   string
	Series      *calendar.Series // with a Recurrence: every session
}

// Book books a listed free slot of one of the page's services for the
// patient, through calendar.Book (source booking_page, the account's zone,
// only a slot the engine counts free), with every effect of a booking
// (confirmation request, reminders, appointment.booked, waiting-list
// resolution). A known phone books as that client (names sent are
// ignored). Refusals: SERVICE_NOT_FOUND, VERIFICATION_FAILED (when the page
// verifies phones), SLOT_NOT_AVAILABLE, BOOKING_LIMIT_REACHED, and
// VALIDATION_ERROR at recurrence for a course of a service whose rules do
// not allow_series. A course is booked whole or not at all: every session a
// free slot that keeps the rules (docs/series.md). A code books once: it is
// marked used before the booking and given back only when the booking is
// refused; one code books a whole course.
func Book(ctx context.Context, store *db.DB, p Page, in BookInput, now time.Time) (Booked, error) {
	svc, ok := p.Service(in.ServiceID)
	if !ok {
		return Booked{}, serviceNotFound(p, in.ServiceID)
	}
	if in.Recurrence != nil && !svc.AllowSeries { // BookSeries refuses it too, in its transaction
		return Booked{}, calendar.SeriesNotAllowed(svc.Name)
	}
	num, err := parsePhone(p.Account, in.Client.Phone)
	if err != nil {
		return Booked{}, fieldOf(err, "client.phone")
	}
	loc := p.Account.Location()
	start, ok := in.StartAt.In(loc)
	if !ok {
		return Booked{}, errSlot()
	}
	var codeID int64
	if p.Settings.VerifyPhone {
		if codeID, err = consumeCode(ctx, store, p.Account, num.E164(), in.Code, now); err != nil {
			return Booked{}, err
		}
	}
	out, err := bookSlot(ctx, store, p, svc, in, start, now)
	if err != nil && codeID != 0 {
		if rerr := releaseCode(context.WithoutCancel(ctx), store, p.Account, codeID); rerr != nil {
			return Booked{}, errors.Join(err, rerr)
		}
	}
	return out, err
}

// bookSlot finds the listed slot at start and books it.
func bookSlot(ctx context.Context, store *db.DB, p Page, svc Service, in BookInput, start, now time.Time) (Booked, error) {
	loc := p.Account.Location()
	pro, ok, err := listedProfessional(ctx, store, p, svc, in.ProfessionalID, start, now)
	if err != nil {
		return Booked{}, err
	}
	if !ok {
		return Booked{}, errSlot()
	}
	end := start.Add(time.Duration(svc.DurationMinutes) * time.Minute)
	eventType := svc.eventTypeID
	req := calendar.BookRequest{
		Client:    in.Client,
		ServiceID: &svc.ID, ProfessionalID: &pro, EventTypeID: &eventType,
		StartAt: instant(start), EndAt: instant(end), Timezone: loc.String(),
		Notes: in.Notes, Source: Source, FreeSlotOnly: true, KeepRules: true,
	}
	var (
		b      calendar.Booking
		series *calendar.Series
	)
	if in.Recurrence != nil {
		sb, err := calendar.BookSeries(ctx, store, p.Account, req, *in.Recurrence, now)
		if err != nil {
			return Booked{}, seriesRefusal(err, loc)
		}
		b, series = sb.Booking, &sb.Series
	} else if b, err = calendar.Book(ctx, store, p.Account, req, now); err != nil {
		return Booked{}, refusal(err)
	}
	// The booking is made: a link that cannot be made now leaves the
	// answer without one rather than failing a booking a retry would
	// repeat (every message about the appointment carries the link).
	link, err := manage.URL(ctx, store, p.Account, b.Appointment.ID)
	if err != nil {
		link = ""
	}
	return Booked{Appointment: b.Appointment, ManageURL: link, Series: series}, nil
}

// listedProfessional returns the professional of the listed slot starting
// at start: the one asked for, or the first free one by id. The slots are
// the engine's list for start's day in the account's zone.
func listedProfessional(ctx context.Context, store *db.DB, p Page, svc Service, want *int64, start, now time.Time) (int64, bool, error) {
	sq := calendar.SlotsQuery{ServiceID: svc.ID, StartDate: start.In(p.Account.Location()).Format(time.DateOnly),
		Days: 1, Timezone: p.Account.Timezone, Limit: calendar.SlotLimitMax}
	if want != nil {
		sq.ProfessionalIDs = []int64{*want}
	}
	list, err := calendar.ListFreeSlots(ctx, store, p.Account, sq, now)
	if errs.Is(err, errs.ProfessionalNotFound) || errs.Is(err, errs.ServiceNotFound) || errs.Is(err, errs.ValidationError) {
		return 0, false, nil // not a professional of the service, or a day out of range: no slot
	}
	if err != nil {
		return 0, false, err
	}
	for _, s := range list.Slots { // by start, then professional id
		if s.StartAtUTC.Equal(start) {
			return s.Professional.ID, true, nil
		}
	}
	return 0, false, nil
}

// instant writes t as a wall time with its offset (UTC), which
// calendar.Book reads as that instant whatever the zone.
func instant(t time.Time) calendar.WallTime {
	t = t.UTC()
	return calendar.WallTime{Year: t.Year(), Month: t.Month(), Day: t.Day(), Hour: t.Hour(), Minute: t.Minute(),
		Second: t.Second(), Nanosecond: t.Nanosecond(), HasOffset: true}
}

// refusal turns what calendar.Book refused into the patient API's codes:
// a client at max_future_per_client is BOOKING_LIMIT_REACHED; a slot the
// engine no longer counts free, or any other booking rule broken, is
// SLOT_NOT_AVAILABLE (docs/booking-rules.md).
func refusal(err error) error {
	var broken *calendar.RulesBroken
	if errors.As(err, &broken) {
		if slices.Contains(broken.Rules, calendar.RuleMaxFuturePerClient) {
			return errs.WithDetails(errs.BookingLimitReached, map[string]any{"field": "client.phone"},
				"This client already has as many upcoming appointments as the clinic allows online.")
		}
		return errSlot()
	}
	if errors.Is(err, calendar.ErrSlotTaken) || errors.Is(err, calendar.ErrSlotPast) {
		return errSlot()
	}
	return err
}

func errSlot() error {
	return errs.WithDetails(errs.SlotNotAvailable, map[string]any{"field": "start_at"},
		"start_at is not a free slot of this service now; ask for the slots again and pick one of them.")
}

// fieldOf renames the field of a refusal's details.
func fieldOf(err error, field string) error {
	var e *errs.Error
	if errors.As(err, &e) {
		if d, ok := e.Details.(map[string]any); ok {
			d["field"] = field
		}
	}
	return err
}
