package httpapi_test

import (
	"context"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/frontdesk/frontdesk/internal/db"
	"github.com/frontdesk/frontdesk/internal/db/dbtest"
	"github.com/frontdesk/frontdesk/internal/mcp/mcptest"
)

// bearerTransport adds the API key to every request of the MCP client.
type bearerTransport struct{ key string }

func (b bearerTransport) RoundTrip(r *http.Request) (*http.Response, error) {
	r = r.Clone(r.Context())
	r.Header.Set("Authorization", "Bearer "+b.key)
	return http.DefaultTransport.RoundTrip(r)
}

// mcpConnect connects the SDK's client to base's /mcp with key.
func mcpConnect(ctx context.Context, base, key string) (*sdk.ClientSession, error) {
	c := sdk.NewClient(&sdk.Implementation{Name: "test-agent", Version: "1"}, nil)
	return c.Connect(ctx, &sdk.StreamableClientTransport{Endpoint: base + "/mcp",
		HTTPClient: &http.Client{Transport: bearerTransport{key}}, DisableStandaloneSSE: true, MaxRetries: -1}, nil)
}

// TestMCP drives /mcp with the SDK's client over real HTTP on both engines.
func TestMCP(t *testing.T) {
	dbtest.Engines(t, func(t *testing.T, store *db.DB) {
		h := newHarness(t, store)
		ts := httptest.NewServer(h.srv)
		defer ts.Close()
		ctx := context.Background()

		t.Run("conversation", func(t *testing.T) {
			cs, err := mcpConnect(ctx, ts.URL, acmeKey)
			if err != nil {
				t.Fatal(err)
			}
			defer cs.Close()
			mcptest.Conversation(t, cs)

			// The door's own tools beyond the conversation.
			a := h.acme()
			ing := mcptest.Call(t, cs, "ingest_leads", map[string]any{"input_node_uuid": a.InputNodes["sales/web"],
				"clients": []any{map[string]any{"first_name": "Lead", "phone_number": "+34611222333", "external_id": "r1"}}}).MustOK(t, "ingest_leads")
			if ing.Body["summary"].(map[string]any)["total"].(float64) != 1 {
				t.Errorf("ingest: %v", ing.Body)
			}
			mv := mcptest.Call(t, cs, "move_client", map[string]any{"pipeline_id": a.Pipelines["sales"], "client_id": a.Clients["maria"],
				"target_stage_id": a.Stages["sales/contacted"]}).MustOK(t, "move_client")
			if mv.Body["success_count"].(float64) != 1 {
				t.Errorf("move: %v", mv.Body)
			}
		})

		t.Run("no key or a bad key is 401", func(t *testing.T) {
			if _, err := mcpConnect(ctx, ts.URL, "pk_test_nope"); err == nil {
				t.Fatal("a bad key connected")
			}
			for _, c := range []struct{ auth, detail string }{
				{"", "Unauthorized"},
				{"Bearer pk_test_nope", "Invalid or expired API key. Check your credentials."},
			} {
				req, _ := http.NewRequest("POST", ts.URL+"/mcp", strings.NewReader(`{"jsonrpc":"2.0","id":1,"method":"tools/list"}`))
				req.Header.Set("Content-Type", "application/json")
				req.Header.Set("Accept", "application/json, text/event-stream")
				if c.auth != "" {
					req.Header.Set("Authorization", c.auth)
				}
				res, err := http.DefaultClient.Do(req)
				if err != nil {
					t.Fatal(err)
				}
				var body map[string]any
				json.NewDecoder(res.Body).Decode(&body)
				res.Body.Close()
				if res.StatusCode != 401 || body["detail"] != c.detail {
					t.Errorf("auth %q: %d %v", c.auth, res.StatusCode, body)
				}
			}
		})

		t.Run("the key's rate-limit bucket counts /mcp", func(t *testing.T) {
			req, _ := http.NewRequest("POST", ts.URL+"/mcp", strings.NewReader(
				`{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"t","version":"1"}}}`))
			req.Header.Set("Content-Type", "application/json")
			req.Header.Set("Accept", "application/json, text/event-stream")
			req.Header.Set("Authorization", "Bearer "+acmeKey)
			res, err := http.DefaultClient.Do(req)
			if err != nil {
				t.Fatal(err)
			}
			res.Body.Close()
			if res.StatusCode != 200 || res.Header.Get("RateLimit-Remaining") == "" || res.Header.Get("X-Request-Id") == "" {
				t.Errorf("initialize: %d %v", res.StatusCode, res.Header)
			}
		})

		t.Run("one account never sees another's data", func(t *testing.T) {
			cs, err := mcpConnect(ctx, ts.URL, acmeKey)
			if err != nil {
				t.Fatal(err)
			}
			defer cs.Close()
			o := h.other()
			for _, c := range []struct {
				tool string
				args map[string]any
				code string
			}{
				{"get_conversation_messages", map[string]any{"session_id": o.Conversations["c1"]}, "NOT_FOUND"},
				{"ingest_leads", map[string]any{"input_node_uuid": o.InputNodes["sales/web"], "clients": []any{map[string]any{"email": "x@example.com"}}}, "NOT_FOUND"},
				{"move_client", map[string]any{"pipeline_id": o.Pipelines["sales"], "client_id": o.Clients["maria"], "target_stage_id": o.Stages["sales/contacted"]}, "NOT_FOUND"},
				{"find_slots", map[string]any{"service_id": o.Services["cleaning"]}, "SERVICE_NOT_FOUND"},
				{"book_appointment", map[string]any{"client": map[string]any{"phone": "+34600111222"}, "service_id": o.Services["cleaning"],
					"professional_id": o.Professionals["jones"], "event_type_id": o.EventTypes["visit"],
					"start_at": "2026-11-30T10:00:00", "end_at": "2026-11-30T10:30:00", "timezone": "Europe/London"}, "SERVICE_NOT_FOUND"},
				{"add_to_waitlist", map[string]any{"client_id": o.Clients["maria"], "service_ids": []any{o.Services["cleaning"]}}, ""},
			} {
				r := mcptest.Call(t, cs, c.tool, c.args)
				if !r.IsError || (c.code != "" && r.Code() != c.code) {
					t.Errorf("%s with another account's ids: %v", c.tool, r)
				}
			}
			conv := mcptest.Call(t, cs, "search_conversations", map[string]any{"client_id": o.Clients["maria"]}).MustOK(t, "search_conversations")
			if conv.Body["count"].(float64) != 0 {
				t.Errorf("another account's client's conversations: %v", conv.Body)
			}
			pl := mcptest.Call(t, cs, "list_pipelines", nil).MustOK(t, "list_pipelines")
			for _, p := range pl.Body["pipelines"].([]any) {
				if int64(p.(map[string]any)["id"].(float64)) == o.Pipelines["sales"] {
					t.Errorf("another account's pipeline listed: %v", p)
				}
			}
			svc := mcptest.Call(t, cs, "list_services", nil).MustOK(t, "list_services")
			for _, s := range svc.Body["services"].([]any) {
				if int64(s.(map[string]any)["id"].(float64)) == o.Services["cleaning"] {
					t.Errorf("another account's service listed: %v", s)
				}
			}
		})
	})
}
