package dashboard

import (
	"bytes"
	"context"
	"log/slog"
	"strings"
	"testing"

	"github.com/frontdesk/frontdesk/internal/reqid"
)

// The dashboard's log lines carry the id of the request they belong to.
func TestLoggerCarriesRequestID(t *testing.T) {
	var buf bytes.Buffer
	d := &Dashboard{log: slog.New(slog.NewTextHandler(&buf, nil))}
	d.logger(reqid.With(context.Background(), "req-42")).Info("dashboard: signed in")
	d.logger(context.Background()).Info("dashboard: sweep")
	lines := strings.Split(strings.TrimSpace(buf.String()), "\n")
	if len(lines) != 2 || !strings.Contains(lines[0], "request_id=req-42") || strings.Contains(lines[1], "request_id") {
		t.Fatalf("log: %s", buf.String())
	}
}
