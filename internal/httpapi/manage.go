package httpapi

// The manage link's JSON door (docs/manage-links.md): no API key — the
// token in the path is the credential — limited per client address, and
// never cached, indexed or leaked through a Referer.

import (
	"net/http"

	"github.com/frontdesk/frontdesk/internal/calendar"
	"github.com/frontdesk/frontdesk/internal/ics"
	"github.com/frontdesk/frontdesk/internal/manage"
	"github.com/frontdesk/frontdesk/internal/ratelimit"
	"github.com/frontdesk/frontdesk/internal/valid"
)

// defaultPatients is the per-address limit of the patients' surfaces
// (docs/manage-links.md).
var defaultPatients = ratelimit.Limit{PerSecond: 10, Burst: 50}

// patientDoor wraps a handler of a patient's surface: the privacy headers
// on every answer (refusals included) and one token from the client
// address's patient bucket, 429 RATE_LIMITED when it is empty.
func (s *Server) patientDoor(next handlerFunc) handlerFunc {
	return func(w http.ResponseWriter, r *http.Request) error {
		h := w.Header()
		h.Set("Cache-Control", "no-store")
		h.Set("Referrer-Policy", "no-referrer")
		h.Set("X-Robots-Tag", "noindex")
		if l := s.limits; !l.off {
			d := l.addrs.Allow("patient:"+addressBucket(r), l.patients)
			setRateHeaders(h, d)
			if !d.Allowed {
				refuse(w, r, d, "Too many requests from this address.")
				return nil
			}
		}
		return next(w, r)
	}
}

func writeManageView(w http.ResponseWriter, v manage.View) {
	writeJSON(w, http.StatusOK, map[string]any{"status": "success", "data": v})
}

// handleManageGet handles "GET /api/v2/manage/{token}".
func (s *Server) handleManageGet(w http.ResponseWriter, r *http.Request) error {
	_, v, err := manage.Open(r.Context(), s.db, r.PathValue("token"), s.clock.Now())
	if err != nil {
		return err
	}
	writeManageView(w, v)
	return nil
}

// handleManageConfirm handles "POST /api/v2/manage/{token}/confirm".
func (s *Server) handleManageConfirm(w http.ResponseWriter, r *http.Request) error {
	v, err := manage.Confirm(r.Context(), s.db, r.PathValue("token"), s.clock.Now())
	if err != nil {
		return err
	}
	writeManageView(w, v)
	return nil
}

// handleManageDecline handles "POST /api/v2/manage/{token}/decline".
func (s *Server) handleManageDecline(w http.ResponseWriter, r *http.Request) error {
	v, err := manage.Decline(r.Context(), s.db, r.PathValue("token"), s.clock.Now())
	if err != nil {
		return err
	}
	writeManageView(w, v)
	return nil
}

// handleManageCancel handles "POST /api/v2/manage/{token}/cancel" with an
// optional body {reason}.
func (s *Server) handleManageCancel(w http.ResponseWriter, r *http.Request) error {
	body, err := readJSON(w, r, true)
	if err != nil {
		return err
	}
	rep := &valid.Report{}
	var reason string
	if body != nil {
		reason = manage.DecodeCancel(rep.Object(body, "model_type", "body"))
	}
	if err := rep.Err(); err != nil {
		return err
	}
	v, err := manage.Cancel(r.Context(), s.db, r.PathValue("token"), reason, s.clock.Now())
	if err != nil {
		return err
	}
	writeManageView(w, v)
	return nil
}

// handleManageReschedule handles "POST /api/v2/manage/{token}/reschedule"
// {start_at, professional_id}.
func (s *Server) handleManageReschedule(w http.ResponseWriter, r *http.Request) error {
	body, err := readJSON(w, r, false)
	if err != nil {
		return err
	}
	rep := &valid.Report{}
	in := manage.DecodeReschedule(rep.Object(body, "model_type", "body"))
	if err := rep.Err(); err != nil {
		return err
	}
	v, err := manage.Reschedule(r.Context(), s.db, r.PathValue("token"), in.Start, in.ProfessionalID, s.clock.Now())
	if err != nil {
		return err
	}
	writeManageView(w, v)
	return nil
}

// handleManageSlots handles "GET /api/v2/manage/{token}/slots": where the
// appointment may move (start_date, days as the free slots' query).
func (s *Server) handleManageSlots(w http.ResponseWriter, r *http.Request) error {
	values := r.URL.Query()
	if values.Get("start_date") == "" {
		values.Del("start_date")
	}
	rep := &valid.Report{}
	q := rep.Query(values)
	days := int(q.IntDefault("days", calendar.SlotDaysDefault, 1, calendar.SlotDaysMax))
	startDate, _ := q.Date("start_date")
	if err := rep.Err(); err != nil {
		return err
	}
	list, err := manage.Slots(r.Context(), s.db, r.PathValue("token"), startDate, days, s.clock.Now())
	if err != nil {
		return err
	}
	writeJSON(w, http.StatusOK, map[string]any{"status": "success", "data": list})
	return nil
}

// handleManageICS handles "GET /m/{token}/appointment.ics": the
// appointment as an iCalendar file.
func (s *Server) handleManageICS(w http.ResponseWriter, r *http.Request) error {
	now := s.clock.Now()
	file, err := manage.CalendarFile(r.Context(), s.db, r.PathValue("token"), now)
	if err != nil {
		return err
	}
	w.Header().Set("Content-Type", "text/calendar; charset=utf-8")
	w.Header().Set("Content-Disposition", `attachment; filename="appointment.ics"`)
	return ics.Write(w, file, now)
}
