package httpapi

import (
	"net/http"

	"github.com/frontdesk/frontdesk/internal/errs"
)

// Stubs until the waitlist area lands; each answers 404 NOT_FOUND.
func (s *Server) handleWaitlistAdd(w http.ResponseWriter, r *http.Request) error {
	return errs.New(errs.NotFound, "not implemented yet")
}
func (s *Server) handleWaitlistBatch(w http.ResponseWriter, r *http.Request) error {
	return errs.New(errs.NotFound, "not implemented yet")
}
func (s *Server) handleWaitlistRemoveMany(w http.ResponseWriter, r *http.Request) error {
	return errs.New(errs.NotFound, "not implemented yet")
}
func (s *Server) handleWaitlistList(w http.ResponseWriter, r *http.Request) error {
	return errs.New(errs.NotFound, "not implemented yet")
}
func (s *Server) handleWaitlistGet(w http.ResponseWriter, r *http.Request) error {
	return errs.New(errs.NotFound, "not implemented yet")
}
func (s *Server) handleWaitlistRemove(w http.ResponseWriter, r *http.Request) error {
	return errs.New(errs.NotFound, "not implemented yet")
}
func (s *Server) handleWaitlistSummary(w http.ResponseWriter, r *http.Request) error {
	return errs.New(errs.NotFound, "not implemented yet")
}
