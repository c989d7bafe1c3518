package dashboard

// Settings (owners only): the catalogue — services, professionals with
// working hours and time off, event types, waiting-list schedules. The rules and the SQL are calendar's (catalog_admin.go,
// professionals_admin.go) and waitlist's (schedule_admin.go); a handler
// reads the form, runs the change and its audit entry in one transaction
// (change) and goes back with a message. A form that changes nothing writes
// nothing, not even an audit entry.

import (
	"context"
	"errors"
	"net/http"
	"strconv"
	"strings"

	"github.com/frontdesk/frontdesk/internal/audit"
	"github.com/frontdesk/frontdesk/internal/db"
	"github.com/frontdesk/frontdesk/internal/errs"
)

// change runs fn and, when it changed something, its audit entry in one
// transaction: a refused or failed change leaves neither. fn returns the
// object's id (as the audit names it) and what changed, in words.
func (d *Dashboard) change(ctx context.Context, s *session, action, objectType string, fn func(tx *db.Tx) (string, []string, error)) (bool, error) {
	changed := false
	err := d.db.Transact(ctx, func(tx *db.Tx) error {
		id, changes, err := fn(tx)
		if err != nil || len(changes) == 0 {
			return err
		}
		changed = true
		return audit.Record(ctx, tx, s.Account, audit.Actor{UserID: s.UserID, UserName: s.UserName},
			action, objectType, id, strings.Join(changes, "; "), d.clock.Now())
	})
	return changed, localize(s, err)
}

// localize puts an area's refusal into the user's language (see
// session.Err).
func localize(s *session, err error) error {
	var e *errs.Error
	if errors.As(err, &e) && e.Code == errs.ValidationError {
		return errs.New(e.Code, "%s", s.Err(e))
	}
	return err
}

func idString(id int64) string { return strconv.FormatInt(id, 10) }

// formIDs reads repeated id fields (checkboxes); a malformed one is refused.
func formIDs(s *session, r *http.Request, name string) ([]int64, error) {
	var out []int64
	for _, v := range r.PostForm[name] {
		id, err := strconv.ParseInt(strings.TrimSpace(v), 10, 64)
		if err != nil || id <= 0 {
			return nil, errs.New(errs.ValidationError, "%s", s.T("The form sent an id that is not a number. Reload the page and try again."))
		}
		out = append(out, id)
	}
	return out, nil
}

func formInt(s *session, r *http.Request, name, msg string) (int, error) {
	n, err := strconv.Atoi(strings.TrimSpace(r.PostForm.Get(name)))
	if err != nil {
		return 0, errs.New(errs.ValidationError, "%s", msg)
	}
	return n, nil
}

func formBool(r *http.Request, name string) bool { return r.PostForm.Get(name) == "true" }
