package dashboard

import (
	"net/http"

	"github.com/frontdesk/frontdesk/internal/errs"
)

func todo(w http.ResponseWriter, r *http.Request, s *session) error {
	return errs.New(errs.NotFound, "not yet")
}

var (
	_ = 0
)

func (d *Dashboard) clientsPage(w http.ResponseWriter, r *http.Request, s *session) error {
	return todo(w, r, s)
}
func (d *Dashboard) clientPage(w http.ResponseWriter, r *http.Request, s *session) error {
	return todo(w, r, s)
}
func (d *Dashboard) saveClient(w http.ResponseWriter, r *http.Request, s *session) error {
	return todo(w, r, s)
}
func (d *Dashboard) addTag(w http.ResponseWriter, r *http.Request, s *session) error {
	return todo(w, r, s)
}
func (d *Dashboard) removeTag(w http.ResponseWriter, r *http.Request, s *session) error {
	return todo(w, r, s)
}
func (d *Dashboard) waitlistsPage(w http.ResponseWriter, r *http.Request, s *session) error {
	return todo(w, r, s)
}
func (d *Dashboard) saveWaitlist(w http.ResponseWriter, r *http.Request, s *session) error {
	return todo(w, r, s)
}
func (d *Dashboard) removeEntry(w http.ResponseWriter, r *http.Request, s *session) error {
	return todo(w, r, s)
}
func (d *Dashboard) snoozeEntry(w http.ResponseWriter, r *http.Request, s *session) error {
	return todo(w, r, s)
}
func (d *Dashboard) flagEntry(w http.ResponseWriter, r *http.Request, s *session) error {
	return todo(w, r, s)
}
func (d *Dashboard) calendarPage(w http.ResponseWriter, r *http.Request, s *session) error {
	return todo(w, r, s)
}
func (d *Dashboard) reschedule(w http.ResponseWriter, r *http.Request, s *session) error {
	return todo(w, r, s)
}
func (d *Dashboard) cancelAppointment(w http.ResponseWriter, r *http.Request, s *session) error {
	return todo(w, r, s)
}
func (d *Dashboard) conversationsPage(w http.ResponseWriter, r *http.Request, s *session) error {
	return todo(w, r, s)
}
func (d *Dashboard) conversationPage(w http.ResponseWriter, r *http.Request, s *session) error {
	return todo(w, r, s)
}
func (d *Dashboard) activityPage(w http.ResponseWriter, r *http.Request, s *session) error {
	return todo(w, r, s)
}
