package dashboard_test

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"net/url"
	"strings"
	"testing"
	"time"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/frontdesk/frontdesk/internal/db"
	"github.com/frontdesk/frontdesk/internal/db/dbtest"
	"github.com/frontdesk/frontdesk/internal/mcp/mcptest"
)

// TestOneBookingInputRule drives the same bookings through every door that
// books (the public API, MCP's book_appointment, the dashboard's booking
// form) and wants the same answer from each: the fields are read by
// calendar.DecodeBooking. The API and MCP must report the very same
// problems (type, message and location below body / arguments); the
// dashboard, which books a free slot with the client's fields and notes,
// must accept and refuse what they do.
func TestOneBookingInputRule(t *testing.T) {
	dbtest.Engines(t, func(t *testing.T, store *db.DB) {
		h := newHarness(t, store)
		a := h.acme()
		u := h.signedIn("ana@acme.test", "ana-password")
		cs := mcpSession(t, h.srv.URL, acmeKey)
		pro, svc, visit := a.Professionals["lopez"], a.Services["cleaning"], a.EventTypes["visit"]

		for row, test := range []struct {
			name   string
			client map[string]any
			notes  string
			edit   func(body map[string]any) // fields the dashboard form does not have
			ok     bool
		}{
			{name: "new client", client: map[string]any{"phone": "NEW", "first_name": "Nora"}, ok: true},
			{name: "100-character name", client: map[string]any{"phone": "NEW", "first_name": strings.Repeat("ñ", 100)}, ok: true},
			{name: "101-character first name", client: map[string]any{"phone": "NEW", "first_name": strings.Repeat("n", 101)}},
			{name: "101-character last name", client: map[string]any{"phone": "NEW", "first_name": "Nora", "last_name": strings.Repeat("r", 101)}},
			{name: "2000-character notes", client: map[string]any{"phone": "NEW", "first_name": "Nora"}, notes: strings.Repeat("x", 2000), ok: true},
			{name: "2001-character notes", client: map[string]any{"phone": "NEW", "first_name": "Nora"}, notes: strings.Repeat("x", 2001)},
			{name: "no phone", client: map[string]any{"phone": "", "first_name": "Nora"}},
			{name: "short phone", client: map[string]any{"phone": "12", "first_name": "Nora"}},
			{name: "new phone without a name", client: map[string]any{"phone": "NEW", "first_name": "  "}},
			{name: "no service", client: map[string]any{"phone": "NEW", "first_name": "Nora"},
				edit: func(b map[string]any) { delete(b, "service_id") }},
			{name: "service by name", client: map[string]any{"phone": "NEW", "first_name": "Nora"},
				edit: func(b map[string]any) { delete(b, "service_id"); b["service_name"] = "limpieza DENTAL" }, ok: true},
			{name: "256-character service name", client: map[string]any{"phone": "NEW", "first_name": "Nora"},
				edit: func(b map[string]any) { b["service_name"] = strings.Repeat("s", 256) }},
			{name: "unreadable start", client: map[string]any{"phone": "NEW", "first_name": "Nora"},
				edit: func(b map[string]any) { b["start_at"] = "tomorrow" }},
			{name: "65-character timezone", client: map[string]any{"phone": "NEW", "first_name": "Nora"},
				edit: func(b map[string]any) { b["timezone"] = strings.Repeat("z", 65) }},
			{name: "many problems at once", client: map[string]any{"phone": "NEW", "first_name": strings.Repeat("n", 101)}, notes: strings.Repeat("x", 2001),
				edit: func(b map[string]any) { delete(b, "event_type_id"); b["end_at"] = "later" }},
		} {
			t.Run(test.name, func(t *testing.T) {
				client := func(door int) map[string]any {
					c := map[string]any{}
					for k, v := range test.client {
						if v == "NEW" { // a new phone of the door's own
							v = fmt.Sprintf("+3461%d%06d", door, row)
						}
						c[k] = v
					}
					return c
				}
				body := func(door int) map[string]any {
					// API and MCP book outside the dashboard's free slots:
					// a day of their own each.
					day := time.Date(2026, 12, 2+door, 9, 0, 0, 0, time.UTC).Add(time.Duration(row) * 30 * time.Minute)
					b := map[string]any{"client": client(door), "service_id": svc, "professional_id": pro, "event_type_id": visit,
						"start_at": day.Format("2006-01-02T15:04:05"), "end_at": day.Add(30 * time.Minute).Format("2006-01-02T15:04:05"),
						"timezone": "Europe/Madrid"}
					if test.notes != "" {
						b["notes"] = test.notes
					}
					if test.edit != nil {
						test.edit(b)
					}
					return b
				}
				status, res := h.api("POST", "/api/v2/public/calendar/events", acmeKey, body(1))
				api := apiAnswer(status, res)
				mcpAnswer := mcptest.Call(t, cs, "book_appointment", body(2)).Answer()
				if api != mcpAnswer {
					t.Errorf("API answers %s\nMCP answers %s", api, mcpAnswer)
				}
				if (api == "ok") != test.ok {
					t.Errorf("API answers %s, want ok = %v", api, test.ok)
				}
				if test.edit != nil {
					return // a field the form does not have
				}
				c := client(3)
				slot := at("2026-12-01", "09:00").Add(time.Duration(row) * 30 * time.Minute)
				form := url.Values{"professional_id": {itoa(pro)}, "service_id": {itoa(svc)}, "event_type_id": {itoa(visit)},
					"start": {slot.UTC().Format(time.RFC3339)}, "client_id": {"new"}, "notes": {test.notes}}
				for k, v := range c {
					form.Set(k, v.(string))
				}
				if p := u.post("/app/book", form); (p.Status == http.StatusSeeOther) != test.ok {
					t.Errorf("dashboard form answers %d, want ok = %v: %.300s", p.Status, test.ok, p.Body)
				}
			})
		}
	})
}

// apiAnswer is an API answer in the form of mcptest.Result.Answer.
func apiAnswer(status int, body map[string]any) string {
	switch status {
	case http.StatusOK:
		return "ok"
	case http.StatusUnprocessableEntity:
		return mcptest.Problems(body["detail"])
	}
	d, _ := json.Marshal(body["details"])
	code, _ := body["error_code"].(string)
	return code + " " + string(d)
}

// mcpSession connects the MCP SDK's client to the server's /mcp with key.
func mcpSession(t *testing.T, base, key string) *sdk.ClientSession {
	t.Helper()
	c := sdk.NewClient(&sdk.Implementation{Name: "test-agent", Version: "1"}, nil)
	cs, err := c.Connect(context.Background(), &sdk.StreamableClientTransport{Endpoint: base + "/mcp",
		HTTPClient: &http.Client{Transport: bearer(key)}, DisableStandaloneSSE: true, MaxRetries: -1}, nil)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { cs.Close() })
	return cs
}

// bearer sends its key on every request.
type bearer string

func (b bearer) RoundTrip(r *http.Request) (*http.Response, error) {
	r = r.Clone(r.Context())
	r.Header.Set("Authorization", "Bearer "+string(b))
	return http.DefaultTransport.RoundTrip(r)
}
