package dashboard

// Settings (owners only): the index that links every settings page, and
// what every settings page shares: each change is written to the audit log
// in the change's transaction (summaries name what changed, never a
// secret), and an area's refusal is shown in the user's language.

import (
	"context"
	"net/http"

	"github.com/frontdesk/frontdesk/internal/audit"
	"github.com/frontdesk/frontdesk/internal/db"
)

// audited runs change in a transaction and writes the audit entry it
// describes in the same transaction: a refused change leaves no entry.
func (d *Dashboard) audited(ctx context.Context, s *session, change func(tx *db.Tx) (action, objectType, objectID, summary string, err error)) error {
	return d.db.Transact(ctx, func(tx *db.Tx) error {
		action, objectType, objectID, summary, err := change(tx)
		if err != nil || action == "" {
			return err
		}
		return audit.Record(ctx, tx, s.Account, audit.Actor{UserID: s.UserID, UserName: s.UserName}, action, objectType, objectID, summary, d.clock.Now())
	})
}

// settingsIndex handles "GET /app/settings".
func (d *Dashboard) settingsIndex(w http.ResponseWriter, r *http.Request, s *session) error {
	d.render(w, r, s, http.StatusOK, "settings_index", "Settings", "settings", nil)
	return nil
}
