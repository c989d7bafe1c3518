package httpapi

import (
	"net/http"

	"github.com/frontdesk/frontdesk/internal/errs"
)

// Stubs until the pipeline area lands; each answers 404 NOT_FOUND.
func (s *Server) handleListPipelines(w http.ResponseWriter, r *http.Request) error {
	return errs.New(errs.NotFound, "not implemented yet")
}
func (s *Server) handleListStages(w http.ResponseWriter, r *http.Request) error {
	return errs.New(errs.NotFound, "not implemented yet")
}
func (s *Server) handleListInputNodes(w http.ResponseWriter, r *http.Request) error {
	return errs.New(errs.NotFound, "not implemented yet")
}
func (s *Server) handleListPipelineClients(w http.ResponseWriter, r *http.Request) error {
	return errs.New(errs.NotFound, "not implemented yet")
}
func (s *Server) handleAddClients(w http.ResponseWriter, r *http.Request) error {
	return errs.New(errs.NotFound, "not implemented yet")
}
func (s *Server) handleRemoveClients(w http.ResponseWriter, r *http.Request) error {
	return errs.New(errs.NotFound, "not implemented yet")
}
func (s *Server) handleMoveClient(w http.ResponseWriter, r *http.Request) error {
	return errs.New(errs.NotFound, "not implemented yet")
}
func (s *Server) handleIngestBatch(w http.ResponseWriter, r *http.Request) error {
	return errs.New(errs.NotFound, "not implemented yet")
}
func (s *Server) handleIngestOne(w http.ResponseWriter, r *http.Request) error {
	return errs.New(errs.NotFound, "not implemented yet")
}
