package httpapi

import (
	"net/http"

	"github.com/frontdesk/frontdesk/internal/errs"
)

// Stubs until the calendar area lands; each answers 404 NOT_FOUND.
func (s *Server) handleListServices(w http.ResponseWriter, r *http.Request) error {
	return errs.New(errs.NotFound, "not implemented yet")
}
func (s *Server) handleAvailability(w http.ResponseWriter, r *http.Request) error {
	return errs.New(errs.NotFound, "not implemented yet")
}
func (s *Server) handleBook(w http.ResponseWriter, r *http.Request) error {
	return errs.New(errs.NotFound, "not implemented yet")
}
