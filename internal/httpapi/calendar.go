package httpapi

import (
	"math"
	"net/http"

	"github.com/frontdesk/frontdesk/internal/calendar"
	"github.com/frontdesk/frontdesk/internal/valid"
)

// handleListServices handles "GET /api/v2/public/calendar/services".
func (s *Server) handleListServices(w http.ResponseWriter, r *http.Request) error {
	list, snap, err := calendar.Services(r.Context(), s.db, accountFrom(r.Context()), s.clock.Now())
	if err != nil {
		return err
	}
	if snap == nil { // too large to keep in memory
		writeJSON(w, http.StatusOK, servicesBody(list))
		return nil
	}
	// The encoded answer is kept beside the snapshot it encodes.
	body, err := snap.Encoded("httpapi", func(list []calendar.Service) ([]byte, error) { return encodeJSON(servicesBody(list)) })
	if err != nil {
		return err
	}
	writeEncoded(w, http.StatusOK, body)
	return nil
}

func servicesBody(list []calendar.Service) any {
	return map[string]any{"status": "success", "data": list}
}

// handleAvailability handles "GET /api/v2/public/calendar/availability".
func (s *Server) handleAvailability(w http.ResponseWriter, r *http.Request) error {
	// An empty start_date or timezone (?timezone=) means "not sent": query
	// builders emit empty parameters for unset fields.
	values := r.URL.Query()
	for _, k := range []string{"start_date", "timezone"} {
		if values.Get(k) == "" {
			values.Del(k)
		}
	}
	rep := &valid.Report{}
	q := rep.Query(values)
	aq := calendar.AvailabilityQuery{Days: int(q.IntDefault("days", 14, 1, 90))}
	aq.StartDate, _ = q.Date("start_date")
	calendar.CheckWindow(rep, aq.StartDate, aq.Days, "query", "start_date")
	aq.Timezone, _ = q.Str("timezone", calendar.MaxTimezoneLen)
	aq.ServiceIDs = q.Ints("service_id", valid.MaxQueryIDs)
	if err := rep.Err(); err != nil {
		return err
	}
	acct := accountFrom(r.Context())
	av, err := calendar.ComputeAvailability(r.Context(), s.db, acct, aq, s.clock.Now())
	if err != nil {
		return err
	}
	writeJSON(w, http.StatusOK, map[string]any{"status": "success", "data": av})
	return nil
}

// handleSlots handles "GET /api/v2/public/calendar/availability/slots"
// (docs/contract.md, Free slots).
func (s *Server) handleSlots(w http.ResponseWriter, r *http.Request) error {
	values := r.URL.Query()
	for _, k := range []string{"start_date", "timezone"} {
		if values.Get(k) == "" {
			values.Del(k)
		}
	}
	rep := &valid.Report{}
	q := rep.Query(values)
	sq := calendar.SlotsQuery{Days: int(q.IntDefault("days", calendar.SlotDaysDefault, 1, calendar.SlotDaysMax)),
		Limit: int(q.IntDefault("limit", calendar.SlotLimitDefault, 1, calendar.SlotLimitMax))}
	if id, ok := q.Int("service_id", math.MinInt64, math.MaxInt64); ok {
		sq.ServiceID = id
	} else if _, sent := values["service_id"]; !sent {
		rep.Add([]any{"query", "service_id"}, "missing", "Field required")
	}
	sq.ProfessionalIDs = q.Ints("professional_id", calendar.MaxSlotProfessionals)
	sq.StartDate, _ = q.Date("start_date")
	calendar.CheckWindow(rep, sq.StartDate, sq.Days, "query", "start_date")
	sq.Timezone, _ = q.Str("timezone", calendar.MaxTimezoneLen)
	if err := rep.Err(); err != nil {
		return err
	}
	list, err := calendar.ListFreeSlots(r.Context(), s.db, accountFrom(r.Context()), sq, s.clock.Now())
	if err != nil {
		return err
	}
	writeJSON(w, http.StatusOK, map[string]any{"status": "success", "data": list})
	return nil
}

// handleBook handles "POST /api/v2/public/calendar/events".
func (s *Server) handleBook(w http.ResponseWriter, r *http.Request) error {
	body, err := readJSON(w, r, false)
	if err != nil {
		return err
	}
	rep := &valid.Report{}
	o := rep.Object(body, "model_type", "body")
	req := calendar.DecodeBooking(o)
	rec := calendar.DecodeRecurrence(o, req.StartAt)
	if err := rep.Err(); err != nil {
		return err
	}
	if rec != nil {
		return s.bookSeries(w, r, req, *rec)
	}
	b, err := calendar.Book(r.Context(), s.db, accountFrom(r.Context()), req, s.clock.Now())
	if err != nil {
		return err
	}
	writeJSON(w, http.StatusOK, map[string]any{"status": "success", "data": b.Appointment,
		"client_id": b.ClientID, "client_created": b.ClientCreated})
	return nil
}
