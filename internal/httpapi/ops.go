package httpapi

import (
	"context"
	"net/http"
	"time"

	"github.com/frontdesk/frontdesk/internal/errs"
	"github.com/frontdesk/frontdesk/internal/workspace"
)

// handleHealth handles "GET /healthz": the process is up.
func (s *Server) handleHealth(w http.ResponseWriter, r *http.Request) error {
	writeJSON(w, http.StatusOK, map[string]string{"status": "ok"})
	return nil
}

// handleReady handles "GET /readyz": the database answers.
func (s *Server) handleReady(w http.ResponseWriter, r *http.Request) error {
	ctx, cancel := context.WithTimeout(r.Context(), 2*time.Second)
	defer cancel()
	if err := s.db.Ping(ctx); err != nil {
		logFrom(r).Warn("not ready", "err", err)
		writeJSON(w, http.StatusServiceUnavailable, map[string]string{"status": "unavailable", "database": "unreachable"})
		return nil
	}
	writeJSON(w, http.StatusOK, map[string]string{"status": "ok", "database": string(s.db.Engine())})
	return nil
}

// handleApplyWorkspace handles "PUT /api/v2/admin/workspaces/{slug}".
func (s *Server) handleApplyWorkspace(w http.ResponseWriter, r *http.Request) error {
	body, err := readRaw(w, r)
	if err != nil {
		return err
	}
	f, err := workspace.Parse(body)
	if err != nil {
		return errs.WithDetails(errs.ValidationError, map[string]any{"problems": err.(*workspace.Error).Problems}, "The workspace file is invalid.")
	}
	if f.Account.Slug != r.PathValue("slug") {
		return errs.WithDetails(errs.ValidationError, map[string]any{"field": "account.slug"},
			"account.slug %q does not match the slug in the path %q.", f.Account.Slug, r.PathValue("slug"))
	}
	res, err := s.workspace.ApplyFile(r.Context(), f)
	if werr, ok := err.(*workspace.Error); ok {
		return errs.WithDetails(errs.ValidationError, map[string]any{"problems": werr.Problems}, "The workspace file is invalid: %s", werr.Problems[0])
	}
	if err != nil {
		return err
	}
	writeJSON(w, http.StatusOK, res)
	return nil
}
