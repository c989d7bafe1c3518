package httpapi

import (
	"net/http"

	"github.com/frontdesk/frontdesk/internal/calendar"
)

// seriesData is a series booking's data: the first occurrence as a single
// booking answers it, plus series (docs/series.md).
type seriesData struct {
	calendar.Appointment
	Series calendar.Series `json:"series"`
}

// bookSeries answers a booking with a recurrence (docs/series.md).
func (s *Server) bookSeries(w http.ResponseWriter, r *http.Request, req calendar.BookRequest, rec calendar.Recurrence) error {
	b, err := calendar.BookSeries(r.Context(), s.db, accountFrom(r.Context()), req, rec, s.clock.Now())
	if err != nil {
		return err
	}
	writeJSON(w, http.StatusOK, map[string]any{"status": "success", "data": seriesData{b.Appointment, b.Series},
		"client_id": b.ClientID, "client_created": b.ClientCreated})
	return nil
}
