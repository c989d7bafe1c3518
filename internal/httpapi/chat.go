package httpapi

import (
	"net/http"

	"github.com/frontdesk/frontdesk/internal/errs"
)

// Stubs until the chat area lands; each answers 404 NOT_FOUND.
func (s *Server) handleListConversations(w http.ResponseWriter, r *http.Request) error {
	return errs.New(errs.NotFound, "not implemented yet")
}
func (s *Server) handleListMessages(w http.ResponseWriter, r *http.Request) error {
	return errs.New(errs.NotFound, "not implemented yet")
}
func (s *Server) handleAppendMessage(w http.ResponseWriter, r *http.Request) error {
	return errs.New(errs.NotFound, "not implemented yet")
}
func (s *Server) handleUpdateConversation(w http.ResponseWriter, r *http.Request) error {
	return errs.New(errs.NotFound, "not implemented yet")
}
