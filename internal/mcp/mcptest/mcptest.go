// Package mcptest holds what the tests of both MCP doors share: the SDK
// client's tool calls and the conversation an agent holds with Frontdesk.
package mcptest

import (
	"context"
	"encoding/json"
	"slices"
	"testing"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/frontdesk/frontdesk/internal/mcp"
)

// Result is a tool call's structured content and isError.
type Result struct {
	IsError bool
	Body    map[string]any
}

func (r Result) Code() string { s, _ := r.Body["error_code"].(string); return s }

// callTool calls a tool and decodes its structured content.
func Call(t *testing.T, cs *sdk.ClientSession, name string, args any) Result {
	t.Helper()
	res, err := cs.CallTool(context.Background(), &sdk.CallToolParams{Name: name, Arguments: args})
	if err != nil {
		t.Fatalf("%s: %v", name, err)
	}
	b, err := json.Marshal(res.StructuredContent)
	if err != nil {
		t.Fatal(err)
	}
	out := Result{IsError: res.IsError}
	if err := json.Unmarshal(b, &out.Body); err != nil {
		t.Fatalf("%s: structured content %s: %v", name, b, err)
	}
	return out
}

// mustOK fails unless the call succeeded.
func (r Result) MustOK(t *testing.T, name string) Result {
	t.Helper()
	if r.IsError {
		t.Fatalf("%s refused: %v", name, r.Body)
	}
	return r
}

// Conversation runs the calls an agent makes against an MCP session
// of acme's key and checks each answer; both doors (/mcp and `frontdesk
// mcp`) pass it. ids are acme's.
func Conversation(t *testing.T, cs *sdk.ClientSession) {
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

	svc := Call(t, cs, "list_services", nil).MustOK(t, "list_services")
	services := svc.Body["services"].([]any)
	if len(services) == 0 {
		t.Fatal("no services")
	}
	s0 := services[0].(map[string]any)
	serviceID := s0["id"]
	eventTypeID := s0["event_types"].([]any)[0].(map[string]any)["id"]

	slots := Call(t, cs, "find_slots", map[string]any{"service_id": serviceID, "days": 14}).MustOK(t, "find_slots")
	list := slots.Body["slots"].([]any)
	if len(list) == 0 {
		t.Fatalf("no free slots: %v", slots.Body)
	}
	slot := list[0].(map[string]any)
	book := Call(t, cs, "book_appointment", map[string]any{
		"client":     map[string]any{"phone": "+34600999888", "first_name": "Agent", "last_name": "Booked"},
		"service_id": serviceID, "professional_id": slot["professional"].(map[string]any)["id"], "event_type_id": eventTypeID,
		"start_at": slot["start_at"], "end_at": slot["end_at"], "timezone": slots.Body["timezone"],
	}).MustOK(t, "book_appointment")
	if w, _ := book.Body["appointment"].(map[string]any)["warnings"].([]any); len(w) != 0 {
		t.Errorf("booking a listed slot warned: %v", w)
	}
	if book.Body["client_created"] != true {
		t.Errorf("client_created = %v, want true", book.Body["client_created"])
	}
	again := Call(t, cs, "find_slots", map[string]any{"service_id": serviceID, "days": 14}).MustOK(t, "find_slots")
	for _, s := range again.Body["slots"].([]any) {
		m := s.(map[string]any)
		if m["start_at_utc"] == slot["start_at_utc"] && m["professional"].(map[string]any)["id"] == slot["professional"].(map[string]any)["id"] {
			t.Errorf("the booked slot is still listed: %v", m)
		}
	}

	wl := Call(t, cs, "add_to_waitlist", map[string]any{"phone": "+34600777666", "first_name": "Waiting",
		"service_ids": []any{serviceID}, "time_preference": "morning"}).MustOK(t, "add_to_waitlist")
	if e, _ := wl.Body["entries"].([]any); len(e) != 1 {
		t.Errorf("waitlist entries = %v", wl.Body)
	}
	Call(t, cs, "waitlist_summary", nil).MustOK(t, "waitlist_summary")

	conv := Call(t, cs, "search_conversations", map[string]any{}).MustOK(t, "search_conversations")
	convs := conv.Body["conversations"].([]any)
	if len(convs) == 0 || conv.Body["count"].(float64) < 1 {
		t.Fatalf("no conversations: %v", conv.Body)
	}
	first := convs[0].(map[string]any)
	if _, ok := first["messages"]; ok {
		t.Errorf("messages embedded without include_messages: %v", first)
	}
	msgs := Call(t, cs, "get_conversation_messages", map[string]any{"session_id": first["session_id"]}).MustOK(t, "get_conversation_messages")
	if msgs.Body["count"].(float64) < 1 {
		t.Errorf("no messages: %v", msgs.Body)
	}

	pl := Call(t, cs, "list_pipelines", nil).MustOK(t, "list_pipelines")
	pipes := pl.Body["pipelines"].([]any)
	if len(pipes) == 0 || len(pipes[0].(map[string]any)["stages"].([]any)) < 2 {
		t.Fatalf("pipelines without stages: %v", pl.Body)
	}

	// A refusal carries the contract's error body.
	bad := Call(t, cs, "find_slots", map[string]any{"service_id": 987654321})
	if !bad.IsError || bad.Code() != "SERVICE_NOT_FOUND" || bad.Body["status"] != "error" {
		t.Errorf("unknown service: %v", bad)
	}
	if d, _ := bad.Body["details"].(map[string]any); d == nil || d["valid_service_ids"] == nil {
		t.Errorf("SERVICE_NOT_FOUND without the valid ids: %v", bad.Body)
	}
	inv := Call(t, cs, "find_slots", map[string]any{"service_id": serviceID, "days": 99})
	if !inv.IsError || inv.Code() != "VALIDATION_ERROR" {
		t.Errorf("days 99: %v", inv)
	}
}

func sortedCopy(s []string) []string {
	c := slices.Clone(s)
	slices.Sort(c)
	return c
}

// Answer is r in a form another door's answer compares with: "ok", the
// schema problems (Problems), or the error code and its details.
func (r Result) Answer() string {
	if !r.IsError {
		return "ok"
	}
	details, _ := r.Body["details"].(map[string]any)
	if list, ok := details["errors"]; ok {
		return Problems(list)
	}
	d, _ := json.Marshal(r.Body["details"])
	return r.Code() + " " + string(d)
}

// Problems renders 422 problems without the first element of their
// locations (query, body or arguments: each door names its own input), so
// two doors' problems compare.
func Problems(v any) string {
	list, _ := v.([]any)
	for _, p := range list {
		if p, ok := p.(map[string]any); ok {
			if loc, ok := p["loc"].([]any); ok && len(loc) > 0 {
				p["loc"] = loc[1:]
			}
		}
	}
	b, _ := json.Marshal(list)
	return "422 " + string(b)
}
