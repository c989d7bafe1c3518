package httpapi_test

import (
	"context"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/frontdesk/frontdesk/internal/db"
	"github.com/frontdesk/frontdesk/internal/db/dbtest"
	"github.com/frontdesk/frontdesk/internal/mcp/mcptest"
)

// TestMCPBookSeries: book_appointment takes the API's recurrence and
// answers the series; a bad recurrence is refused as the API refuses it
// (docs/series.md).
func TestMCPBookSeries(t *testing.T) {
	dbtest.Engines(t, func(t *testing.T, store *db.DB) {
		h := newHarness(t, store)
		ts := httptest.NewServer(h.srv)
		defer ts.Close()
		cs, err := mcpConnect(context.Background(), ts.URL, acmeKey)
		if err != nil {
			t.Fatal(err)
		}
		defer cs.Close()
		mcptest.Series(t, cs, "+34600111398") // the check the stdio door passes too
		a := h.acme()
		args := func(rec map[string]any) map[string]any {
			return map[string]any{"client": map[string]any{"phone": "+34600111299", "first_name": "Curso"}, "service_id": a.Services["cleaning"],
				"professional_id": a.Professionals["lopez"], "event_type_id": a.EventTypes["visit"],
				"start_at": "2026-12-01T10:00:00", "end_at": "2026-12-01T10:30:00", "timezone": "Europe/Madrid", "recurrence": rec}
		}
		r := mcptest.Call(t, cs, "book_appointment", args(map[string]any{"frequency": "weekly", "interval": 2, "count": 3})).MustOK(t, "book_appointment")
		series, _ := r.Body["series"].(map[string]any)
		occ, _ := series["occurrences"].([]any)
		if len(occ) != 3 || occ[2].(map[string]any)["start_at"] != "2026-12-29T09:00:00Z" {
			t.Fatalf("series: %v", r.Body)
		}
		bad := mcptest.Call(t, cs, "book_appointment", args(map[string]any{"frequency": "weekly", "interval": 1, "count": 99}))
		if got := bad.Answer(); !strings.Contains(got, `"loc":["recurrence","count"]`) || !strings.Contains(got, "less_than_equal") {
			t.Errorf("count 99: %s", got)
		}
	})
}
