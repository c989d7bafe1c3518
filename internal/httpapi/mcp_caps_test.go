package httpapi_test

import (
	"context"
	"fmt"
	"net/http/httptest"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/frontdesk/frontdesk/internal/calendar"
	"github.com/frontdesk/frontdesk/internal/chat"
	"github.com/frontdesk/frontdesk/internal/db"
	"github.com/frontdesk/frontdesk/internal/db/dbtest"
	"github.com/frontdesk/frontdesk/internal/mcp/mcptest"
	"github.com/frontdesk/frontdesk/internal/pipeline"
	"github.com/frontdesk/frontdesk/internal/waitlist"
)

// ints is 1..n as a JSON list.
func ints(n int) []any {
	out := make([]any, n)
	for i := range out {
		out[i] = i + 1
	}
	return out
}

// repeat is n copies of v.
func repeat(n int, v any) []any {
	out := make([]any, n)
	for i := range out {
		out[i] = v
	}
	return out
}

// names is n distinct strings.
func names(n int) []any {
	out := make([]any, n)
	for i := range out {
		out[i] = "service " + strconv.Itoa(i)
	}
	return out
}

// toolProblem reports whether a refused tool call is VALIDATION_ERROR with a
// problem of type typ at loc.
func toolProblem(r mcptest.Result, typ string, loc ...any) bool {
	if !r.IsError || r.Code() != "VALIDATION_ERROR" {
		return false
	}
	d, _ := r.Body["details"].(map[string]any)
	list, _ := d["errors"].([]any)
	for _, it := range list {
		p, _ := it.(map[string]any)
		l, _ := p["loc"].([]any)
		if p["type"] == typ && slices.Equal(l, loc) {
			return true
		}
	}
	return false
}

// TestMCPListCaps drives every capped argument of every MCP tool one past
// its cap through /mcp and through the matching endpoint: both refuse it at
// the same field with the same problem type, on both engines. The caps are
// the area packages' constants, which both doors read.
func TestMCPListCaps(t *testing.T) {
	dbtest.Engines(t, func(t *testing.T, store *db.DB) {
		h := newHarness(t, store)
		ts := httptest.NewServer(h.srv)
		defer ts.Close()
		a := h.acme()
		cs, err := mcpConnect(context.Background(), ts.URL, acmeKey)
		if err != nil {
			t.Fatal(err)
		}
		defer cs.Close()
		cleaning, session := a.Services["cleaning"], a.Conversations["c1"]
		node := a.InputNodes["sales/web"]
		row := map[string]any{"email": "lead@example.com"}
		tag := map[string]any{"name": "t"}
		conversations, slots := isoPub+"/chat/conversations", isoPub+"/calendar/availability/slots"
		entries, ingest := isoPub+"/calendar/waitlist/entries", "/api/v2/public/leadflow/ingest/"+node+"/batch"
		query := func(name string, n int) string {
			return name + "=" + strings.Trim(strings.Join(strings.Fields(fmt.Sprint(ints(n))), ","), "[]")
		}

		for _, test := range []struct {
			name string
			tool string
			args map[string]any
			loc  []any  // in the tool's arguments
			typ  string // the problem
			// The matching endpoint's request, and where it reports the problem.
			method, path string
			body         any
			httpLoc      []any
		}{
			{"disposition_tag_ids cap+1", "search_conversations", map[string]any{"disposition_tag_ids": ints(chat.MaxDispositionTags + 1)},
				[]any{"disposition_tag_ids"}, "too_long",
				"GET", conversations + "?" + query("disposition_tag_ids", chat.MaxDispositionTags+1), nil, []any{"query", "disposition_tag_ids"}},
			{"40,000 disposition_tag_ids", "search_conversations", map[string]any{"disposition_tag_ids": ints(40000)},
				[]any{"disposition_tag_ids"}, "too_long",
				"GET", conversations + "?" + query("disposition_tag_ids", 40000), nil, []any{"query", "disposition_tag_ids"}},
			{"conversations limit", "search_conversations", map[string]any{"limit": chat.MaxLimit + 1}, []any{"limit"}, "less_than_equal",
				"GET", conversations + "?limit=" + strconv.Itoa(chat.MaxLimit+1), nil, []any{"query", "limit"}},
			{"max_messages_per_session", "search_conversations", map[string]any{"max_messages_per_session": chat.MaxMaxMessages + 1},
				[]any{"max_messages_per_session"}, "less_than_equal",
				"GET", conversations + "?max_messages_per_session=" + strconv.Itoa(chat.MaxMaxMessages+1), nil, []any{"query", "max_messages_per_session"}},
			{"search", "search_conversations", map[string]any{"search": strings.Repeat("x", chat.MaxSearchLen+1)}, []any{"search"}, "string_too_long",
				"GET", conversations + "?search=" + strings.Repeat("x", chat.MaxSearchLen+1), nil, []any{"query", "search"}},
			{"messages limit", "get_conversation_messages", map[string]any{"session_id": session, "limit": chat.MaxMessagesLimit + 1},
				[]any{"limit"}, "less_than_equal",
				"GET", fmt.Sprintf("%s/%d/messages?limit=%d", conversations, session, chat.MaxMessagesLimit+1), nil, []any{"query", "limit"}},
			{"professional_ids", "find_slots", map[string]any{"service_id": cleaning, "professional_ids": ints(calendar.MaxSlotProfessionals + 1)},
				[]any{"professional_ids"}, "too_long",
				"GET", fmt.Sprintf("%s?service_id=%d&%s", slots, cleaning, query("professional_id", calendar.MaxSlotProfessionals+1)), nil,
				[]any{"query", "professional_id"}},
			{"slots limit", "find_slots", map[string]any{"service_id": cleaning, "limit": calendar.SlotLimitMax + 1}, []any{"limit"}, "less_than_equal",
				"GET", fmt.Sprintf("%s?service_id=%d&limit=%d", slots, cleaning, calendar.SlotLimitMax+1), nil, []any{"query", "limit"}},
			{"slots days", "find_slots", map[string]any{"service_id": cleaning, "days": calendar.SlotDaysMax + 1}, []any{"days"}, "less_than_equal",
				"GET", fmt.Sprintf("%s?service_id=%d&days=%d", slots, cleaning, calendar.SlotDaysMax+1), nil, []any{"query", "days"}},
			{"service_ids", "add_to_waitlist", map[string]any{"phone": "+34611000001", "service_ids": repeat(waitlist.MaxServices+1, cleaning)},
				[]any{"service_ids"}, "too_long",
				"POST", entries, map[string]any{"phone": "+34611000001", "service_ids": repeat(waitlist.MaxServices+1, cleaning)}, []any{"body", "service_ids"}},
			{"service_names", "add_to_waitlist", map[string]any{"phone": "+34611000001", "service_names": names(waitlist.MaxServices + 1)},
				[]any{"service_names"}, "too_long",
				"POST", entries, map[string]any{"phone": "+34611000001", "service_names": names(waitlist.MaxServices + 1)}, []any{"body", "service_names"}},
			{"pipelines limit", "list_pipelines", map[string]any{"limit": pipeline.MaxLimit + 1}, []any{"limit"}, "less_than_equal",
				"GET", "/api/v2/public/leadflow/pipelines?limit=" + strconv.Itoa(pipeline.MaxLimit+1), nil, []any{"query", "limit"}},
			{"pipelines status", "list_pipelines", map[string]any{"status": strings.Repeat("x", pipeline.MaxStatusLen+1)}, []any{"status"}, "string_too_long",
				"GET", "/api/v2/public/leadflow/pipelines?status=" + strings.Repeat("x", pipeline.MaxStatusLen+1), nil, []any{"query", "status"}},
			{"ingest clients", "ingest_leads", map[string]any{"input_node_uuid": node, "clients": repeat(pipeline.MaxBatchRows+1, row)},
				[]any{"clients"}, "too_long",
				"POST", ingest, map[string]any{"clients": repeat(pipeline.MaxBatchRows+1, row)}, []any{"body", "clients"}},
			{"ingest defaults.tags", "ingest_leads", map[string]any{"input_node_uuid": node, "clients": []any{row},
				"defaults": map[string]any{"tags": repeat(pipeline.MaxTags+1, tag)}}, []any{"defaults", "tags"}, "too_long",
				"POST", ingest, map[string]any{"clients": []any{row}, "defaults": map[string]any{"tags": repeat(pipeline.MaxTags+1, tag)}},
				[]any{"body", "defaults", "tags"}},
			{"ingest defaults.area_code", "ingest_leads", map[string]any{"input_node_uuid": node, "clients": []any{row},
				"defaults": map[string]any{"area_code": strings.Repeat("3", pipeline.MaxAreaCodeLen+1)}}, []any{"defaults", "area_code"}, "string_too_long",
				"POST", ingest, map[string]any{"clients": []any{row}, "defaults": map[string]any{"area_code": strings.Repeat("3", pipeline.MaxAreaCodeLen+1)}},
				[]any{"body", "defaults", "area_code"}},
		} {
			t.Run(test.name, func(t *testing.T) {
				r := mcptest.Call(t, cs, test.tool, test.args)
				if !toolProblem(r, test.typ, append([]any{"arguments"}, test.loc...)...) {
					t.Errorf("%s: want VALIDATION_ERROR %s at %v, got %v", test.tool, test.typ, test.loc, r)
				}
				res := h.do(test.method, test.path, acmeKey, test.body).must(t, 422)
				if !problemAt(res, test.typ, test.httpLoc...) {
					t.Errorf("%s %s: want %s at %v: %.300s", test.method, test.path[:min(len(test.path), 80)], test.typ, test.httpLoc, res.Raw)
				}
			})
		}

		// At the cap, both doors answer.
		t.Run("at the cap", func(t *testing.T) {
			mcptest.Call(t, cs, "search_conversations", map[string]any{"disposition_tag_ids": ints(chat.MaxDispositionTags)}).MustOK(t, "search_conversations")
			// Repeated ids count once, as repeated query parameters do.
			mcptest.Call(t, cs, "search_conversations", map[string]any{"disposition_tag_ids": repeat(40000, a.DispositionTags["won"])}).MustOK(t, "search_conversations")
			// Unknown professionals are the catalogue's refusal, not the cap's.
			if r := mcptest.Call(t, cs, "find_slots", map[string]any{"service_id": cleaning, "professional_ids": ints(calendar.MaxSlotProfessionals)}); r.Code() != "PROFESSIONAL_NOT_FOUND" {
				t.Errorf("find_slots at the cap: %v", r)
			}
			wl := mcptest.Call(t, cs, "add_to_waitlist", map[string]any{"phone": "+34611000001", "service_ids": repeat(waitlist.MaxServices, cleaning)}).MustOK(t, "add_to_waitlist")
			if e, _ := wl.Body["entries"].([]any); len(e) != 1 {
				t.Errorf("one service named %d times: %v", waitlist.MaxServices, wl.Body)
			}
			h.do("POST", entries, acmeKey, map[string]any{"phone": "+34611000002", "service_ids": repeat(waitlist.MaxServices, cleaning)}).must(t, 200)
		})
	})
}
