// Package reports is a clinic's numbers over a period (docs/reports.md):
// appointments (by status and source, no-show, late-cancel and
// confirmation rates, time to confirm, utilisation per professional),
// messages by channel and status, the waiting list's seat offers, the
// pipelines' funnels and new clients by source.
//
// Every section is read with set-based queries (GROUP BY over indexed
// columns, account_id first) that run the same on SQLite and PostgreSQL;
// medians are computed here from the sorted durations of a bounded set.
// Rules that belong to an area are the area's: the late-cancel rule and the
// working time come from package calendar.
package reports

import (
	"context"
	"slices"
	"time"

	"github.com/frontdesk/frontdesk/internal/account"
	"github.com/frontdesk/frontdesk/internal/db"
	"github.com/frontdesk/frontdesk/internal/errs"
)

// Filter is what a report covers: the instants [From, To) (the days the
// reader chose, in the account's zone), and optionally one professional
// and one service (0: all). Messages and clients have neither, so those
// sections ignore them.
type Filter struct {
	From, To       time.Time
	ProfessionalID int64
	ServiceID      int64
}

// Scope is what the reader may see (docs/reports.md, Who sees what). An
// owner sees everything. A staff user who is a professional (users'
// professional, set in the workspace file or Settings › Team) sees that
// professional's numbers: every appointment number is theirs and no other
// professional can be chosen. A staff user who is no professional sees
// the clinic's totals but no professional's numbers.
type Scope struct {
	PerProfessional bool
	Own             int64 // the staff user's professional, 0 none
}

// ScopeFor is the scope of a user of role ("owner" or "staff") who is the
// professional professionalID (0: none).
func ScopeFor(role string, professionalID int64) Scope {
	switch {
	case role == "owner":
		return Scope{PerProfessional: true}
	case professionalID != 0:
		return Scope{PerProfessional: true, Own: professionalID}
	}
	return Scope{}
}

// Narrow is f within scope: a staff professional's filter is always their
// own professional.
func (scope Scope) Narrow(f Filter) Filter {
	if scope.Own != 0 && f.ProfessionalID == 0 {
		f.ProfessionalID = scope.Own
	}
	return f
}

// MaxDays bounds a period, so a report reads at most a year and a bit.
const MaxDays = 400

// Count is how many rows share a key (a status, a source, a channel).
type Count struct {
	Key string
	N   int
}

// Report is every section for one filter.
type Report struct {
	Filter       Filter
	Scope        Scope
	Appointments Appointments
	Messages     Messages
	Waitlist     Waitlist
	Pipelines    []Funnel
	NewClients   NewClients
}

// Build reads every section.
func Build(ctx context.Context, q db.Querier, acct account.Account, f Filter, scope Scope, now time.Time) (Report, error) {
	f = scope.Narrow(f)
	r := Report{Filter: f, Scope: scope}
	if err := f.check(scope); err != nil {
		return r, err
	}
	var err error
	if r.Appointments, err = ReadAppointments(ctx, q, acct, f, scope); err != nil {
		return r, err
	}
	if r.Messages, err = ReadMessages(ctx, q, acct, f); err != nil {
		return r, err
	}
	if r.Waitlist, err = ReadWaitlist(ctx, q, acct, f, now); err != nil {
		return r, err
	}
	if r.Pipelines, err = ReadFunnels(ctx, q, acct, f); err != nil {
		return r, err
	}
	if r.NewClients, err = ReadNewClients(ctx, q, acct, f); err != nil {
		return r, err
	}
	return r, nil
}

// check refuses an empty or too long period, and a professional filter
// outside the scope.
func (f Filter) check(scope Scope) error {
	if !f.From.Before(f.To) {
		return errs.New(errs.ValidationError, "The period must end after it starts.")
	}
	if f.To.Sub(f.From) > MaxDays*24*time.Hour+time.Hour {
		return errs.New(errs.ValidationError, "A report covers at most %d days.", MaxDays)
	}
	if f.ProfessionalID != 0 && (!scope.PerProfessional || scope.Own != 0 && f.ProfessionalID != scope.Own) {
		return errs.New(errs.Forbidden, "Only owners see a professional's numbers.")
	}
	return nil
}

// where is the appointments' filter: the account, start within the
// period, and the professional and service when chosen. alias prefixes the
// columns ("" or "a.").
func (f Filter) where(acct account.Account, alias, column string) (string, []any) {
	w := alias + "account_id = ? AND " + alias + column + " >= ? AND " + alias + column + " < ?"
	args := []any{acct.ID, db.Micros(f.From), db.Micros(f.To)}
	if f.ProfessionalID != 0 {
		w += " AND " + alias + "professional_id = ?"
		args = append(args, f.ProfessionalID)
	}
	if f.ServiceID != 0 {
		w += " AND " + alias + "service_id = ?"
		args = append(args, f.ServiceID)
	}
	return w, args
}

// Rate is part of whole in percent (0 when whole is 0).
func Rate(part, whole int) float64 {
	if whole == 0 {
		return 0
	}
	return float64(part) * 100 / float64(whole)
}

// median is the middle of the durations (the mean of the two middle ones
// for an even count), 0 for none. It sorts ds.
func median(ds []time.Duration) time.Duration {
	if len(ds) == 0 {
		return 0
	}
	slices.Sort(ds)
	n := len(ds)
	if n%2 == 1 {
		return ds[n/2]
	}
	return (ds[n/2-1] + ds[n/2]) / 2
}

// counts turns a map of counts into a list, largest first, then by key.
func counts(m map[string]int) []Count {
	out := make([]Count, 0, len(m))
	for k, n := range m {
		out = append(out, Count{k, n})
	}
	slices.SortFunc(out, func(a, b Count) int {
		if a.N != b.N {
			return b.N - a.N
		}
		if a.Key < b.Key {
			return -1
		}
		if a.Key > b.Key {
			return 1
		}
		return 0
	})
	return out
}
