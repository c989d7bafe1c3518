package httpapi_test

import (
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"sort"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/frontdesk/frontdesk/internal/calendar"
	"github.com/frontdesk/frontdesk/internal/db"
	"github.com/frontdesk/frontdesk/internal/db/dbtest"
	"github.com/frontdesk/frontdesk/internal/jobs"
	"github.com/frontdesk/frontdesk/internal/outbound"
)

// Outbound webhooks (beyond the contract): each write emits its event, in
// its transaction, delivered signed by the durable jobs.
func TestOutboundWebhookEvents(t *testing.T) {
	dbtest.Engines(t, func(t *testing.T, store *db.DB) {
		var (
			mu  sync.Mutex
			got []map[string]any
		)
		recv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			body, _ := io.ReadAll(r.Body)
			ts, _, _ := strings.Cut(strings.TrimPrefix(r.Header.Get("Frontdesk-Signature"), "t="), ",")
			var unix int64
			fmt.Sscan(ts, &unix)
			if r.Header.Get("Frontdesk-Signature") != jobs.Sign("whsec", body, time.Unix(unix, 0)) {
				t.Errorf("bad signature on %s", body)
			}
			var ev map[string]any
			json.Unmarshal(body, &ev)
			mu.Lock()
			got = append(got, ev)
			mu.Unlock()
		}))
		defer recv.Close()
		h := newHarness(t, store)
		h.applyData([]byte(`account: {slug: acme, name: Acme Clinic, timezone: Europe/Madrid, default_region: ES}
webhooks: [{key: all, url: "` + recv.URL + `", secret: whsec}]`))
		ids := h.acme()

		h.do("POST", "/api/v2/public/calendar/events", acmeKey, map[string]any{
			"client": map[string]any{"phone": "+34611777001", "first_name": "Eva"}, "service_id": ids.Services["cleaning"],
			"professional_id": ids.Professionals["lopez"], "event_type_id": ids.EventTypes["visit"],
			"start_at": "2026-11-30T10:00:00", "end_at": "2026-11-30T10:30:00", "timezone": "Europe/Madrid"}).must(t, 200)
		entry := h.do("POST", "/api/v2/public/calendar/waitlist/entries", acmeKey, map[string]any{
			"phone": "+34611777002", "first_name": "Leo", "service_ids": []int64{ids.Services["cleaning"]}}).must(t, 200)
		h.do("DELETE", fmt.Sprintf("/api/v2/public/calendar/waitlist/entries/%d", int64(entry.num("data", "entries", 0, "id"))), acmeKey, nil).must(t, 200)
		ingest(h, webNode, map[string]any{"clients": rows(map[string]any{"phone_number": "+34611777003"}), "trigger_automations": false}).must(t, 200)
		sales := ids.Pipelines["sales"]
		h.do("PATCH", fmt.Sprintf("%s/pipelines/%d/clients/%d/move", leadflow, sales, ids.Clients["maria"]), acmeKey,
			map[string]any{"target_stage_id": ids.Stages["sales/contacted"]}).must(t, 200)
		h.do("POST", fmt.Sprintf("%s/pipelines/%d/clients/remove", leadflow, sales), acmeKey, map[string]any{"client_ids": []int64{ids.Clients["maria"]}}).must(t, 200)
		h.do("PATCH", fmt.Sprintf("/api/v2/admin/workspaces/acme/conversations/%d", ids.Conversations["c1"]), "admin-secret", map[string]any{"summary": "changed"}).must(t, 200)
		// The calendar's reschedule and cancel (the dashboard's today).
		acct := accountOf(t, h, "acme")
		moved := h.do("POST", "/api/v2/public/calendar/events", acmeKey, map[string]any{
			"client": map[string]any{"phone": "+34611777005", "first_name": "Ivo"}, "service_id": ids.Services["cleaning"],
			"professional_id": ids.Professionals["lopez"], "event_type_id": ids.EventTypes["visit"],
			"start_at": "2026-12-01T10:00:00", "end_at": "2026-12-01T10:30:00", "timezone": "Europe/Madrid"}).must(t, 200)
		movedID := int64(moved.num("data", "id"))
		if _, err := calendar.MoveAppointment(t.Context(), store, acct, calendar.MoveRequest{AppointmentID: movedID,
			Start: time.Date(2026, 12, 2, 9, 0, 0, 0, time.UTC), Change: calendar.Change{By: calendar.ByAPI}, Override: true}, h.clock.Now()); err != nil {
			t.Fatal(err)
		}
		if err := calendar.CancelAppointment(t.Context(), store, acct, movedID, calendar.Change{By: calendar.ByAPI, Reason: "moved away"}, h.clock.Now()); err != nil {
			t.Fatal(err)
		}
		// The front desk's check-in and its undo (docs/check-in.md).
		arrived := h.do("POST", "/api/v2/public/calendar/events", acmeKey, map[string]any{
			"client": map[string]any{"phone": "+34611777006", "first_name": "Ada"}, "service_id": ids.Services["cleaning"],
			"professional_id": ids.Professionals["lopez"], "event_type_id": ids.EventTypes["visit"],
			"start_at": "2026-11-23T11:00:00", "end_at": "2026-11-23T11:30:00", "timezone": "Europe/Madrid"}).must(t, 200)
		if _, err := calendar.MarkAppointmentStatus(t.Context(), store, acct, int64(arrived.num("data", "id")), calendar.StatusArrived, h.clock.Now()); err != nil {
			t.Fatal(err)
		}
		if _, err := calendar.UndoAppointmentStatus(t.Context(), store, acct, int64(arrived.num("data", "id")), h.clock.Now()); err != nil {
			t.Fatal(err)
		}
		// A dry run and a refused request emit nothing.
		ingest(h, webNode, map[string]any{"clients": rows(map[string]any{"phone_number": "+34611777004"}), "dry_run": true}).must(t, 200)

		fx := &jobs.Effects{Clock: h.clock, Targets: outbound.Policy{AllowPrivate: true}}
		w := &jobs.Worker{DB: store, Clock: h.clock, Handlers: fx.Handlers(), Calls: fx.Calls()}
		for i := 0; i < 10; i++ {
			if n, err := w.RunOnce(t.Context()); err != nil || n == 0 {
				break
			}
		}
		mu.Lock()
		defer mu.Unlock()
		var types []string
		c := mustContract(t)
		for _, ev := range got {
			types = append(types, ev["type"].(string))
			if ev["id"] == "" || ev["created_at"] == "" || ev["data"] == nil {
				t.Errorf("event shape: %v", ev)
			}
			// Each body is what the OpenAPI document's webhooks section says.
			sch, err := c.schema("/webhooks/" + escapePtr(ev["type"].(string)) + "/post/requestBody/content/application~1json/schema")
			if err != nil {
				t.Fatal(err)
			}
			if err := sch.Validate(ev); err != nil {
				t.Errorf("%s body against the document: %v", ev["type"], err)
			}
		}
		sort.Strings(types)
		want := []string{"appointment.booked", "appointment.booked", "appointment.booked", "appointment.cancelled", "appointment.rescheduled",
			"appointment.status_changed", "appointment.status_changed", "chat.conversation_updated", "pipeline.client_moved", "pipeline.client_placed",
			"pipeline.client_removed", "waitlist.entry_created", "waitlist.entry_resolved"}
		if strings.Join(types, " ") != strings.Join(want, " ") {
			t.Errorf("events:\n got %v\nwant %v", types, want)
		}
		// Every delivery and attempt is recorded; the fixture's own "crm"
		// hook (appointment.booked only, unreachable host) failed and waits
		// for its retry.
		deliveries, err := jobs.ListDeliveries(t.Context(), store, acct, 50)
		if err != nil || len(deliveries) != 16 {
			t.Fatalf("deliveries: %+v %v", deliveries, err)
		}
		for _, d := range deliveries {
			ok := d.URL == recv.URL
			if (d.Status == "sent") != ok || len(d.Attempts) != 1 || d.Attempts[0].OK != ok {
				t.Errorf("delivery %+v", d)
			}
		}
	})
}
