package httpapi_test

import (
	"fmt"
	"net/url"
	"reflect"
	"slices"
	"testing"
	"time"

	"github.com/frontdesk/frontdesk/internal/db"
	"github.com/frontdesk/frontdesk/internal/db/dbtest"
)

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
