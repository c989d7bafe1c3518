package httpapi

import (
	"errors"
	"math"
	"net/http"
	"strconv"
	"strings"

	"github.com/frontdesk/frontdesk/internal/calendar"
	"github.com/frontdesk/frontdesk/internal/clock"
	"github.com/frontdesk/frontdesk/internal/errs"
	"github.com/frontdesk/frontdesk/internal/patients"
	"github.com/frontdesk/frontdesk/internal/valid"
)

// The patient API (docs/patient-api.md): a public, per-account surface for
// websites, apps and the booking page, without an API key. Every answer
// under bookPrefix, errors and unknown paths included, goes through
// patientDoor (manage.go): the privacy headers, and the client address's
// patient bucket.
const bookPrefix = "/api/v2/book"

// managePrefix is the manage link's API (docs/manage-links.md).
const managePrefix = "/api/v2/manage"

// isPatientPath reports whether path is the patient API's or the manage
// link API's: every answer there, unknown paths and wrong methods
// included, carries the privacy headers and counts against the address.
func isPatientPath(path string) bool {
	for _, prefix := range []string{bookPrefix, managePrefix} {
		if path == prefix || strings.HasPrefix(path, prefix+"/") {
			return true
		}
	}
	return false
}

// patientGate puts every request under bookPrefix, known path or not,
// through patientDoor: the privacy headers and the client address's
// patient bucket (shared with the manage link's API).
func (s *Server) patientGate(w http.ResponseWriter, r *http.Request, next http.Handler) {
	door := s.patientDoor(func(w http.ResponseWriter, r *http.Request) error {
		next.ServeHTTP(w, r)
		return nil
	})
	if err := door(w, r); err != nil {
		writeError(w, r, err)
	}
}

// openPage loads the page of the path's account_slug (404 when there is none).
func (s *Server) openPage(r *http.Request) (patients.Page, error) {
	return patients.Open(r.Context(), s.db, r.PathValue("account_slug"))
}

// handlePatientPage handles "GET /api/v2/book/{account_slug}".
func (s *Server) handlePatientPage(w http.ResponseWriter, r *http.Request) error {
	p, err := s.openPage(r)
	if err != nil {
		return err
	}
	writeJSON(w, http.StatusOK, map[string]any{"status": "success", "data": map[string]any{
		"account":  map[string]any{"name": p.Account.Name, "timezone": p.Account.Timezone, "language": p.Language},
		"services": p.Services,
	}})
	return nil
}

// handlePatientSlots handles "GET /api/v2/book/{account_slug}/slots".
func (s *Server) handlePatientSlots(w http.ResponseWriter, r *http.Request) error {
	if err := checkQueryString(r); err != nil {
		return err
	}
	p, err := s.openPage(r)
	if err != nil {
		return err
	}
	values := r.URL.Query()
	if values.Get("start_date") == "" {
		values.Del("start_date")
	}
	rep := &valid.Report{}
	q := rep.Query(values)
	sq := patients.SlotQuery{Days: int(q.IntDefault("days", patients.SlotDaysDefault, 1, patients.SlotDaysMax))}
	if id, ok := q.Int("service_id", math.MinInt64, math.MaxInt64); ok {
		sq.ServiceID = id
	} else if _, sent := values["service_id"]; !sent {
		rep.Add([]any{"query", "service_id"}, "missing", "Field required")
	}
	if values.Get("professional_id") != "" {
		if id, ok := q.Int("professional_id", math.MinInt64, math.MaxInt64); ok {
			sq.ProfessionalID = &id
		}
	}
	sq.StartDate, _ = q.Date("start_date")
	calendar.CheckWindow(rep, sq.StartDate, sq.Days, "query", "start_date")
	if err := rep.Err(); err != nil {
		return err
	}
	list, err := patients.Slots(r.Context(), s.db, p, sq, s.clock.Now())
	if err != nil {
		return err
	}
	writeJSON(w, http.StatusOK, map[string]any{"status": "success", "data": list})
	return nil
}

// handlePatientCode handles "POST /api/v2/book/{account_slug}/verification".
func (s *Server) handlePatientCode(w http.ResponseWriter, r *http.Request) error {
	p, err := s.openPage(r)
	if err != nil {
		return err
	}
	rep := &valid.Report{}
	o, _, err := readObject(w, r, rep)
	if err != nil {
		return err
	}
	phone := patients.DecodeCodeRequest(o)
	if err := rep.Err(); err != nil {
		return err
	}
	addr := strings.TrimPrefix(addressBucket(r), "addr:")
	expires, err := patients.RequestCode(r.Context(), s.db, p, phone, addr, s.clock.Now())
	if err != nil {
		return retryAfter(w, err)
	}
	writeJSON(w, http.StatusAccepted, map[string]any{"status": "success", "data": map[string]any{"expires_at": clock.Format(expires)}})
	return nil
}

// handlePatientBook handles "POST /api/v2/book/{account_slug}/appointments".
func (s *Server) handlePatientBook(w http.ResponseWriter, r *http.Request) error {
	p, err := s.openPage(r)
	if err != nil {
		return err
	}
	rep := &valid.Report{}
	o, _, err := readObject(w, r, rep)
	if err != nil {
		return err
	}
	in := patients.DecodeBookInput(o)
	if err := rep.Err(); err != nil {
		return err
	}
	b, err := patients.Book(r.Context(), s.db, p, in, s.clock.Now())
	if err != nil {
		return err
	}
	data := map[string]any{"appointment": b.Appointment, "manage_url": b.ManageURL}
	if b.Series != nil { // a course (docs/series.md)
		data["series"] = b.Series
	}
	writeJSON(w, http.StatusCreated, map[string]any{"status": "success", "data": data})
	return nil
}

// retryAfter sets Retry-After on an area's RATE_LIMITED refusal, from its
// details.retry_after_seconds, as the API's own limits do.
func retryAfter(w http.ResponseWriter, err error) error {
	var e *errs.Error
	if errors.As(err, &e) && e.Code == errs.RateLimited {
		if d, ok := e.Details.(map[string]any); ok {
			if secs, ok := d["retry_after_seconds"].(int64); ok {
				w.Header().Set("Retry-After", strconv.FormatInt(secs, 10))
			}
		}
	}
	return err
}
