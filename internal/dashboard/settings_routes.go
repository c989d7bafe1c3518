package dashboard

// Settings (owners only): notifications, webhooks, team and invitations,
// the audit log, and the settings index that links every settings page
// (issue 22, part 5). Every change is written to the audit log in the
// change's transaction; summaries name what changed, never a secret.
// Invitations are accepted signed out, at /app/invite/{token}; each user
// picks their own language at /app/settings/me.

import (
	"context"
	"errors"
	"net/http"

	"github.com/frontdesk/frontdesk/internal/audit"
	"github.com/frontdesk/frontdesk/internal/db"
	"github.com/frontdesk/frontdesk/internal/errs"
)

// teamRoutes registers this part's pages and actions.
func (d *Dashboard) teamRoutes() {
	d.ownerPage("GET "+Prefix+"settings", d.settingsIndex)
	d.ownerPage("GET "+Prefix+"settings/{$}", d.settingsIndex)

	d.ownerPage("GET "+Prefix+"settings/notifications", d.notificationsPage)
	d.ownerAction("POST "+Prefix+"settings/notifications", d.saveNotifications)

	d.ownerPage("GET "+Prefix+"settings/webhooks", d.webhooksPage)
	d.ownerAction("POST "+Prefix+"settings/webhooks", d.createWebhook)
	d.ownerPage("GET "+Prefix+"settings/webhooks/{webhook_id}", d.webhookPage)
	d.ownerAction("POST "+Prefix+"settings/webhooks/{webhook_id}/active", d.toggleWebhook)
	d.ownerAction("POST "+Prefix+"settings/webhooks/{webhook_id}/delete", d.deleteWebhook)

	d.ownerPage("GET "+Prefix+"settings/team", d.teamPage)
	d.ownerAction("POST "+Prefix+"settings/team/invitations", d.invite)
	d.ownerAction("POST "+Prefix+"settings/team/invitations/{invitation_id}/withdraw", d.withdrawInvitation)
	d.ownerAction("POST "+Prefix+"settings/team/{user_id}/role", d.changeRole)
	d.ownerAction("POST "+Prefix+"settings/team/{user_id}/active", d.toggleMember)

	d.ownerPage("GET "+Prefix+"settings/audit", d.auditPage)

	// GET settings/channels is registered with the wave-1 pages.
	d.ownerAction("POST "+Prefix+"settings/channels", d.createChannel)
	d.ownerAction("POST "+Prefix+"settings/channels/{key}", d.updateChannel)
	d.ownerAction("POST "+Prefix+"settings/channels/{key}/test", d.testChannel)

	// Every user's own preferences, owner or staff.
	d.page("GET "+Prefix+"settings/me", d.mePage)
	d.action("POST "+Prefix+"settings/me", d.saveMe)

	// Signed out: the invitation's link.
	d.mux.HandleFunc("GET "+Prefix+"invite/{token}", d.invitePage)
	d.mux.HandleFunc("POST "+Prefix+"invite/{token}", d.acceptInvite)
}

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

// localized puts an area's refusal into the user's language when its
// words are a registered text (refusals with values in them stay English).
func localized(s *session, err error) error {
	var e *errs.Error
	if errors.As(err, &e) && e.Code == errs.ValidationError {
		if _, ok := spanish[e.Message]; ok {
			return errs.New(errs.ValidationError, "%s", s.T(e.Message))
		}
	}
	return err
}

// settingsIndex handles "GET /app/settings".
func (d *Dashboard) settingsIndex(w http.ResponseWriter, r *http.Request, s *session) error {
	d.render(w, r, s, http.StatusOK, "settings_index", "Settings", "settings", nil)
	return nil
}
