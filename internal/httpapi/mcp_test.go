package httpapi_test

import (
	"context"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"slices"
	"strings"
	"testing"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/frontdesk/frontdesk/internal/db"
	"github.com/frontdesk/frontdesk/internal/db/dbtest"
	"github.com/frontdesk/frontdesk/internal/mcp"
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

// toolResult is a tool call's structured content and isError.
type toolResult struct {
	IsError bool
	Body    map[string]any
}

func (r toolResult) code() string { s, _ := r.Body["error_code"].(string); return s }

// callTool calls a tool and decodes its structured content.
func callTool(t *testing.T, cs *sdk.ClientSession, name string, args any) toolResult {
	t.Helper()
	res, err := cs.CallTool(context.Background(), &sdk.CallToolParams{Name: name, Arguments: args})
	if err != nil {
		t.Fatalf("%s: %v", name, err)
	}
	b, err := json.Marshal(res.StructuredContent)
	if err != nil {
		t.Fatal(err)
	}
	out := toolResult{IsError: res.IsError}
	if err := json.Unmarshal(b, &out.Body); err != nil {
		t.Fatalf("%s: structured content %s: %v", name, b, err)
	}
	return out
}

// mustOK fails unless the call succeeded.
func (r toolResult) mustOK(t *testing.T, name string) toolResult {
	t.Helper()
	if r.IsError {
		t.Fatalf("%s refused: %v", name, r.Body)
	}
	return r
}

// AgentConversation runs the calls an agent makes against an MCP session
// of acme's key and checks each answer; both doors (/mcp and `frontdesk
// mcp`) pass it. ids are acme's.
func AgentConversation(t *testing.T, cs *sdk.ClientSession) {
	t.Helper()
	tools, err := cs.ListTools(context.Background(), nil)
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, tool := range tools.Tools {
		names = append(names, tool.Name)
		if tool.InputSchema == nil || tool.OutputSchema == nil || tool.Description == "" {
			t.Errorf("tool %s lacks a schema or description", tool.Name)
		}
	}
	if !slices.Equal(names, sortedCopy(mcp.ToolNames)) && !slices.Equal(names, mcp.ToolNames) {
		t.Fatalf("tools = %v, want %v", names, mcp.ToolNames)
	}

	svc := callTool(t, cs, "list_services", nil).mustOK(t, "list_services")
	services := svc.Body["services"].([]any)
	if len(services) == 0 {
		t.Fatal("no services")
	}
	s0 := services[0].(map[string]any)
	serviceID := s0["id"]
	eventTypeID := s0["event_types"].([]any)[0].(map[string]any)["id"]

	slots := callTool(t, cs, "find_slots", map[string]any{"service_id": serviceID, "days": 14}).mustOK(t, "find_slots")
	list := slots.Body["slots"].([]any)
	if len(list) == 0 {
		t.Fatalf("no free slots: %v", slots.Body)
	}
	slot := list[0].(map[string]any)
	book := callTool(t, cs, "book_appointment", map[string]any{
		"client":     map[string]any{"phone": "+34600999888", "first_name": "Agent", "last_name": "Booked"},
		"service_id": serviceID, "professional_id": slot["professional"].(map[string]any)["id"], "event_type_id": eventTypeID,
		"start_at": slot["start_at"], "end_at": slot["end_at"], "timezone": slots.Body["timezone"],
	}).mustOK(t, "book_appointment")
	if w, _ := book.Body["appointment"].(map[string]any)["warnings"].([]any); len(w) != 0 {
		t.Errorf("booking a listed slot warned: %v", w)
	}
	if book.Body["client_created"] != true {
		t.Errorf("client_created = %v, want true", book.Body["client_created"])
	}
	again := callTool(t, cs, "find_slots", map[string]any{"service_id": serviceID, "days": 14}).mustOK(t, "find_slots")
	for _, s := range again.Body["slots"].([]any) {
		m := s.(map[string]any)
		if m["start_at_utc"] == slot["start_at_utc"] && m["professional"].(map[string]any)["id"] == slot["professional"].(map[string]any)["id"] {
			t.Errorf("the booked slot is still listed: %v", m)
		}
	}

	wl := callTool(t, cs, "add_to_waitlist", map[string]any{"phone": "+34600777666", "first_name": "Waiting",
		"service_ids": []any{serviceID}, "time_preference": "morning"}).mustOK(t, "add_to_waitlist")
	if e, _ := wl.Body["entries"].([]any); len(e) != 1 {
		t.Errorf("waitlist entries = %v", wl.Body)
	}
	callTool(t, cs, "waitlist_summary", nil).mustOK(t, "waitlist_summary")

	conv := callTool(t, cs, "search_conversations", map[string]any{}).mustOK(t, "search_conversations")
	convs := conv.Body["conversations"].([]any)
	if len(convs) == 0 || conv.Body["count"].(float64) < 1 {
		t.Fatalf("no conversations: %v", conv.Body)
	}
	first := convs[0].(map[string]any)
	if _, ok := first["messages"]; ok {
		t.Errorf("messages embedded without include_messages: %v", first)
	}
	msgs := callTool(t, cs, "get_conversation_messages", map[string]any{"session_id": first["session_id"]}).mustOK(t, "get_conversation_messages")
	if msgs.Body["count"].(float64) < 1 {
		t.Errorf("no messages: %v", msgs.Body)
	}

	pl := callTool(t, cs, "list_pipelines", nil).mustOK(t, "list_pipelines")
	pipes := pl.Body["pipelines"].([]any)
	if len(pipes) == 0 || len(pipes[0].(map[string]any)["stages"].([]any)) < 2 {
		t.Fatalf("pipelines without stages: %v", pl.Body)
	}

	// A refusal carries the contract's error body.
	bad := callTool(t, cs, "find_slots", map[string]any{"service_id": 987654321})
	if !bad.IsError || bad.code() != "SERVICE_NOT_FOUND" || bad.Body["status"] != "error" {
		t.Errorf("unknown service: %v", bad)
	}
	if d, _ := bad.Body["details"].(map[string]any); d == nil || d["valid_service_ids"] == nil {
		t.Errorf("SERVICE_NOT_FOUND without the valid ids: %v", bad.Body)
	}
	inv := callTool(t, cs, "find_slots", map[string]any{"service_id": serviceID, "days": 99})
	if !inv.IsError || inv.code() != "VALIDATION_ERROR" {
		t.Errorf("days 99: %v", inv)
	}
}

func sortedCopy(s []string) []string {
	c := slices.Clone(s)
	slices.Sort(c)
	return c
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
			AgentConversation(t, cs)

			// The door's own tools beyond the conversation.
			a := h.acme()
			ing := callTool(t, cs, "ingest_leads", map[string]any{"input_node_uuid": a.InputNodes["sales/web"],
				"clients": []any{map[string]any{"first_name": "Lead", "phone_number": "+34611222333", "external_id": "r1"}}}).mustOK(t, "ingest_leads")
			if ing.Body["summary"].(map[string]any)["total"].(float64) != 1 {
				t.Errorf("ingest: %v", ing.Body)
			}
			mv := callTool(t, cs, "move_client", map[string]any{"pipeline_id": a.Pipelines["sales"], "client_id": a.Clients["maria"],
				"target_stage_id": a.Stages["sales/contacted"]}).mustOK(t, "move_client")
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
				r := callTool(t, cs, c.tool, c.args)
				if !r.IsError || (c.code != "" && r.code() != c.code) {
					t.Errorf("%s with another account's ids: %v", c.tool, r)
				}
			}
			conv := callTool(t, cs, "search_conversations", map[string]any{"client_id": o.Clients["maria"]}).mustOK(t, "search_conversations")
			if conv.Body["count"].(float64) != 0 {
				t.Errorf("another account's client's conversations: %v", conv.Body)
			}
			pl := callTool(t, cs, "list_pipelines", nil).mustOK(t, "list_pipelines")
			for _, p := range pl.Body["pipelines"].([]any) {
				if int64(p.(map[string]any)["id"].(float64)) == o.Pipelines["sales"] {
					t.Errorf("another account's pipeline listed: %v", p)
				}
			}
			svc := callTool(t, cs, "list_services", nil).mustOK(t, "list_services")
			for _, s := range svc.Body["services"].([]any) {
				if int64(s.(map[string]any)["id"].(float64)) == o.Services["cleaning"] {
					t.Errorf("another account's service listed: %v", s)
				}
			}
		})
	})
}
