package dashboard

// Settings › Notifications: the reminder lead times and the confirmation
// request, owners only and audited.

import (
	"net/http"
	"strconv"
	"strings"

	"github.com/frontdesk/frontdesk/internal/clock"
	"github.com/frontdesk/frontdesk/internal/db"
	"github.com/frontdesk/frontdesk/internal/jobs"
)

// notificationsView is the notifications page: the settings, the
// reminders as the form writes them, and the bounds the form states.
type notificationsView struct {
	Settings         jobs.NotificationSettings
	Reminders        string
	Max              int
	MinLead, MaxLead string
}

func (notificationsView) isPage() {}

// notificationsPage handles "GET /app/settings/notifications".
func (d *Dashboard) notificationsPage(w http.ResponseWriter, r *http.Request, s *session) error {
	set, err := jobs.LoadNotificationSettings(r.Context(), d.db, s.Account)
	if err != nil {
		return err
	}
	d.render(w, r, s, http.StatusOK, "settings_notifications", "Notifications", "settings-notifications", notificationsView{
		Settings: set, Reminders: strings.Join(set.Reminders, ", "), Max: jobs.MaxReminders,
		MinLead: clock.Short(jobs.ReminderLead.Min), MaxLead: clock.Short(jobs.ReminderLead.Max),
	})
	return nil
}

// saveNotifications handles "POST /app/settings/notifications".
func (d *Dashboard) saveNotifications(w http.ResponseWriter, r *http.Request, s *session) error {
	in := jobs.NotificationSettings{
		ConfirmationRequest: r.PostForm.Get("confirmation_request") == "on",
		Reminders:           strings.FieldsFunc(r.PostForm.Get("reminders"), func(c rune) bool { return c == ',' || c == ' ' || c == ';' }),
	}
	err := d.audited(r.Context(), s, func(tx *db.Tx) (string, string, string, string, error) {
		saved, err := jobs.SaveNotificationSettings(r.Context(), tx, s.Account, in, d.clock.Now())
		if err != nil {
			return "", "", "", "", err
		}
		onOff := "off"
		if saved.ConfirmationRequest {
			onOff = "on"
		}
		rem := strings.Join(saved.Reminders, ", ")
		if rem == "" {
			rem = "none"
		}
		return "updated", "notifications", strconv.FormatInt(s.Account.ID, 10), "confirmation request " + onOff + "; reminders " + rem, nil
	})
	if err != nil {
		return localize(s, err)
	}
	d.redirect(w, r, Prefix+"settings/notifications", "ok", s.Translate("Notification settings saved. They apply to bookings made from now on."))
	return nil
}
