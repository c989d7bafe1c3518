package dashboard

// Settings › Waiting lists: each list's schedule and seat-offer settings,
// through the waitlist area, audited.

import (
	"net/http"
	"time"

	"github.com/frontdesk/frontdesk/internal/db"
	"github.com/frontdesk/frontdesk/internal/waitlist"
)

// waitlistsSettings handles "GET /app/settings/waitlists".
func (d *Dashboard) waitlistsSettings(w http.ResponseWriter, r *http.Request, s *session) error {
	lists, err := waitlist.Schedules(r.Context(), d.db, s.Account)
	if err != nil {
		return err
	}
	d.render(w, r, s, http.StatusOK, "settings_waitlists", "Waiting-list schedules", "settings-waitlists", lists)
	return nil
}

// saveWaitlistSchedule handles "POST /app/settings/waitlists/{waitlist_id}".
func (d *Dashboard) saveWaitlistSchedule(w http.ResponseWriter, r *http.Request, s *session) error {
	id, err := pathID(r, "waitlist_id")
	if err != nil {
		return err
	}
	msg := s.Translate("Write whole numbers in every field.")
	horizon, err := formInt(s, r, "horizon_days", msg)
	if err != nil {
		return err
	}
	every, err := formInt(s, r, "run_every_minutes", msg)
	if err != nil {
		return err
	}
	ttl, err := formInt(s, r, "seat_ttl_minutes", msg)
	if err != nil {
		return err
	}
	maxOffers, err := formInt(s, r, "max_offers", msg)
	if err != nil {
		return err
	}
	// Beyond these the area refuses anyway; capping first keeps the
	// durations from overflowing into an accepted value.
	every, ttl = min(every, 1<<20), min(ttl, 1<<20)
	sched := waitlist.Schedule{Active: formBool(r, "active"), HorizonDays: horizon, RunEvery: time.Duration(every) * time.Minute,
		SeatTTL: time.Duration(ttl) * time.Minute, MaxOffers: maxOffers}
	changed, err := d.change(r.Context(), s, "updated", "waitlist", func(tx *db.Tx) (string, []string, error) {
		changes, err := waitlist.UpdateSchedule(r.Context(), tx, s.Account, id, sched, d.clock.Now())
		return idString(id), changes, err
	})
	if err != nil {
		return err
	}
	d.redirect(w, r, Prefix+"settings/waitlists", "ok", savedMessage(s, changed))
	return nil
}
