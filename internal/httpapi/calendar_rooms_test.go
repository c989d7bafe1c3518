package httpapi_test

import (
	"testing"

	"github.com/frontdesk/frontdesk/internal/db"
	"github.com/frontdesk/frontdesk/internal/db/dbtest"
)

// TestBookingRooms: the public API's appointment carries resource, null
// for a service that needs none; a room service gets the one box, and the
// next booking of that time is made with no_resource_free and resource
// null; the free slots of that time are gone (docs/rooms.md).
func TestBookingRooms(t *testing.T) {
	dbtest.Engines(t, func(t *testing.T, store *db.DB) {
		h := newHarness(t, store, "testdata/calendar.yaml")
		res := h.do("POST", calendarPath+"/events", acmeKey, booking(map[string]any{})).must(t, 200)
		if r, ok := res.get("data").(map[string]any)["resource"]; !ok || r != nil {
			t.Fatalf("a service needing nothing: resource = %v (present %v)", r, ok)
		}
		h.applyData([]byte(`account: {slug: acme}
resources: [{key: box1, name: Box 1, kind: room}]
services: [{key: ortho, resources: {any_of: [box1]}}]`))
		ortho := map[string]any{"service_name": "Ortodoncia", "professional_name": "Dra. García",
			"start_at": "2026-12-02T10:00:00", "end_at": "2026-12-02T11:00:00"}
		res = h.do("POST", calendarPath+"/events", acmeKey, booking(ortho)).must(t, 200)
		if name := res.get("data", "resource", "name"); name != "Box 1" || len(warningsOf(t, res)) != 0 {
			t.Fatalf("first ortho: %s", res.Raw)
		}
		ortho["client"] = client("Otra", "Persona", "+34611000077")
		res = h.do("POST", calendarPath+"/events", acmeKey, booking(ortho)).must(t, 200)
		codes := warningCodes(warningsOf(t, res))
		if r := res.get("data", "resource"); r != nil || codes[len(codes)-1] != "no_resource_free" {
			t.Fatalf("second ortho: resource %v, warnings %v", r, codes)
		}
	})
}
