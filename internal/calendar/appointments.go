package calendar

// The dashboard's calendar: appointments by day and professional, and the
// reschedule and cancel it offers (their rules and effects live here, so any
// front door that offers them gives the same answer).

import (
	"context"
	"database/sql"
	"strings"
	"time"

	"github.com/frontdesk/frontdesk/internal/account"
	"github.com/frontdesk/frontdesk/internal/clock"
	"github.com/frontdesk/frontdesk/internal/contact"
	"github.com/frontdesk/frontdesk/internal/db"
	"github.com/frontdesk/frontdesk/internal/errs"
	"github.com/frontdesk/frontdesk/internal/jobs"
	"github.com/frontdesk/frontdesk/internal/phone"
)

// AppointmentView is an appointment as the dashboard's calendar shows it:
// its client, service, professional and event type by name.
type AppointmentView struct {
	ID                 int64
	StartAt, EndAt     time.Time
	Status             string
	Source             string
	ConfirmationStatus string
	Notes              string
	ClientID           int64
	ClientName         string
	ClientPhone        string
	ServiceID          int64
	ServiceName        string
	ServiceColor       string
	ProfessionalID     int64
	ProfessionalName   string
	EventTypeID        int64
	EventTypeName      string
	ResourceID         int64     // the room or equipment it holds (docs/rooms.md), 0 none
	ArrivedAt          time.Time // zero unless the patient was marked arrived
	StatusChangedAt    time.Time // the front desk's last status change; zero if none
	SeriesID           int64     // the weekly series it is an occurrence of (docs/series.md); 0 for none
}

// ProfessionalRef is a calendar profile by name, for pickers and filters.
type ProfessionalRef struct {
	ID     int64
	Name   string
	Active bool
}

// ProfessionalRefs lists the account's professionals by name.
func ProfessionalRefs(ctx context.Context, q db.Querier, acct account.Account) ([]ProfessionalRef, error) {
	rows, err := q.Query(ctx, `SELECT id, name, active FROM professionals WHERE account_id = ? ORDER BY name, id`, acct.ID)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	var out []ProfessionalRef
	for rows.Next() {
		var p ProfessionalRef
		if err := rows.Scan(&p.ID, &p.Name, &p.Active); err != nil {
			return nil, err
		}
		out = append(out, p)
	}
	return out, rows.Err()
}

const appointmentSelect = `SELECT a.id, a.start_at, a.end_at, a.status, a.source, a.confirmation_status, a.notes, a.arrived_at, a.status_changed_at,
		c.id, c.first_name, c.last_name, c.phone_cc, c.phone_national, s.id, s.name, s.color, p.id, p.name, e.id, e.name,
		COALESCE(a.resource_id, 0), a.series_id
	FROM appointments a JOIN clients c ON c.account_id = a.account_id AND c.id = a.client_id JOIN services s ON s.account_id = a.account_id AND s.id = a.service_id
	JOIN professionals p ON p.account_id = a.account_id AND p.id = a.professional_id JOIN event_types e ON e.account_id = a.account_id AND e.id = a.event_type_id`

func scanAppointment(row interface{ Scan(...any) error }) (AppointmentView, error) {
	var (
		a            AppointmentView
		start, end   int64
		first, last  string
		cc           sql.NullInt64
		national     sql.NullString
		serviceColor string
		arrived      sql.NullInt64
		changed      sql.NullInt64
		series       sql.NullInt64
	)
	err := row.Scan(&a.ID, &start, &end, &a.Status, &a.Source, &a.ConfirmationStatus, &a.Notes, &arrived, &changed,
		&a.ClientID, &first, &last, &cc, &national, &a.ServiceID, &a.ServiceName, &serviceColor, &a.ProfessionalID, &a.ProfessionalName, &a.EventTypeID, &a.EventTypeName,
		&a.ResourceID, &series)
	if err != nil {
		return a, err
	}
	a.StartAt, a.EndAt = db.Time(start), db.Time(end)
	if arrived.Valid {
		a.ArrivedAt = db.Time(arrived.Int64)
	}
	if changed.Valid {
		a.StatusChangedAt = db.Time(changed.Int64)
	}
	a.ClientName = contact.DisplayName(first, last)
	if national.Valid {
		a.ClientPhone = phone.Number{CountryCode: int(cc.Int64), National: national.String}.E164()
	}
	a.ServiceColor, a.SeriesID = serviceColor, series.Int64
	return a, nil
}

// ConfirmationStatuses are the values of an appointment's
// confirmation_status, in the order the calendar's filter offers them.
var ConfirmationStatuses = []string{ConfirmationPending, ConfirmationConfirmed, ConfirmationDeclined}

// AppointmentFilter narrows ListAppointments. Zero fields do not narrow,
// except From and To, which are required.
type AppointmentFilter struct {
	From, To       time.Time // appointments starting in [From, To)
	ProfessionalID int64
	Confirmation   string // one of ConfirmationStatuses
}

// ListAppointments lists the appointments f selects, by start.
func ListAppointments(ctx context.Context, q db.Querier, acct account.Account, f AppointmentFilter) ([]AppointmentView, error) {
	where, args := ` WHERE a.account_id = ? AND a.start_at >= ? AND a.start_at < ?`, []any{acct.ID, db.Micros(f.From), db.Micros(f.To)}
	if f.ProfessionalID != 0 {
		where += ` AND a.professional_id = ?`
		args = append(args, f.ProfessionalID)
	}
	if f.Confirmation != "" {
		where += ` AND a.confirmation_status = ?`
		args = append(args, f.Confirmation)
	}
	rows, err := q.Query(ctx, appointmentSelect+where+` ORDER BY a.start_at, p.name, a.id LIMIT 2000`, args...)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	var out []AppointmentView
	for rows.Next() {
		a, err := scanAppointment(rows)
		if err != nil {
			return nil, err
		}
		out = append(out, a)
	}
	return out, rows.Err()
}

// GetAppointment loads one appointment of the account.
func GetAppointment(ctx context.Context, q db.Querier, acct account.Account, id int64) (AppointmentView, error) {
	a, err := scanAppointment(q.QueryRow(ctx, appointmentSelect+` WHERE a.account_id = ? AND a.id = ?`, acct.ID, id))
	if db.IsNoRows(err) {
		return a, errs.New(errs.NotFound, "Appointment %v not found.", id)
	}
	return a, err
}

// rescheduleTx moves the booked appointment a to start, keeping its length
// (and optionally to another professional), in tx; MoveAppointmentTx
// checks the time first. Its pending messages are withdrawn and the
// calendar's notifications queued again for the new time, with the
// confirmation asked afresh (no sooner than the quiet window after the
// last request sent, confirmationNotBefore), its room or equipment given
// again at the new time (moveResource, whose warnings it returns), and
// appointment.rescheduled goes to the account's webhooks. change says who
// moved it (the event's data.by). A move of a course's sessions
// (MoveSeriesFrom) passes noConfirmation: the course asks once for all of
// them.
func rescheduleTx(ctx context.Context, tx *db.Tx, acct account.Account, a AppointmentView, start time.Time, professionalID int64, change Change,
	window time.Duration, noConfirmation bool, now time.Time) (AppointmentView, []Warning, error) {
	id := a.ID
	if a.Status != StatusBooked {
		return a, nil, errs.New(errs.ValidationError, "Only booked appointments can be rescheduled; this one is %s.", a.Status)
	}
	if professionalID == 0 {
		professionalID = a.ProfessionalID
	}
	if professionalID != a.ProfessionalID {
		var ok int
		err := tx.QueryRow(ctx, `SELECT COUNT(*) FROM professionals p JOIN service_professionals sp ON sp.account_id = p.account_id AND sp.professional_id = p.id
			JOIN appointments a ON a.account_id = sp.account_id AND a.service_id = sp.service_id
			WHERE p.account_id = ? AND p.id = ? AND p.active = ? AND a.id = ?`, acct.ID, professionalID, true, id).Scan(&ok)
		if err != nil {
			return a, nil, err
		}
		if ok == 0 {
			return a, nil, errs.New(errs.ValidationError, "That professional does not offer this service.")
		}
	}
	end := start.Add(a.EndAt.Sub(a.StartAt))
	if !instantsFit(start, end) {
		return a, nil, errs.New(errs.ValidationError, "An appointment must lie between the years 0001 and 9999 in UTC.")
	}
	if _, err := tx.Exec(ctx, `UPDATE appointments SET start_at = ?, end_at = ?, professional_id = ?, confirmation_status = 'pending', updated_at = ?
		WHERE account_id = ? AND id = ?`, db.Micros(start), db.Micros(end), professionalID, db.Micros(now), acct.ID, id); err != nil {
		return a, nil, err
	}
	if err := cancelNotifications(ctx, tx, acct, id, now); err != nil {
		return a, nil, err
	}
	// The room first, so the event names the one it holds after the move.
	moved := a
	moved.StartAt, moved.EndAt, moved.ProfessionalID = start, end, professionalID
	warnings, err := moveResource(ctx, tx, acct, moved, now)
	if err != nil {
		return a, nil, err
	}
	out, err := GetAppointment(ctx, tx, acct, id)
	if err != nil {
		return out, nil, err
	}
	notBefore, err := confirmationNotBefore(ctx, tx, acct, id, window, now)
	if err != nil {
		return out, nil, err
	}
	if err := jobs.QueueBookingNotifications(ctx, tx, acct, jobs.Booking{
		AppointmentID: id, ClientID: out.ClientID, Recipient: out.ClientPhone, ClientName: firstWord(out.ClientName),
		ServiceName: out.ServiceName, Professional: out.ProfessionalName, StartAt: out.StartAt, ConfirmationAt: notBefore,
		SkipConfirmationRequest: noConfirmation,
	}, now); err != nil {
		return out, nil, err
	}
	data := appointmentEvent(out)
	data["previous_start_at"], data["previous_end_at"] = clock.Format(a.StartAt), clock.Format(a.EndAt)
	data["previous_calendar_profile_id"] = a.ProfessionalID
	data["by"] = change.By
	return out, warnings, jobs.Emit(ctx, tx, acct, now, jobs.Event{Type: jobs.EventAppointmentRescheduled, SourceID: id, Data: data})
}

// appointmentEvent is the data of an appointment's webhook events, in the
// fields of appointment.booked (docs/contract.md, Webhook events), its
// resource_id among them (docs/rooms.md).
func appointmentEvent(a AppointmentView) map[string]any {
	return withSeries(map[string]any{"appointment_id": a.ID, "client_id": a.ClientID, "service_id": a.ServiceID,
		"calendar_profile_id": a.ProfessionalID, "event_type_id": a.EventTypeID,
		"start_at": clock.Format(a.StartAt), "end_at": clock.Format(a.EndAt), "source": a.Source, "resource_id": eventResource(a.ResourceID)}, a.SeriesID)
}

// withSeries adds series_id to an appointment event's data when the
// appointment is an occurrence of a series (additive, docs/series.md).
func withSeries(data map[string]any, series int64) map[string]any {
	if series != 0 {
		data["series_id"] = series
	}
	return data
}

// eventResource is an appointment's resource_id in its webhook events'
// data: null when it holds none (docs/rooms.md).
func eventResource(id int64) any {
	if id == 0 {
		return nil
	}
	return id
}

func firstWord(s string) string {
	if f, _, ok := strings.Cut(s, " "); ok {
		return f
	}
	return s
}

// Who changed an appointment: the data.by of appointment.cancelled and
// appointment.rescheduled (docs/manage-links.md).
const (
	ByPatient = "patient" // through the appointment's manage link
	ByStaff   = "staff"   // in the dashboard
	ByAPI     = "api"     // through the public API
)

// Change says who changes an appointment (one of ByPatient, ByStaff,
// ByAPI) and why (a cancellation's reason; "" for none).
type Change struct {
	By, Reason string
}

// CancelAppointment cancels a booked appointment and its pending reminders;
// appointment.cancelled, with change's by and reason, goes to the account's
// webhooks.
func CancelAppointment(ctx context.Context, store *db.DB, acct account.Account, id int64, change Change, now time.Time) error {
	return store.Transact(ctx, func(tx *db.Tx) error {
		_, err := CancelAppointmentTx(ctx, tx, acct, id, change, now)
		return err
	})
}

// CancelAppointmentTx is CancelAppointment inside tx; it returns the
// appointment as it was before the cancellation (its time is the time
// freed).
func CancelAppointmentTx(ctx context.Context, tx *db.Tx, acct account.Account, id int64, change Change, now time.Time) (AppointmentView, error) {
	a, err := GetAppointment(ctx, tx, acct, id)
	if err != nil {
		return a, err
	}
	if a.Status != StatusBooked {
		return a, errs.New(errs.ValidationError, "This appointment is already %s.", a.Status)
	}
	// The status in the WHERE clause makes a concurrent cancel that
	// committed first win: this one then changes nothing.
	res, err := tx.Exec(ctx, `UPDATE appointments SET status = 'cancelled', updated_at = ? WHERE account_id = ? AND id = ? AND status = ?`,
		db.Micros(now), acct.ID, id, StatusBooked)
	if err != nil {
		return a, err
	}
	if n, err := res.RowsAffected(); err != nil {
		return a, err
	} else if n == 0 {
		return a, errs.New(errs.ValidationError, "The appointment changed meanwhile; reload and try again.")
	}
	if err := cancelNotifications(ctx, tx, acct, id, now); err != nil {
		return a, err
	}
	data := appointmentEvent(a)
	data["by"] = change.By
	data["reason"] = nil
	if change.Reason != "" {
		data["reason"] = change.Reason
	}
	return a, jobs.Emit(ctx, tx, acct, now, jobs.Event{Type: jobs.EventAppointmentCancelled, SourceID: id, Data: data})
}

// cancelNotifications withdraws the booking messages of an appointment that
// have not been sent yet, and the jobs that would send them.
func cancelNotifications(ctx context.Context, tx *db.Tx, acct account.Account, appointmentID int64, now time.Time) error {
	if _, err := tx.Exec(ctx, `UPDATE jobs SET status = 'cancelled', finished_at = ?
		WHERE account_id = ? AND status = 'pending' AND outbox_id IN (SELECT id FROM outbox
			WHERE account_id = ? AND source_type = 'booking' AND source_id = ? AND status = 'pending')`,
		db.Micros(now), acct.ID, acct.ID, appointmentID); err != nil {
		return err
	}
	_, err := tx.Exec(ctx, `UPDATE outbox SET status = 'cancelled' WHERE account_id = ? AND source_type = 'booking' AND source_id = ? AND status = 'pending'`,
		acct.ID, appointmentID)
	return err
}
