package calendar

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/frontdesk/frontdesk/internal/account"
	"github.com/frontdesk/frontdesk/internal/clock"
	"github.com/frontdesk/frontdesk/internal/contact"
	"github.com/frontdesk/frontdesk/internal/db"
	"github.com/frontdesk/frontdesk/internal/errs"
	"github.com/frontdesk/frontdesk/internal/jobs"
)

// Limits of a recurrence (docs/series.md), checked by every front door's
// decoder and again by BookSeries.
const (
	MinSeriesInterval = 1
	MaxSeriesInterval = 4
	MinSeriesCount    = 2
	MaxSeriesCount    = 52
	MaxSeriesDays     = 366 // until is at most this many days after the first start
)

// Recurrence repeats a booking weekly (docs/series.md): every Interval
// weeks, Count times or until the date Until ("YYYY-MM-DD", inclusive), in
// the request's zone. Exactly one of Count and Until is set.
type Recurrence struct {
	Frequency string // "weekly"
	Interval  int
	Count     int
	Until     string
}

// SeriesOccurrence is one appointment of a series as the response lists it.
type SeriesOccurrence struct {
	ID       int64     `json:"id"`
	StartAt  string    `json:"start_at"`
	EndAt    string    `json:"end_at"`
	Warnings []Warning `json:"warnings"`
}

// Series is the response's data.series.
type Series struct {
	ID          int64              `json:"id"`
	Occurrences []SeriesOccurrence `json:"occurrences"`
}

// SeriesBooking is what BookSeries made: the first occurrence as Book
// returns it, and the series.
type SeriesBooking struct {
	Booking
	Series Series
}

// BookSeries books every occurrence of rec as Book books one appointment,
// all in one transaction (nothing is written when one fails) and never
// refused for availability: each occurrence carries its own warnings
// (docs/series.md). Occurrences keep the first start's wall-clock time in
// the request's zone across daylight-saving changes; one whose wall clock
// does not exist that day (a DST gap) moves forward with the clocks.
//
// A door that books free slots only and keeps the rules (the patient API:
// FreeSlotOnly, KeepRules) gets each occurrence checked as a single booking
// is, after the earlier ones are written (so max_future_per_client counts
// them): *SeriesRefused names every occurrence refused, and
// SeriesNotAllowed refuses a service whose rules do not allow_series.
func BookSeries(ctx context.Context, store *db.DB, acct account.Account, req BookRequest, rec Recurrence, now time.Time) (SeriesBooking, error) {
	return db.InTx(ctx, store, func(tx *db.Tx) (SeriesBooking, error) { return bookSeriesTx(ctx, tx, acct, req, rec, now) })
}

// errPreview rolls PreviewSeries' transaction back.
var errPreview = errors.New("series preview")

// PreviewSeries is what BookSeries would book now, occurrence by occurrence
// with its warnings, written nowhere: the series is booked in a transaction
// that is rolled back, so the preview applies exactly the rules a booking
// applies (docs/series.md). The dashboard shows it before booking a
// course. The ids in the answer are not kept.
func PreviewSeries(ctx context.Context, store *db.DB, acct account.Account, req BookRequest, rec Recurrence, now time.Time) (Series, error) {
	var out Series
	err := store.Transact(ctx, func(tx *db.Tx) error {
		b, err := bookSeriesTx(ctx, tx, acct, req, rec, now)
		if err != nil {
			return err
		}
		out = b.Series
		return errPreview
	})
	if errors.Is(err, errPreview) {
		err = nil
	}
	return out, err
}

// bookSeriesTx is BookSeries inside tx.
func bookSeriesTx(ctx context.Context, tx *db.Tx, acct account.Account, req BookRequest, rec Recurrence, now time.Time) (SeriesBooking, error) {
	loc, start, end, num, err := resolveRequest(acct, req)
	if err != nil {
		return SeriesBooking{}, err
	}
	starts, err := occurrences(start, loc, rec)
	if err != nil {
		return SeriesBooking{}, err
	}
	length := end.Sub(start)
	var out SeriesBooking
	if err := tx.QueryRow(ctx, `INSERT INTO series (account_id, created_at) VALUES (?, ?) RETURNING id`,
		acct.ID, db.Micros(now)).Scan(&out.Series.ID); err != nil {
		return out, fmt.Errorf("insert series: %w", err)
	}
	req.series = out.Series.ID
	refused := &SeriesRefused{}
	for i, s := range starts {
		b, err := bookIn(ctx, tx, acct, req, num, s, s.Add(length), loc, now)
		if refusedOccurrence(err) {
			refused.Occurrences = append(refused.Occurrences, RefusedOccurrence{StartAt: s, Err: err})
			continue
		}
		if err != nil {
			return out, err
		}
		if _, err := tx.Exec(ctx, `UPDATE appointments SET series_id = ? WHERE account_id = ? AND id = ?`,
			out.Series.ID, acct.ID, b.Appointment.ID); err != nil {
			return out, fmt.Errorf("link occurrence: %w", err)
		}
		if i == 0 {
			out.Booking = b
		}
		out.Series.Occurrences = append(out.Series.Occurrences, SeriesOccurrence{ID: b.Appointment.ID,
			StartAt: b.Appointment.StartAt, EndAt: b.Appointment.EndAt, Warnings: b.Appointment.Warnings})
	}
	if len(refused.Occurrences) > 0 {
		return out, refused
	}
	return out, queueSeriesConfirmation(ctx, tx, acct, out, starts, loc, now)
}

// SeriesRefused refuses a series booked with BookRequest.FreeSlotOnly or
// KeepRules: every occurrence that is not a free slot or breaks a booking
// rule, in order; nothing is written (docs/series.md). Like *RulesBroken it
// is not an errs.Error: the door answers it with its own codes.
type SeriesRefused struct {
	Occurrences []RefusedOccurrence
}

// RefusedOccurrence is one occurrence a SeriesRefused names: its start and
// why (ErrSlotTaken, ErrSlotPast or *RulesBroken).
type RefusedOccurrence struct {
	StartAt time.Time
	Err     error
}

func (e *SeriesRefused) Error() string {
	starts := make([]string, len(e.Occurrences))
	for i, o := range e.Occurrences {
		starts[i] = clock.Format(o.StartAt)
	}
	return "occurrences of the series cannot be booked: " + strings.Join(starts, ", ")
}

// Unwrap gives each occurrence's refusal, so errors.Is(err, ErrSlotTaken)
// and errors.As(err, **RulesBroken) see them.
func (e *SeriesRefused) Unwrap() []error {
	out := make([]error, len(e.Occurrences))
	for i, o := range e.Occurrences {
		out[i] = o.Err
	}
	return out
}

// refusedOccurrence says whether bookIn refused one occurrence for its
// slot or a rule (only with FreeSlotOnly or KeepRules), rather than the
// whole series.
func refusedOccurrence(err error) bool {
	var broken *RulesBroken
	return errors.Is(err, ErrSlotTaken) || errors.Is(err, ErrSlotPast) || errors.As(err, &broken)
}

// requireSeriesAllowed refuses a series of svc for a door that keeps the
// rules unless its rules allow_series (docs/booking-rules.md).
func requireSeriesAllowed(ctx context.Context, tx *db.Tx, acct account.Account, svc *service) error {
	r, err := EffectiveRules(ctx, tx, acct, svc.ID)
	if err != nil {
		return err
	}
	if !r.AllowSeries {
		return SeriesNotAllowed(svc.Name)
	}
	return nil
}

// SeriesNotAllowed is the refusal of a series of a service whose rules do
// not allow_series, for a door that keeps the rules: VALIDATION_ERROR at
// recurrence.
func SeriesNotAllowed(service string) error {
	return errs.WithDetails(errs.ValidationError, map[string]any{"field": "recurrence", "rule": RuleAllowSeries},
		"%s cannot be booked as a weekly course online; book one appointment.", service)
}

// queueSeriesConfirmation queues the series' one confirmation request, for
// its first occurrence.
func queueSeriesConfirmation(ctx context.Context, tx *db.Tx, acct account.Account, b SeriesBooking, starts []time.Time,
	loc *time.Location, now time.Time) error {
	c, err := contact.Get(ctx, tx, acct, b.ClientID)
	if err != nil {
		return err
	}
	a := b.Appointment
	return jobs.QueueSeriesConfirmation(ctx, tx, acct, jobs.Booking{AppointmentID: a.ID, ClientID: c.ID, Recipient: c.Phone.E164(),
		ClientName: greetingName(c), ServiceName: a.Service.Name, Professional: a.CalendarProfile.Name, StartAt: starts[0], Location: loc},
		starts, now)
}

// occurrences lists the starts of rec from first: the same wall clock in
// loc every Interval weeks.
func occurrences(first time.Time, loc *time.Location, rec Recurrence) ([]time.Time, error) {
	if err := CheckRecurrence(rec); err != nil {
		return nil, err
	}
	w := first.In(loc)
	at := func(k int) time.Time {
		return time.Date(w.Year(), w.Month(), w.Day()+7*rec.Interval*k, w.Hour(), w.Minute(), w.Second(), w.Nanosecond(), loc).UTC()
	}
	if rec.Count > 0 {
		out := make([]time.Time, rec.Count)
		for k := range out {
			out[k] = at(k)
		}
		return out, nil
	}
	until, _ := time.Parse(time.DateOnly, rec.Until)
	firstDay := time.Date(w.Year(), w.Month(), w.Day(), 0, 0, 0, 0, time.UTC)
	if until.Before(firstDay) || until.After(firstDay.AddDate(0, 0, MaxSeriesDays)) {
		return nil, errs.WithDetails(errs.ValidationError, map[string]any{"field": "recurrence.until", "value": rec.Until},
			"recurrence.until must be between the first start's date and %d days after it.", MaxSeriesDays)
	}
	var out []time.Time
	for k := 0; ; k++ {
		s := at(k)
		l := s.In(loc)
		if time.Date(l.Year(), l.Month(), l.Day(), 0, 0, 0, 0, time.UTC).After(until) {
			return out, nil
		}
		out = append(out, s)
	}
}

// CheckRecurrence is the recurrence's shape rule (docs/series.md); the
// front doors' decoders report each break in their own envelope first.
func CheckRecurrence(rec Recurrence) error {
	bad := func(field string) map[string]any { return map[string]any{"field": "recurrence." + field} }
	switch {
	case rec.Frequency != "weekly":
		return errs.WithDetails(errs.ValidationError, bad("frequency"), "recurrence.frequency must be \"weekly\".")
	case rec.Interval < MinSeriesInterval || rec.Interval > MaxSeriesInterval:
		return errs.WithDetails(errs.ValidationError, bad("interval"), "recurrence.interval must be between %d and %d.", MinSeriesInterval, MaxSeriesInterval)
	case (rec.Count == 0) == (rec.Until == ""):
		return errs.WithDetails(errs.ValidationError, bad("count"), "Send exactly one of recurrence.count and recurrence.until.")
	case rec.Until == "" && (rec.Count < MinSeriesCount || rec.Count > MaxSeriesCount):
		return errs.WithDetails(errs.ValidationError, bad("count"), "recurrence.count must be between %d and %d.", MinSeriesCount, MaxSeriesCount)
	}
	if rec.Until != "" {
		if _, err := time.Parse(time.DateOnly, rec.Until); err != nil {
			return errs.WithDetails(errs.ValidationError, bad("until"), "recurrence.until must be a date, YYYY-MM-DD.")
		}
	}
	return nil
}
