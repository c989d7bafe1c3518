package mcptest

import (
	"testing"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"
)

// Series books a weekly course through book_appointment (docs/series.md)
// with acme's first service and checks the answer both doors give: the
// first occurrence as appointment, and series with every occurrence at the
// same Madrid wall clock (09:00 UTC in winter). phone must be new to the
// account. It returns the answer's body.
func Series(t *testing.T, cs *sdk.ClientSession, phone string) map[string]any {
	t.Helper()
	svc := Call(t, cs, "list_services", nil).MustOK(t, "list_services")
	s0 := svc.Body["services"].([]any)[0].(map[string]any)
	r := Call(t, cs, "book_appointment", map[string]any{
		"client":     map[string]any{"phone": phone, "first_name": "Curso"},
		"service_id": s0["id"], "professional_id": s0["professionals"].([]any)[0].(map[string]any)["id"],
		"event_type_id": s0["event_types"].([]any)[0].(map[string]any)["id"],
		"start_at":      "2026-12-01T10:00:00", "end_at": "2026-12-01T10:30:00", "timezone": "Europe/Madrid",
		"recurrence": map[string]any{"frequency": "weekly", "interval": 2, "count": 3},
	}).MustOK(t, "book_appointment")
	series, _ := r.Body["series"].(map[string]any)
	occ, _ := series["occurrences"].([]any)
	if len(occ) != 3 || series["id"] == nil {
		t.Fatalf("series: %v", r.Body)
	}
	first := r.Body["appointment"].(map[string]any)
	for i, want := range []string{"2026-12-01T09:00:00Z", "2026-12-15T09:00:00Z", "2026-12-29T09:00:00Z"} {
		o := occ[i].(map[string]any)
		if o["start_at"] != want || o["id"] == nil {
			t.Errorf("occurrence %d = %v, want start_at %s", i, o, want)
		}
		if w, ok := o["warnings"].([]any); !ok || len(w) != 0 {
			t.Errorf("occurrence %d warnings = %v, want []", i, o["warnings"])
		}
	}
	if first["id"] != occ[0].(map[string]any)["id"] || r.Body["client_created"] != true {
		t.Errorf("appointment %v / client_created %v: want the first occurrence and a new client", first["id"], r.Body["client_created"])
	}
	return r.Body
}
