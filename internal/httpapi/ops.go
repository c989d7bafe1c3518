package httpapi

import (
	"context"
	"errors"
	"net/http"
	"sync"
	"time"

	"github.com/frontdesk/frontdesk/internal/db"

	"github.com/frontdesk/frontdesk/internal/errs"
	"github.com/frontdesk/frontdesk/internal/workspace"
)

// handleHealth handles "GET /healthz": the process is up.
func (s *Server) handleHealth(w http.ResponseWriter, r *http.Request) error {
	writeJSON(w, http.StatusOK, map[string]string{"status": "ok"})
	return nil
}

// handleReady handles "GET /readyz": the database answers and takes
// writes. Every probe pings (cheap: a database gone is seen at once); the
// write (db.Heartbeat) runs at most once per readyWriteEvery and its
// result is reused meanwhile, so probes cannot load the database.
func (s *Server) handleReady(w http.ResponseWriter, r *http.Request) error {
	ctx, cancel := context.WithTimeout(r.Context(), 2*time.Second)
	defer cancel()
	if err := s.db.Ping(ctx); err != nil {
		logFrom(r).Warn("not ready", "err", err)
		writeJSON(w, http.StatusServiceUnavailable, map[string]string{"status": "unavailable", "database": "unreachable"})
		return nil
	}
	if err := s.ready.writable(ctx, s.db, s.clock.Now()); err != nil {
		logFrom(r).Warn("not ready: the database refuses writes", "err", err)
		writeJSON(w, http.StatusServiceUnavailable, map[string]string{"status": "unavailable", "database": "refuses writes"})
		return nil
	}
	writeJSON(w, http.StatusOK, map[string]string{"status": "ok", "database": string(s.db.Engine())})
	return nil
}

// readyWriteEvery is how often readiness writes to the database at most.
const readyWriteEvery = time.Second

// readiness remembers the last write probe. Its pacing uses the wall
// clock, not the server's (tests' clocks stand still).
type readiness struct {
	mu  sync.Mutex
	at  time.Time // monotonic time of the last probe
	err error
}

// writable returns the last write probe's result, probing again when it is
// older than readyWriteEvery; concurrent callers wait for one probe.
func (rd *readiness) writable(ctx context.Context, store *db.DB, now time.Time) error {
	rd.mu.Lock()
	defer rd.mu.Unlock()
	if !rd.at.IsZero() && time.Since(rd.at) < readyWriteEvery {
		return rd.err
	}
	err := store.Heartbeat(ctx, now)
	if errors.Is(err, context.DeadlineExceeded) || errors.Is(err, context.Canceled) {
		// The write did not get its turn in time (a long batch holds
		// SQLite's writer): busy is not refusing. Keep the last real
		// answer and probe again next time.
		return rd.err
	}
	rd.err, rd.at = err, time.Now()
	return rd.err
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
