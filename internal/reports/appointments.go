package reports

import (
	"context"
	"fmt"
	"time"

	"github.com/frontdesk/frontdesk/internal/account"
	"github.com/frontdesk/frontdesk/internal/calendar"
	"github.com/frontdesk/frontdesk/internal/db"
)

// Appointments is the appointments section: the appointments starting in
// the period (docs/reports.md, Appointments).
type Appointments struct {
	Total    int
	ByStatus []Count
	BySource []Count
	// NoShows have status no_show; LateCancels were cancelled late by the
	// calendar's rule (calendar.LateCancelRule); Confirmed have
	// confirmation_status confirmed.
	NoShows, LateCancels, Confirmed int
	// MedianToConfirm is the median time from booking to confirmation
	// over the Timed confirmed appointments that have a confirmation time
	// (confirmed_at, kept since migration 00042).
	MedianToConfirm time.Duration
	Timed           int
	// Utilisation is per professional (empty outside the owner's scope);
	// UtilisationTotal sums every professional's, or the chosen one's.
	Utilisation      []Utilisation
	UtilisationTotal Utilisation
}

// NoShowRate, LateCancelRate and ConfirmationRate are in percent of Total.
func (a Appointments) NoShowRate() float64       { return Rate(a.NoShows, a.Total) }
func (a Appointments) LateCancelRate() float64   { return Rate(a.LateCancels, a.Total) }
func (a Appointments) ConfirmationRate() float64 { return Rate(a.Confirmed, a.Total) }

// Utilisation is a professional's booked minutes over working minutes.
type Utilisation struct {
	ProfessionalID int64
	Name           string
	BookedMinutes  int64 // appointments not cancelled, starting in the period
	WorkingMinutes int64 // working hours less time off, within the period
}

// Percent is BookedMinutes over WorkingMinutes in percent (0 with no
// working time).
func (u Utilisation) Percent() float64 {
	if u.WorkingMinutes == 0 {
		return 0
	}
	return float64(u.BookedMinutes) * 100 / float64(u.WorkingMinutes)
}

// ReadAppointments reads the appointments section: one GROUP BY for the
// counts and booked minutes, one read of the cancelled and the timed
// confirmed appointments (the late-cancel rule and the median need each),
// and the professionals' schedules.
func ReadAppointments(ctx context.Context, q db.Querier, acct account.Account, f Filter, scope Scope) (Appointments, error) {
	var a Appointments
	where, args := f.where(acct, "", "start_at")
	rows, err := q.Query(ctx, `SELECT professional_id, status, source, confirmation_status, COUNT(*), SUM(end_at - start_at)
		FROM appointments WHERE `+where+` GROUP BY professional_id, status, source, confirmation_status`, args...)
	if err != nil {
		return a, fmt.Errorf("count appointments: %w", err)
	}
	byStatus, bySource := map[string]int{}, map[string]int{}
	booked := map[int64]int64{} // professional → microseconds
	for rows.Next() {
		var (
			pro                          int64
			status, source, confirmation string
			n                            int
			micros                       int64
		)
		if err := rows.Scan(&pro, &status, &source, &confirmation, &n, &micros); err != nil {
			rows.Close()
			return a, err
		}
		a.Total += n
		byStatus[status] += n
		bySource[source] += n
		if status == calendar.StatusNoShow {
			a.NoShows += n
		}
		if confirmation == calendar.ConfirmationConfirmed {
			a.Confirmed += n
		}
		if status != calendar.StatusCancelled {
			booked[pro] += micros
		}
	}
	rows.Close()
	if err := rows.Err(); err != nil {
		return a, err
	}
	a.ByStatus, a.BySource = counts(byStatus), counts(bySource)
	if err := a.readTimes(ctx, q, acct, f); err != nil {
		return a, err
	}
	return a, a.readUtilisation(ctx, q, acct, f, scope, booked)
}

// readTimes applies the late-cancel rule to the period's cancelled
// appointments and takes the median time to confirm.
func (a *Appointments) readTimes(ctx context.Context, q db.Querier, acct account.Account, f Filter) error {
	rule, err := calendar.LoadLateCancelRule(ctx, q, acct)
	if err != nil {
		return err
	}
	where, args := f.where(acct, "", "start_at")
	rows, err := q.Query(ctx, `SELECT status, service_id, start_at, updated_at, created_at, confirmed_at FROM appointments
		WHERE `+where+` AND (status = 'cancelled' OR (confirmation_status = 'confirmed' AND confirmed_at IS NOT NULL))`, args...)
	if err != nil {
		return fmt.Errorf("read cancellations and confirmations: %w", err)
	}
	defer rows.Close()
	var toConfirm []time.Duration
	for rows.Next() {
		var (
			status                          string
			service, start, updated, booked int64
			confirmed                       *int64
		)
		if err := rows.Scan(&status, &service, &start, &updated, &booked, &confirmed); err != nil {
			return err
		}
		if status == calendar.StatusCancelled && rule.Late(service, db.Time(start), db.Time(updated)) {
			a.LateCancels++
		}
		if confirmed != nil {
			toConfirm = append(toConfirm, db.Time(*confirmed).Sub(db.Time(booked)))
		}
	}
	if err := rows.Err(); err != nil {
		return err
	}
	a.Timed = len(toConfirm)
	a.MedianToConfirm = median(toConfirm)
	return nil
}

// readUtilisation lays the active professionals' schedules over the
// period (calendar.Schedules: working hours less time off) beside their
// booked minutes. A professional with neither is left out.
func (a *Appointments) readUtilisation(ctx context.Context, q db.Querier, acct account.Account, f Filter, scope Scope, booked map[int64]int64) error {
	schedules, err := calendar.Schedules(ctx, q, acct, f.From, f.To)
	if err != nil {
		return err
	}
	for _, s := range schedules {
		if f.ProfessionalID != 0 && s.ID != f.ProfessionalID {
			continue
		}
		u := Utilisation{ProfessionalID: s.ID, Name: s.Name, BookedMinutes: booked[s.ID] / int64(time.Minute/time.Microsecond)}
		for _, w := range s.Work {
			u.WorkingMinutes += int64(w.End.Sub(w.Start) / time.Minute)
		}
		if u.BookedMinutes == 0 && u.WorkingMinutes == 0 {
			continue
		}
		a.UtilisationTotal.BookedMinutes += u.BookedMinutes
		a.UtilisationTotal.WorkingMinutes += u.WorkingMinutes
		if scope.PerProfessional {
			a.Utilisation = append(a.Utilisation, u)
		}
	}
	return nil
}
