package dashboard

import (
	"context"
	"log/slog"

	"github.com/frontdesk/frontdesk/internal/reqid"
)

// logger is the dashboard's logger for one request: every line carries the
// request's id, as the access log line does, so a user's report ("it
// failed at 10:42") leads to both.
func (d *Dashboard) logger(ctx context.Context) *slog.Logger {
	if id := reqid.From(ctx); id != "" {
		return d.log.With("request_id", id)
	}
	return d.log
}
