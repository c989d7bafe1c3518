package httpapi_test

import (
	"context"
	"fmt"
	"net/url"
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

func TestChatFilters(t *testing.T) {
	dbtest.Engines(t, func(t *testing.T, store *db.DB) {
		h := chatHarness(t, store)
		ids := h.acme()
		tags := ids.DispositionTags
		// Keys in the default order (-created_at, -session_id).
		for _, tc := range []struct {
			name  string
			query string
			want  []string
		}{
			{"created_after is inclusive", "created_after=2026-06-01T00:00:00Z", []string{"c7", "c8", "c6"}},
			{"created_before is exclusive", "created_before=2026-03-01T08:00:00Z", []string{"c2", "c1"}},
			{"created window", "created_after=2026-02-01T09:00:00Z&created_before=2026-05-01T10:00:01Z", []string{"c5", "c4", "c3", "c2"}},
			{"created_after with offset", "created_after=2026-06-01T02:00:00%2B02:00", []string{"c7", "c8", "c6"}},
			{"updated_after is inclusive", "updated_after=2026-06-01T00:01:00Z", []string{"c7", "c8"}},
			{"client_id", fmt.Sprintf("client_id=%d", ids.Clients["pedro"]), []string{"c8", "c2"}},
			{"client_id carla", fmt.Sprintf("client_id=%d", ids.Clients["carla"]), []string{"c5"}},
			{"client_id unknown", "client_id=999999", []string{}},
			{"status new", "status=new", []string{"c7", "c2"}},
			{"status ai_handling", "status=ai_handling", []string{"c3"}},
			{"status human_handling", "status=human_handling", []string{"c4"}},
			{"status resolved", "status=resolved", []string{"c8", "c6", "c1"}},
			{"status expired", "status=expired", []string{"c5"}},
			{"direction inbound", "direction=inbound", []string{"c7", "c8", "c6", "c4", "c3", "c1"}},
			{"direction outbound", "direction=outbound", []string{"c5", "c2"}},
			{"one disposition", fmt.Sprintf("disposition_tag_ids=%d", tags["won"]), []string{"c8", "c6", "c1"}},
			{"dispositions OR", fmt.Sprintf("disposition_tag_ids=%d&disposition_tag_ids=%d", tags["lost"], tags["callback"]), []string{"c4", "c3"}},
			{"disposition with uncategorized", fmt.Sprintf("disposition_tag_ids=%d&include_uncategorized=true", tags["lost"]), []string{"c7", "c5", "c3", "c2"}},
			{"uncategorized alone has no effect", "include_uncategorized=true", []string{"c7", "c8", "c6", "c5", "c4", "c3", "c2", "c1"}},
			{"unknown disposition id", "disposition_tag_ids=999999", []string{}},
			{"search first name", "search=pedro", []string{"c8", "c2"}},
			{"search is case-insensitive", "search=PEDRO", []string{"c8", "c2"}},
			{"search last name with accent, upper case", "search=" + url.QueryEscape("GARCÍA"), []string{"c1"}},
			{"search first last", "search=" + url.QueryEscape("maría garc"), []string{"c1"}},
			{"search lower-case stored name", "search=CARLA", []string{"c5"}},
			{"search substring", "search=rteg", []string{"c6"}},
			{"search phone digits", "search=600111", []string{"c1"}},
			{"search phone E.164 with spaces", "search=" + url.QueryEscape("+34 600 444"), []string{"c3"}},
			{"search unknown number", "search=699000", []string{"c4"}},
			{"search foreign number", "search=7700900", []string{"c7"}},
			{"search matches nothing", "search=zzz", []string{}},
			{"search wildcard is literal", "search=" + url.QueryEscape("%"), []string{}},
			{"search underscore is literal", "search=_", []string{}},
			{"combined filters", fmt.Sprintf("status=resolved&direction=inbound&disposition_tag_ids=%d&created_after=2026-02-01T00:00:00Z", tags["won"]), []string{"c8", "c6"}},
		} {
			t.Run(tc.name, func(t *testing.T) {
				res := h.do("GET", chatPath+"?"+tc.query, acmeKey, nil).must(t, 200)
				if got := sessionKeys(t, h, res); !slices.Equal(got, tc.want) {
					t.Errorf("got %v, want %v", got, tc.want)
				}
				if int(res.num("count")) != len(tc.want) {
					t.Errorf("count = %v, want %d", res.num("count"), len(tc.want))
				}
			})
		}
	})
}

func TestChatSort(t *testing.T) {
	dbtest.Engines(t, func(t *testing.T, store *db.DB) {
		h := chatHarness(t, store)
		// updated_at = the last message (c5: its creation); c5 has no
		// message; c4 and c7 have no client.
		for _, tc := range []struct {
			sort string
			want []string
		}{
			{"created_at", []string{"c1", "c2", "c3", "c4", "c5", "c6", "c8", "c7"}},
			{"-created_at", []string{"c7", "c8", "c6", "c5", "c4", "c3", "c2", "c1"}},
			{"updated_at", []string{"c1", "c2", "c3", "c4", "c5", "c6", "c8", "c7"}},
			{"-updated_at", []string{"c7", "c8", "c6", "c5", "c4", "c3", "c2", "c1"}},
			{"last_message_at", []string{"c1", "c2", "c3", "c4", "c6", "c8", "c7", "c5"}},
			{"-last_message_at", []string{"c5", "c7", "c8", "c6", "c4", "c3", "c2", "c1"}},
			// bruno alonso < carla díaz < maría garcía < pedro pérez (c2, c8) < zoe ortega, then no client.
			{"client_name", []string{"c3", "c5", "c1", "c2", "c8", "c6", "c4", "c7"}},
			{"-client_name", []string{"c7", "c4", "c6", "c8", "c2", "c1", "c5", "c3"}},
		} {
			t.Run(tc.sort, func(t *testing.T) {
				res := h.do("GET", chatPath+"?sort_by="+tc.sort, acmeKey, nil).must(t, 200)
				if got := sessionKeys(t, h, res); !slices.Equal(got, tc.want) {
					t.Errorf("got %v, want %v", got, tc.want)
				}
				// Paging one at a time gives the same order: the tie-break is stable.
				var paged []string
				for off := 0; off < 8; off++ {
					p := h.do("GET", fmt.Sprintf("%s?sort_by=%s&limit=1&offset=%d", chatPath, tc.sort, off), acmeKey, nil).must(t, 200)
					paged = append(paged, sessionKeys(t, h, p)...)
				}
				if !slices.Equal(paged, tc.want) {
					t.Errorf("paged %v, want %v", paged, tc.want)
				}
			})
		}
	})
}

func TestChatPagingAndTruncation(t *testing.T) {
	dbtest.Engines(t, func(t *testing.T, store *db.DB) {
		h := chatHarness(t, store)
		ids := h.acme()
		var all []string
		for off := 0; off < 9; off += 3 {
			res := h.do("GET", fmt.Sprintf("%s?limit=3&offset=%d", chatPath, off), acmeKey, nil).must(t, 200)
			if res.num("count") != 8 || res.num("limit") != 3 || res.num("offset") != float64(off) {
				t.Fatalf("page at %d: %s", off, res.Raw)
			}
			all = append(all, sessionKeys(t, h, res)...)
		}
		if want := []string{"c7", "c8", "c6", "c5", "c4", "c3", "c2", "c1"}; !slices.Equal(all, want) {
			t.Errorf("pages = %v", all)
		}
		past := h.do("GET", chatPath+"?offset=100", acmeKey, nil).must(t, 200)
		if past.num("count") != 8 || past.list("data") == nil || len(past.list("data")) != 0 {
			t.Errorf("past the end: %s", past.Raw)
		}
		if res := h.do("GET", chatPath+"?limit=50", acmeKey, nil).must(t, 200); len(res.list("data")) != 8 || res.num("limit") != 50 {
			t.Errorf("limit 50: %s", res.Raw)
		}

		// c3 has 12 messages: cut to the oldest 5, participants still whole.
		full := conv(h, h.do("GET", chatPath+"?status=ai_handling", acmeKey, nil).must(t, 200), "c3")
		cut := conv(h, h.do("GET", chatPath+"?status=ai_handling&max_messages_per_session=5", acmeKey, nil).must(t, 200), "c3")
		if len(full["messages"].([]any)) != 12 || full["has_more_messages"] != false {
			t.Errorf("full c3: %v", full)
		}
		msgs := cut["messages"].([]any)
		if len(msgs) != 5 || cut["has_more_messages"] != true || cut["message_count"] != 12.0 {
			t.Fatalf("cut c3: %v", cut)
		}
		for i, m := range msgs {
			if c := m.(map[string]any)["content"]; c != fmt.Sprintf("m%02d", i+1) {
				t.Errorf("cut message %d = %v", i, c)
			}
		}
		if !reflect.DeepEqual(cut["participants"], full["participants"]) {
			t.Errorf("participants differ when cut: %v vs %v", cut["participants"], full["participants"])
		}
		exact := conv(h, h.do("GET", chatPath+"?status=ai_handling&max_messages_per_session=12", acmeKey, nil).must(t, 200), "c3")
		if len(exact["messages"].([]any)) != 12 || exact["has_more_messages"] != false {
			t.Errorf("exactly 12: %v", exact["has_more_messages"])
		}
		// sofia m02 m09, leo m04; ana m05 m10, luis m08 — ordered by first message.
		sofia, leo := float64(ids.AIAgents["sofia"]), float64(ids.AIAgents["leo"])
		ana, luis := float64(ids.Users["ana"]), float64(ids.Users["luis"])
		wantParts := map[string]any{
			"ai_agents": []any{
				map[string]any{"id": sofia, "name": "Sofia", "message_count": 2.0, "first_message_at": "2026-03-01T08:01:00Z", "last_message_at": "2026-03-01T08:08:00Z"},
				map[string]any{"id": leo, "name": "Leo", "message_count": 1.0, "first_message_at": "2026-03-01T08:03:00Z", "last_message_at": "2026-03-01T08:03:00Z"},
			},
			"users": []any{
				map[string]any{"id": ana, "name": "Ana Ruiz", "email": "ana@acme.test", "message_count": 2.0, "first_message_at": "2026-03-01T08:04:00Z", "last_message_at": "2026-03-01T08:09:00Z"},
				map[string]any{"id": luis, "name": "Luis Gil", "email": "luis@acme.test", "message_count": 1.0, "first_message_at": "2026-03-01T08:07:00Z", "last_message_at": "2026-03-01T08:07:00Z"},
			},
		}
		if !reflect.DeepEqual(full["participants"], wantParts) {
			t.Errorf("c3 participants = %v", full["participants"])
		}

		// include_messages=false: no messages key, has_more false, participants whole.
		browse := h.do("GET", chatPath+"?include_messages=false&max_messages_per_session=1", acmeKey, nil).must(t, 200)
		if browse.num("count") != 8 {
			t.Fatalf("browse: %s", browse.Raw)
		}
		for _, item := range browse.list("data") {
			m := item.(map[string]any)
			if hasKey(m, "messages") || m["has_more_messages"] != false {
				t.Errorf("browse item %v has messages or has_more", m["session_id"])
			}
		}
		if b3 := conv(h, browse, "c3"); !reflect.DeepEqual(b3["participants"], wantParts) || b3["message_count"] != 12.0 {
			t.Errorf("browse c3 = %v", b3)
		}
	})
}

func TestChatListValidation(t *testing.T) {
	dbtest.Engines(t, func(t *testing.T, store *db.DB) {
		h := chatHarness(t, store)
		for _, tc := range []struct {
			query, field, typ string
		}{
			{"limit=0", "limit", "greater_than_equal"},
			{"limit=51", "limit", "less_than_equal"},
			{"limit=ten", "limit", "int_parsing"},
			{"offset=-1", "offset", "greater_than_equal"},
			{"status=open", "status", "literal_error"},
			{"direction=sideways", "direction", "literal_error"},
			{"sort_by=name", "sort_by", "literal_error"},
			{"sort_by=%2Bcreated_at", "sort_by", "literal_error"},
			{"max_messages_per_session=0", "max_messages_per_session", "greater_than_equal"},
			{"max_messages_per_session=2001", "max_messages_per_session", "less_than_equal"},
			{"created_after=yesterday", "created_after", "datetime_parsing"},
			{"created_before=2026-13-01T00:00:00Z", "created_before", "datetime_parsing"},
			{"updated_after=nope", "updated_after", "datetime_parsing"},
			{"include_messages=maybe", "include_messages", "bool_parsing"},
			{"include_uncategorized=maybe", "include_uncategorized", "bool_parsing"},
			{"client_id=abc", "client_id", "int_parsing"},
			{"disposition_tag_ids=x", "disposition_tag_ids", "int_parsing"},
		} {
			res := h.do("GET", chatPath+"?"+tc.query, acmeKey, nil).must(t, 422)
			item := res.get("detail", 0).(map[string]any)
			if !reflect.DeepEqual(item["loc"], []any{"query", tc.field}) || item["type"] != tc.typ {
				t.Errorf("%s: %v", tc.query, item)
			}
		}
		// Every problem at once.
		res := h.do("GET", chatPath+"?limit=0&status=x&sort_by=y", acmeKey, nil).must(t, 422)
		if n := len(res.list("detail")); n != 3 {
			t.Errorf("want 3 problems, got %s", res.Raw)
		}
		for _, q := range []string{"max_messages_per_session=2000", "max_messages_per_session=1", "limit=1", "sort_by=-client_name", "unknown_param=1"} {
			h.do("GET", chatPath+"?"+q, acmeKey, nil).must(t, 200)
		}
		h.do("GET", chatPath, "", nil).must(t, 401)
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

func chatTS(t time.Time) string { return t.UTC().Format(time.RFC3339Nano) }

// TestChatIncrementalSync walks the contract's recipe: store the newest
// updated_at, let messages arrive on two conversations, then page with
// updated_after + sort_by=updated_at until count items are read.
func TestChatIncrementalSync(t *testing.T) {
	dbtest.Engines(t, func(t *testing.T, store *db.DB) {
		h := chatHarness(t, store)
		ids := h.acme()

		// Full sync, paging by 3.
		sync := func(watermark string) ([]string, string) {
			t.Helper()
			var keys []string
			newest := watermark
			q := url.Values{"sort_by": {"updated_at"}, "limit": {"3"}, "include_messages": {"false"}}
			if watermark != "" {
				q.Set("updated_after", watermark)
			}
			for off := 0; ; off += 3 {
				q.Set("offset", fmt.Sprint(off))
				res := h.do("GET", chatPath+"?"+q.Encode(), acmeKey, nil).must(t, 200)
				keys = append(keys, sessionKeys(t, h, res)...)
				for _, item := range res.list("data") {
					if u := item.(map[string]any)["updated_at"].(string); u > newest {
						newest = u
					}
				}
				if len(keys) >= int(res.num("count")) {
					return keys, newest
				}
			}
		}
		first, watermark := sync("")
		if len(first) != 8 || watermark != "2026-06-15T12:00:00Z" {
			t.Fatalf("first sync = %v, watermark %s", first, watermark)
		}
		// Nothing changed: only the conversation at the watermark comes back.
		if again, _ := sync(watermark); !slices.Equal(again, []string{"c7"}) {
			t.Errorf("idle sync = %v", again)
		}

		h.clock.Set(time.Date(2026, 11, 23, 9, 0, 0, 0, time.UTC))
		h.do("POST", fmt.Sprintf("%s/%d/messages", adminChat, ids.Conversations["c3"]), adminKey,
			map[string]any{"from": "client", "content": "¿Sigue en pie?"}).must(t, 200)
		h.clock.Advance(10 * time.Minute)
		// A message stamped in the past still moves updated_at to now.
		h.do("POST", fmt.Sprintf("%s/%d/messages", adminChat, ids.Conversations["c1"]), adminKey,
			map[string]any{"from": "ai_agent", "agent": "sofia", "content": "Recordatorio", "timestamp": "2026-01-06T10:00:00Z"}).must(t, 200)

		got, newest := sync(watermark)
		if !slices.Equal(got, []string{"c7", "c3", "c1"}) { // c7 sits at the inclusive watermark
			t.Errorf("incremental sync = %v", got)
		}
		if newest != "2026-11-23T09:10:00Z" {
			t.Errorf("new watermark = %s", newest)
		}
		// Deduplicated by session_id, the client has the two changed ones.
		res := h.do("GET", chatPath+"?sort_by=updated_at&updated_after="+url.QueryEscape(newest), acmeKey, nil).must(t, 200)
		if k := sessionKeys(t, h, res); !slices.Equal(k, []string{"c1"}) || res.num("data", 0, "message_count") != 5 {
			t.Errorf("at the new watermark: %v", k)
		}
		// A status change is a change too.
		h.clock.Advance(time.Minute)
		h.do("PATCH", fmt.Sprintf("%s/%d", adminChat, ids.Conversations["c5"]), adminKey, map[string]any{"summary": "Closed"}).must(t, 200)
		if got, _ := sync(newest); !slices.Equal(got, []string{"c1", "c5"}) {
			t.Errorf("after patch = %v", got)
		}
	})
}
