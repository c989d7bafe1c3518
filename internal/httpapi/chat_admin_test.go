package httpapi_test

import (
	"fmt"
	"reflect"
	"testing"
	"time"

	"github.com/frontdesk/frontdesk/internal/db"
	"github.com/frontdesk/frontdesk/internal/db/dbtest"
)

func TestChatAdminAppend(t *testing.T) {
	dbtest.Engines(t, func(t *testing.T, store *db.DB) {
		h := chatHarness(t, store)
		ids := h.acme()
		c7 := ids.Conversations["c7"]
		path := fmt.Sprintf("%s/%d/messages", adminChat, c7)
		h.clock.Set(time.Date(2026, 11, 23, 9, 0, 0, 0, time.UTC))

		res := h.do("POST", path, adminKey, map[string]any{"from": "ai_agent", "agent": "leo", "content": "Hi, how can I help?"}).must(t, 200)
		d := res.get("data").(map[string]any)
		if res.str("status") != "success" || d["session_id"] != float64(c7) || d["message_count"] != 2.0 ||
			d["updated_at"] != "2026-11-23T09:00:00Z" || d["last_message_at"] != "2026-11-23T09:00:00Z" || len(d["messages"].([]any)) != 2 {
			t.Fatalf("append: %s", res.Raw)
		}
		last := res.get("data", "messages", 1).(map[string]any)
		if last["sender_type"] != "ai" || last["sender"].(map[string]any)["name"] != "Leo" || last["timestamp"] != "2026-11-23T09:00:00Z" {
			t.Errorf("appended = %v", last)
		}
		if p := res.list("data", "participants", "ai_agents"); len(p) != 1 || p[0].(map[string]any)["name"] != "Leo" {
			t.Errorf("participants = %v", res.get("data", "participants"))
		}

		// A user message with media and an explicit (older) timestamp:
		// updated_at is now, last_message_at stays the newest message.
		h.clock.Advance(time.Minute)
		res = h.do("POST", path, adminKey, map[string]any{"from": "user", "user": "luis", "content": "", "timestamp": "2026-11-23T08:00:00Z",
			"message_type": "document", "media": map[string]any{"kind": "document", "mime": "application/pdf", "filename": "quote.pdf", "caption": "Quote"},
			"reply_to_id": res.num("data", "messages", 0, "id")}).must(t, 200)
		d = res.get("data").(map[string]any)
		if d["message_count"] != 3.0 || d["updated_at"] != "2026-11-23T09:01:00Z" || d["last_message_at"] != "2026-11-23T09:00:00Z" {
			t.Errorf("older message: %v", d)
		}
		m := res.get("data", "messages", 1).(map[string]any) // sorted by timestamp: it is second
		if m["message_type"] != "document" || m["sender"].(map[string]any)["email"] != "luis@acme.test" || m["reply_to_id"] == nil ||
			!reflect.DeepEqual(m["media"], map[string]any{"kind": "document", "mime": "application/pdf", "filename": "quote.pdf", "caption": "Quote"}) {
			t.Errorf("user message = %v", m)
		}
		// A timestamp equal to now, given with an offset.
		res = h.do("POST", path, adminKey, map[string]any{"from": "client", "content": "Later", "timestamp": "2026-11-23T10:01:00+01:00"}).must(t, 200)
		if d := res.get("data").(map[string]any); d["updated_at"] != "2026-11-23T09:01:00Z" || d["last_message_at"] != "2026-11-23T09:01:00Z" {
			t.Errorf("equal timestamp: %v", d)
		}
		// A timestamp ahead of the server's clock is the newest message, but
		// updated_at stays the server's now (the sync watermark never runs
		// ahead of the clock).
		h.clock.Advance(time.Minute)
		res = h.do("POST", path, adminKey, map[string]any{"from": "business_app", "content": "sync", "timestamp": "2026-11-23T12:00:00Z"}).must(t, 200)
		if d := res.get("data").(map[string]any); d["updated_at"] != "2026-11-23T09:02:00Z" || d["last_message_at"] != "2026-11-23T12:00:00Z" || d["message_count"] != 5.0 {
			t.Errorf("future timestamp: %v", d)
		}
		if n := h.count("messages", "conversation_id = ?", c7); n != 5 {
			t.Errorf("stored %d messages", n)
		}

		for _, tc := range []struct {
			name string
			body any
			loc  []any
			typ  string
		}{
			{"missing from", map[string]any{"content": "x"}, []any{"body", "from"}, "missing"},
			{"missing content", map[string]any{"from": "client"}, []any{"body", "content"}, "missing"},
			{"bad from", map[string]any{"from": "robot", "content": "x"}, []any{"body", "from"}, "literal_error"},
			{"agent required", map[string]any{"from": "ai_agent", "content": "x"}, []any{"body", "agent"}, "missing"},
			{"user required", map[string]any{"from": "user", "content": "x"}, []any{"body", "user"}, "missing"},
			{"content type", map[string]any{"from": "client", "content": 5}, []any{"body", "content"}, "string_type"},
			{"bad timestamp", map[string]any{"from": "client", "content": "x", "timestamp": "soon"}, []any{"body", "timestamp"}, "datetime_parsing"},
			{"media not an object", map[string]any{"from": "client", "content": "x", "media": "x.jpg"}, []any{"body", "media"}, "model_type"},
			{"body not an object", []any{1}, []any{"body"}, "model_type"},
			{"not JSON", "{", []any{"body"}, "json_invalid"},
		} {
			res := h.do("POST", path, adminKey, tc.body).must(t, 422)
			if item := res.get("detail", 0).(map[string]any); !reflect.DeepEqual(item["loc"], tc.loc) || item["type"] != tc.typ {
				t.Errorf("%s: %s", tc.name, res.Raw)
			}
		}
		for _, tc := range []struct {
			body  map[string]any
			field string
		}{
			{map[string]any{"from": "ai_agent", "agent": "nobody", "content": "x"}, "agent"},
			{map[string]any{"from": "user", "user": "nobody", "content": "x"}, "user"},
			{map[string]any{"from": "user", "user": "bob", "content": "x"}, "user"}, // the other tenant's user
			{map[string]any{"from": "client", "content": "x", "reply_to_id": 999999}, "reply_to_id"},
		} {
			res := h.do("POST", path, adminKey, tc.body).must(t, 400)
			if res.errorCode() != "VALIDATION_ERROR" || res.str("details", "field") != tc.field {
				t.Errorf("%v: %s", tc.body, res.Raw)
			}
		}
		if n := h.count("messages", "conversation_id = ?", c7); n != 5 {
			t.Errorf("refused appends wrote: %d messages", n)
		}
		if res := h.do("POST", fmt.Sprintf("/api/v2/admin/workspaces/nope/conversations/%d/messages", c7), adminKey,
			map[string]any{"from": "client", "content": "x"}).must(t, 404); res.errorCode() != "NOT_FOUND" {
			t.Errorf("unknown slug: %s", res.Raw)
		}
		if res := h.do("POST", adminChat+"/999999/messages", adminKey, map[string]any{"from": "client", "content": "x"}).must(t, 404); res.errorCode() != "NOT_FOUND" {
			t.Errorf("unknown session: %s", res.Raw)
		}
		h.do("POST", path, "", map[string]any{"from": "client", "content": "x"}).must(t, 401)
		h.do("POST", path, acmeKey, map[string]any{"from": "client", "content": "x"}).must(t, 401)
	})
}

func TestChatAdminUpdate(t *testing.T) {
	dbtest.Engines(t, func(t *testing.T, store *db.DB) {
		h := chatHarness(t, store)
		ids := h.acme()
		c2 := ids.Conversations["c2"]
		path := fmt.Sprintf("%s/%d", adminChat, c2)
		h.clock.Set(time.Date(2026, 11, 23, 9, 0, 0, 0, time.UTC))

		res := h.do("PATCH", path, adminKey, map[string]any{"status": "human_handling", "disposition": "callback",
			"sentiment": "negative", "summary": "Wants a call"}).must(t, 200)
		d := res.get("data").(map[string]any)
		if d["status"] != "human_handling" || d["sentiment"] != "negative" || d["summary"] != "Wants a call" ||
			d["disposition"].(map[string]any)["id"] != float64(ids.DispositionTags["callback"]) || d["updated_at"] != "2026-11-23T09:00:00Z" ||
			d["last_message_at"] != "2026-02-01T09:06:00Z" || len(d["messages"].([]any)) != 3 {
			t.Fatalf("patch: %s", res.Raw)
		}
		// Sending the same values changes nothing, updated_at included.
		h.clock.Advance(time.Hour)
		res = h.do("PATCH", path, adminKey, map[string]any{"status": "human_handling", "disposition": "callback"}).must(t, 200)
		if res.str("data", "updated_at") != "2026-11-23T09:00:00Z" {
			t.Errorf("no-op patch moved updated_at: %s", res.Raw)
		}
		// Each field alone moves updated_at.
		for i, body := range []map[string]any{
			{"status": "resolved"},
			{"disposition": float64(ids.DispositionTags["won"])}, // by id
			{"sentiment": "positive"},
			{"summary": ""},
			{"disposition": nil},
			{"sentiment": nil},
		} {
			h.clock.Advance(time.Minute)
			res := h.do("PATCH", path, adminKey, body).must(t, 200)
			if want := chatTS(h.clock.Now()); res.str("data", "updated_at") != want {
				t.Errorf("patch %d %v: updated_at %s, want %s", i, body, res.str("data", "updated_at"), want)
			}
		}
		final := h.do("GET", fmt.Sprintf("%s?client_id=%d&status=resolved", chatPath, ids.Clients["pedro"]), acmeKey, nil).must(t, 200)
		c := conv(h, final, "c2")
		if c == nil || c["disposition"] != nil || c["sentiment"] != nil || c["summary"] != "" || c["status"] != "resolved" {
			t.Errorf("final = %v", c)
		}

		for _, tc := range []struct {
			body any
			loc  []any
			typ  string
		}{
			{map[string]any{"status": "open"}, []any{"body", "status"}, "literal_error"},
			{map[string]any{"sentiment": "angry"}, []any{"body", "sentiment"}, "literal_error"},
			{map[string]any{"summary": 3}, []any{"body", "summary"}, "string_type"},
			{map[string]any{"disposition": true}, []any{"body", "disposition"}, "int_type"},
		} {
			res := h.do("PATCH", path, adminKey, tc.body).must(t, 422)
			if item := res.get("detail", 0).(map[string]any); !reflect.DeepEqual(item["loc"], tc.loc) || item["type"] != tc.typ {
				t.Errorf("%v: %s", tc.body, res.Raw)
			}
		}
		for _, body := range []map[string]any{{"disposition": "nope"}, {"disposition": float64(h.other().DispositionTags["won"])}} {
			res := h.do("PATCH", path, adminKey, body).must(t, 400)
			if res.errorCode() != "VALIDATION_ERROR" || res.str("details", "field") != "disposition" {
				t.Errorf("%v: %s", body, res.Raw)
			}
		}
		h.do("PATCH", adminChat+"/999999", adminKey, map[string]any{"status": "new"}).must(t, 404)
		h.do("PATCH", "/api/v2/admin/workspaces/nope/conversations/1", adminKey, map[string]any{"status": "new"}).must(t, 404)
		h.do("PATCH", path, acmeKey, map[string]any{"status": "new"}).must(t, 401)
	})
}
