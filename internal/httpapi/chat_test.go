package httpapi_test

import (
	"context"
	"fmt"
	"reflect"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/frontdesk/frontdesk/internal/db"
	"github.com/frontdesk/frontdesk/internal/db/dbtest"
)

const (
	chatPath  = "/api/v2/public/chat/conversations"
	adminChat = "/api/v2/admin/workspaces/acme/conversations"
	adminKey  = "admin-secret"
)

// chatHarness is the harness with the chat fixture.
func chatHarness(t *testing.T, store *db.DB) *harness {
	t.Helper()
	return newHarness(t, store, "testdata/chat.yaml")
}

// sessionKeys maps a list response's session ids back to fixture keys, in
// order.
func sessionKeys(t *testing.T, h *harness, res response) []string {
	t.Helper()
	byID := map[int64]string{}
	for k, id := range h.acme().Conversations {
		byID[id] = k
	}
	out := []string{}
	for _, item := range res.list("data") {
		id := int64(item.(map[string]any)["session_id"].(float64))
		k, ok := byID[id]
		if !ok {
			k = fmt.Sprintf("#%d", id)
		}
		out = append(out, k)
	}
	return out
}

// conv returns the listed conversation with the fixture key (nil if absent).
func conv(h *harness, res response, key string) map[string]any {
	id := float64(h.acme().Conversations[key])
	for _, item := range res.list("data") {
		if m := item.(map[string]any); m["session_id"] == id {
			return m
		}
	}
	return nil
}

func TestChatConversationShape(t *testing.T) {
	dbtest.Engines(t, func(t *testing.T, store *db.DB) {
		h := chatHarness(t, store)
		ids := h.acme()
		res := h.do("GET", chatPath, acmeKey, nil).must(t, 200)
		if res.str("status") != "success" || res.num("count") != 8 || res.num("limit") != 20 || res.num("offset") != 0 {
			t.Fatalf("envelope: %s", res.Raw)
		}
		// Default order: -created_at, ties (c6/c8) by session_id descending.
		if got, want := sessionKeys(t, h, res), []string{"c7", "c8", "c6", "c5", "c4", "c3", "c2", "c1"}; !slices.Equal(got, want) {
			t.Fatalf("default order = %v, want %v", got, want)
		}

		c1 := conv(h, res, "c1")
		want := map[string]any{
			"session_id": float64(ids.Conversations["c1"]), "status": "resolved", "direction": "inbound",
			"customer_phone_number": "+34600111222", "sentiment": "positive", "summary": "Booked a cleaning",
			"message_count": 4.0, "has_more_messages": false, "created_at": "2026-01-05T10:00:00Z",
			"updated_at": "2026-01-05T10:02:00Z", "last_message_at": "2026-01-05T10:02:00Z",
		}
		for k, v := range want {
			if c1[k] != v {
				t.Errorf("c1.%s = %#v, want %#v", k, c1[k], v)
			}
		}
		client := c1["client"].(map[string]any)
		if !reflect.DeepEqual(client, map[string]any{"id": float64(ids.Clients["maria"]), "name": "María García", "first_name": "María",
			"last_name": "García", "phone": "+34600111222", "email": "maria@example.com", "company": nil}) {
			t.Errorf("c1.client = %v", client)
		}
		if !reflect.DeepEqual(c1["disposition"], map[string]any{"id": float64(ids.DispositionTags["won"]), "name": "Booked", "color": "#00aa00"}) {
			t.Errorf("c1.disposition = %v", c1["disposition"])
		}
		if au, ok := c1["assigned_users"].([]any); !ok || len(au) != 0 {
			t.Errorf("c1.assigned_users = %#v", c1["assigned_users"])
		}

		// The senders (docs/contract.md, Messages and senders), oldest first.
		msgs := c1["messages"].([]any)
		if len(msgs) != 4 {
			t.Fatalf("c1 messages: %v", msgs)
		}
		maria, sofia, ana := float64(ids.Clients["maria"]), float64(ids.AIAgents["sofia"]), float64(ids.Users["ana"])
		senders := []struct {
			senderType string
			sender     map[string]any
			content    string
			ts         string
		}{
			{"customer", map[string]any{"type": "client", "id": maria, "name": "María García", "email": "maria@example.com"}, "Hola", "2026-01-05T10:00:00Z"},
			{"ai", map[string]any{"type": "ai_agent", "id": sofia, "name": "Sofia", "email": nil}, "¡Hola!", "2026-01-05T10:00:05Z"},
			{"human", map[string]any{"type": "user", "id": ana, "name": "Ana Ruiz", "email": "ana@acme.test"}, "Te reservo", "2026-01-05T10:01:00Z"},
			{"human", map[string]any{"type": "business_app", "id": nil, "name": nil, "email": nil}, "(sent from phone)", "2026-01-05T10:02:00Z"},
		}
		for i, s := range senders {
			m := msgs[i].(map[string]any)
			if m["sender_type"] != s.senderType || !reflect.DeepEqual(m["sender"], s.sender) || m["content"] != s.content || m["timestamp"] != s.ts {
				t.Errorf("message %d = %v", i, m)
			}
			if _, ok := m["id"].(float64); !ok || !hasKey(m, "reply_to_id") || m["reply_to_id"] != nil {
				t.Errorf("message %d id/reply_to_id: %v", i, m)
			}
		}
		if m := msgs[0].(map[string]any); m["message_type"] != "text" || m["media"] != nil || !hasKey(m, "media") {
			t.Errorf("text message: %v", m)
		}
		if m := msgs[3].(map[string]any); m["message_type"] != "image" ||
			!reflect.DeepEqual(m["media"], map[string]any{"kind": "image", "mime": "image/jpeg", "filename": "x.jpg", "caption": nil}) {
			t.Errorf("media message: %v", m)
		}
		// Participants: the business-app message counts toward no one.
		wantParts := map[string]any{
			"ai_agents": []any{map[string]any{"id": sofia, "name": "Sofia", "message_count": 1.0,
				"first_message_at": "2026-01-05T10:00:05Z", "last_message_at": "2026-01-05T10:00:05Z"}},
			"users": []any{map[string]any{"id": ana, "name": "Ana Ruiz", "email": "ana@acme.test", "message_count": 1.0,
				"first_message_at": "2026-01-05T10:01:00Z", "last_message_at": "2026-01-05T10:01:00Z"}},
		}
		if !reflect.DeepEqual(c1["participants"], wantParts) {
			t.Errorf("c1.participants = %v", c1["participants"])
		}

		// An unknown number: no client key; the customer sender is anonymous.
		c4 := conv(h, res, "c4")
		if hasKey(c4, "client") {
			t.Errorf("c4 has a client: %v", c4["client"])
		}
		if s := c4["messages"].([]any)[0].(map[string]any)["sender"]; !reflect.DeepEqual(s, map[string]any{"type": "client", "id": nil, "name": nil, "email": nil}) {
			t.Errorf("anonymous customer sender = %v", s)
		}
		if c4["sentiment"] != "negative" || c4["disposition"].(map[string]any)["name"] != "Call back" {
			t.Errorf("c4 = %v", c4)
		}
		// No messages: an empty transcript, no last message, empty participants.
		c5 := conv(h, res, "c5")
		if l, ok := c5["messages"].([]any); !ok || len(l) != 0 || c5["last_message_at"] != nil || !hasKey(c5, "last_message_at") ||
			c5["disposition"] != nil || !hasKey(c5, "disposition") || c5["sentiment"] != nil || c5["summary"] != "" || c5["message_count"] != 0.0 {
			t.Errorf("c5 = %v", c5)
		}
		if !reflect.DeepEqual(c5["participants"], map[string]any{"ai_agents": []any{}, "users": []any{}}) {
			t.Errorf("c5.participants = %v", c5["participants"])
		}
		// Every timestamp is UTC with a Z.
		for _, item := range res.list("data") {
			m := item.(map[string]any)
			for _, k := range []string{"created_at", "updated_at"} {
				if s, _ := m[k].(string); !strings.HasSuffix(s, "Z") {
					t.Errorf("%s = %q", k, s)
				}
			}
		}
	})
}

func hasKey(m map[string]any, k string) bool {
	_, ok := m[k]
	return ok
}

func TestChatInternalFieldsNeverExposed(t *testing.T) {
	dbtest.Engines(t, func(t *testing.T, store *db.DB) {
		h := chatHarness(t, store)
		ctx := context.Background()
		// The store keeps internal fields, and a channel may have stored more
		// than the public metadata in media.
		if _, err := store.Exec(ctx, `UPDATE messages SET model = 'gpt-secret-model', tokens = 4242, cost = 0.4242,
			storage_key = 's3://bucket/secret-key'`); err != nil {
			t.Fatal(err)
		}
		if _, err := store.Exec(ctx, `UPDATE messages SET media = '{"kind":"image","mime":"image/jpeg","filename":"x.jpg","caption":null,"storage_key":"s3://bucket/secret-key","url":"https://cdn.test/secret"}'
			WHERE media IS NOT NULL`); err != nil {
			t.Fatal(err)
		}
		c1 := h.acme().Conversations["c1"]
		for _, path := range []string{chatPath, chatPath + "?include_messages=false", fmt.Sprintf("%s/%d/messages", chatPath, c1)} {
			res := h.do("GET", path, acmeKey, nil).must(t, 200)
			for _, secret := range []string{"gpt-secret-model", "4242", "secret-key", "cdn.test", `"model"`, `"tokens"`, `"cost"`, `"storage_key"`, `"url"`} {
				if strings.Contains(string(res.Raw), secret) {
					t.Errorf("%s exposes %s", path, secret)
				}
			}
		}
		res := h.do("GET", fmt.Sprintf("%s/%d/messages", chatPath, c1), acmeKey, nil).must(t, 200)
		if m := res.get("data", 3, "media"); !reflect.DeepEqual(m, map[string]any{"kind": "image", "mime": "image/jpeg", "filename": "x.jpg", "caption": nil}) {
			t.Errorf("media = %v", m)
		}
	})
}

func TestChatTenancy(t *testing.T) {
	dbtest.Engines(t, func(t *testing.T, store *db.DB) {
		h := chatHarness(t, store)
		otherC1 := h.other().Conversations["c1"]
		acme := h.do("GET", chatPath+"?limit=50", acmeKey, nil).must(t, 200)
		for _, item := range acme.list("data") {
			if item.(map[string]any)["session_id"] == float64(otherC1) {
				t.Errorf("acme lists the other tenant's conversation")
			}
		}
		// Same phone number in both tenants: search and client_id stay inside.
		if res := h.do("GET", chatPath+"?search=600111", acmeKey, nil).must(t, 200); res.num("count") != 1 || sessionKeys(t, h, res)[0] != "c1" {
			t.Errorf("search: %s", res.Raw)
		}
		if res := h.do("GET", fmt.Sprintf("%s?client_id=%d", chatPath, h.other().Clients["maria"]), acmeKey, nil).must(t, 200); res.num("count") != 0 {
			t.Errorf("other tenant's client_id: %s", res.Raw)
		}
		if res := h.do("GET", fmt.Sprintf("%s?disposition_tag_ids=%d", chatPath, h.other().DispositionTags["won"]), acmeKey, nil).must(t, 200); res.num("count") != 0 {
			t.Errorf("other tenant's disposition: %s", res.Raw)
		}
		other := h.do("GET", chatPath, otherKey, nil).must(t, 200)
		if other.num("count") != 1 || other.num("data", 0, "session_id") != float64(otherC1) {
			t.Fatalf("other: %s", other.Raw)
		}
		// The other tenant's client is theirs, never acme's María.
		if other.num("data", 0, "client", "id") != float64(h.other().Clients["maria"]) {
			t.Errorf("other's client = %v", other.get("data", 0, "client"))
		}
		res := h.do("GET", fmt.Sprintf("%s/%d/messages", chatPath, otherC1), acmeKey, nil).must(t, 404)
		if res.errorCode() != "NOT_FOUND" {
			t.Errorf("messages of other tenant: %s", res.Raw)
		}
		h.do("GET", fmt.Sprintf("%s/%d/messages", chatPath, h.acme().Conversations["c1"]), otherKey, nil).must(t, 404)
		// Admin routes resolve the session inside the slug's account.
		h.do("POST", fmt.Sprintf("%s/%d/messages", adminChat, otherC1), adminKey, map[string]any{"from": "client", "content": "x"}).must(t, 404)
		h.do("PATCH", fmt.Sprintf("%s/%d", adminChat, otherC1), adminKey, map[string]any{"status": "expired"}).must(t, 404)
		if n := h.count("messages", "conversation_id = ?", otherC1); n != 1 {
			t.Errorf("other tenant's conversation changed: %d messages", n)
		}
	})
}

func TestChatClientAndAssignees(t *testing.T) {
	dbtest.Engines(t, func(t *testing.T, store *db.DB) {
		h := chatHarness(t, store)
		ids := h.acme()
		ctx := context.Background()
		assigned := func(key string) []any {
			t.Helper()
			res := h.do("GET", chatPath+"?include_messages=false", acmeKey, nil).must(t, 200)
			l, ok := conv(h, res, key)["assigned_users"].([]any)
			if !ok {
				t.Fatalf("assigned_users of %s: %s", key, res.Raw)
			}
			return l
		}
		setAssignee := func(pipeline string, user int64) {
			t.Helper()
			if _, err := store.Exec(ctx, `UPDATE cards SET assigned_user_id = ? WHERE client_id = ? AND pipeline_id = ?`,
				user, ids.Clients["pedro"], ids.Pipelines[pipeline]); err != nil {
				t.Fatal(err)
			}
		}
		if l := assigned("c2"); len(l) != 0 {
			t.Errorf("no assignee yet: %v", l)
		}
		setAssignee("sales", ids.Users["ana"])
		setAssignee("support", ids.Users["ana"])
		anaU := map[string]any{"id": float64(ids.Users["ana"]), "name": "Ana Ruiz", "email": "ana@acme.test"}
		luisU := map[string]any{"id": float64(ids.Users["luis"]), "name": "Luis Gil", "email": "luis@acme.test"}
		// Distinct by user, on every conversation of the client.
		for _, k := range []string{"c2", "c8"} {
			if l := assigned(k); !reflect.DeepEqual(l, []any{anaU}) {
				t.Errorf("%s assigned = %v", k, l)
			}
		}
		setAssignee("support", ids.Users["luis"])
		if l := assigned("c2"); !reflect.DeepEqual(l, []any{anaU, luisU}) {
			t.Errorf("two assignees = %v", l)
		}
		// Only active cards count.
		if _, err := store.Exec(ctx, `UPDATE cards SET status = 'removed' WHERE client_id = ? AND pipeline_id = ?`,
			ids.Clients["pedro"], ids.Pipelines["support"]); err != nil {
			t.Fatal(err)
		}
		if l := assigned("c2"); !reflect.DeepEqual(l, []any{anaU}) {
			t.Errorf("after removal = %v", l)
		}

		// A client created after the conversation is matched at read time.
		res := h.do("GET", chatPath+"?search=7700900", acmeKey, nil).must(t, 200)
		if hasKey(res.get("data", 0).(map[string]any), "client") {
			t.Fatalf("c7 has a client before it exists")
		}
		h.applyData([]byte(`account: {slug: acme, name: Acme Clinic, timezone: Europe/Madrid, default_region: ES}
clients: [{key: james, first_name: James, last_name: Bond, phone: "+447700900123", email: james@example.test}]`))
		res = h.do("GET", chatPath+"?search=bond", acmeKey, nil).must(t, 200)
		if res.num("count") != 1 || res.str("data", 0, "client", "name") != "James Bond" || res.str("data", 0, "client", "phone") != "+447700900123" ||
			res.num("data", 0, "messages", 0, "sender", "id") != float64(h.acme().Clients["james"]) {
			t.Errorf("late client: %s", res.Raw)
		}
		if res := h.do("GET", fmt.Sprintf("%s?client_id=%d", chatPath, h.acme().Clients["james"]), acmeKey, nil).must(t, 200); res.num("count") != 1 {
			t.Errorf("late client by id: %s", res.Raw)
		}
	})
}

func TestChatMessagesEndpoint(t *testing.T) {
	dbtest.Engines(t, func(t *testing.T, store *db.DB) {
		h := chatHarness(t, store)
		c3 := h.acme().Conversations["c3"]
		path := fmt.Sprintf("%s/%d/messages", chatPath, c3)
		contents := func(res response) []string {
			var out []string
			for _, m := range res.list("data") {
				out = append(out, m.(map[string]any)["content"].(string))
			}
			return out
		}
		res := h.do("GET", path, acmeKey, nil).must(t, 200)
		if res.str("status") != "success" || res.num("session_id") != float64(c3) || res.num("count") != 12 ||
			res.num("limit") != 100 || res.num("offset") != 0 || len(res.list("data")) != 12 {
			t.Fatalf("messages: %s", res.Raw)
		}
		if got := contents(res); got[0] != "m01" || got[11] != "m12" {
			t.Errorf("asc = %v", got)
		}
		if l := res.list("participants", "ai_agents"); len(l) != 2 {
			t.Errorf("participants: %v", res.get("participants"))
		}
		page := h.do("GET", path+"?limit=5&offset=5", acmeKey, nil).must(t, 200)
		if got := contents(page); !slices.Equal(got, []string{"m06", "m07", "m08", "m09", "m10"}) || page.num("count") != 12 || page.num("limit") != 5 || page.num("offset") != 5 {
			t.Errorf("page = %v (%s)", got, page.Raw)
		}
		if l := page.list("participants", "users"); len(l) != 2 {
			t.Errorf("page participants are whole: %v", page.get("participants"))
		}
		desc := h.do("GET", path+"?order=desc&limit=3", acmeKey, nil).must(t, 200)
		if got := contents(desc); !slices.Equal(got, []string{"m12", "m11", "m10"}) {
			t.Errorf("desc = %v", got)
		}
		// m06 is a business-app message: human, no sender.
		if m := page.get("data", 0).(map[string]any); m["sender_type"] != "human" || m["sender"].(map[string]any)["type"] != "business_app" {
			t.Errorf("business app = %v", m)
		}
		if res := h.do("GET", path+"?offset=50", acmeKey, nil).must(t, 200); len(res.list("data")) != 0 || res.list("data") == nil || res.num("count") != 12 {
			t.Errorf("past the end: %s", res.Raw)
		}
		// Same timestamp: by id.
		same := h.acme().Conversations["c5"]
		for _, c := range []string{"a", "b", "c"} {
			h.do("POST", fmt.Sprintf("%s/%d/messages", adminChat, same), adminKey,
				map[string]any{"from": "client", "content": c, "timestamp": "2026-05-01T11:00:00Z"}).must(t, 200)
		}
		p5 := fmt.Sprintf("%s/%d/messages", chatPath, same)
		if got := contents(h.do("GET", p5, acmeKey, nil).must(t, 200)); !slices.Equal(got, []string{"a", "b", "c"}) {
			t.Errorf("ties asc = %v", got)
		}
		if got := contents(h.do("GET", p5+"?order=desc", acmeKey, nil).must(t, 200)); !slices.Equal(got, []string{"c", "b", "a"}) {
			t.Errorf("ties desc = %v", got)
		}
		// An empty conversation has empty participants.
		empty := h.do("GET", fmt.Sprintf("%s/%d/messages", chatPath, h.acme().Conversations["c7"]), acmeKey, nil).must(t, 200)
		if !reflect.DeepEqual(empty.get("participants"), map[string]any{"ai_agents": []any{}, "users": []any{}}) {
			t.Errorf("c7 participants = %v", empty.get("participants"))
		}

		for _, tc := range []struct{ query, field, typ string }{
			{"limit=0", "limit", "greater_than_equal"},
			{"limit=501", "limit", "less_than_equal"},
			{"offset=-1", "offset", "greater_than_equal"},
			{"order=newest", "order", "literal_error"},
		} {
			res := h.do("GET", path+"?"+tc.query, acmeKey, nil).must(t, 422)
			if item := res.get("detail", 0).(map[string]any); !reflect.DeepEqual(item["loc"], []any{"query", tc.field}) || item["type"] != tc.typ {
				t.Errorf("%s: %v", tc.query, item)
			}
		}
		h.do("GET", path+"?limit=500", acmeKey, nil).must(t, 200)
		if res := h.do("GET", chatPath+"/999999/messages", acmeKey, nil).must(t, 404); res.errorCode() != "NOT_FOUND" {
			t.Errorf("unknown: %s", res.Raw)
		}
		h.do("GET", chatPath+"/abc/messages", acmeKey, nil).must(t, 422)
	})
}

func chatTS(t time.Time) string { return t.UTC().Format(time.RFC3339Nano) }
