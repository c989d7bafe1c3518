package httpapi_test

import (
	"encoding/base64"
	"fmt"
	"net/url"
	"slices"
	"testing"
	"time"

	"github.com/frontdesk/frontdesk/internal/db"
	"github.com/frontdesk/frontdesk/internal/db/dbtest"
)

// cursorItem is one listed session as a cursor walk sees it.
type cursorItem struct {
	id      int64
	updated string
}

// cursorPage fetches one page of the conversation list with query q and
// returns its items and next_cursor ("" for null). It fails the test unless
// the page carries the next_cursor key.
func cursorPage(t *testing.T, h *harness, key string, q url.Values) ([]cursorItem, string, response) {
	t.Helper()
	res := h.do("GET", chatPath+"?"+q.Encode(), key, nil).must(t, 200)
	next, present := res.Body["next_cursor"]
	if !present {
		t.Fatalf("no next_cursor key in a response sorted by updated_at: %s", truncate(res.Raw, 500))
	}
	var items []cursorItem
	for _, it := range res.list("data") {
		m := it.(map[string]any)
		items = append(items, cursorItem{int64(m["session_id"].(float64)), m["updated_at"].(string)})
	}
	s, _ := next.(string)
	if next != nil && s == "" {
		t.Fatalf("next_cursor is neither a string nor null: %v", next)
	}
	return items, s, res
}

// cursorWalk pages through the list with cursors from the first page until
// next_cursor is null, calling after(page, soFar, res) after each page
// (nil: nothing). Every page but the last is full.
func cursorWalk(t *testing.T, h *harness, key string, q url.Values, after func(page int, soFar []cursorItem, res response)) []cursorItem {
	t.Helper()
	var all []cursorItem
	q = cloneValues(q)
	limit := 20
	if l := q.Get("limit"); l != "" {
		fmt.Sscan(l, &limit)
	}
	for page := 0; ; page++ {
		if page > 1000 {
			t.Fatal("the walk does not end")
		}
		items, next, res := cursorPage(t, h, key, q)
		all = append(all, items...)
		if after != nil {
			after(page, all, res)
		}
		if next == "" {
			return all
		}
		if len(items) != limit {
			t.Fatalf("page %d: %d items with a next_cursor, want a full page of %d", page, len(items), limit)
		}
		q.Set("cursor", next)
	}
}

func cloneValues(q url.Values) url.Values {
	out := url.Values{}
	for k, v := range q {
		out[k] = slices.Clone(v)
	}
	return out
}

func itemIDs(items []cursorItem) []int64 {
	out := make([]int64, len(items))
	for i, it := range items {
		out[i] = it.id
	}
	return out
}

// TestChatCursorWalkUnderWrites is the drift test: 1,000 conversations
// (inserted straight into the table, sharing updated_at values in runs of
// four so the session_id tie-break is crossed by page boundaries), walked
// with cursors 50 at a time while 100 of them, half already seen and half
// not, are updated after the sixth page. Nothing is missed, nothing
// unchanged is repeated, and the 100 updated ones come (again) at the end.
func TestChatCursorWalkUnderWrites(t *testing.T) {
	dbtest.Engines(t, func(t *testing.T, store *db.DB) {
		h := newHarness(t, store)
		ctx := t.Context()
		acmeID, otherID := h.ids["acme"].Account.ID, h.ids["other"].Account.ID

		// 1,000 acme conversations: updated_at scattered over 250 minutes
		// of 2026-03-01 (four per minute, in an order unrelated to the
		// ids), and 60 of the other tenant's interleaved with them.
		base := time.Date(2026, 3, 1, 8, 0, 0, 0, time.UTC)
		var rows [][]any
		for i := range 1060 {
			acct := acmeID
			if i >= 1000 {
				acct = otherID
			}
			updated := base.Add(time.Duration((i*7919)%250) * time.Minute)
			national := fmt.Sprintf("699%06d", i)
			rows = append(rows, []any{acct, "+34" + national, national, "new", "inbound", "", 0,
				db.Micros(base.Add(-time.Hour)), db.Micros(updated)})
		}
		if err := db.InsertMany(ctx, store, `INSERT INTO conversations (account_id, customer_phone_number, phone_national,
			status, direction, summary, message_count, created_at, updated_at)`, rows, ""); err != nil {
			t.Fatal(err)
		}
		all := map[int64]bool{}
		r, err := store.Query(ctx, `SELECT id FROM conversations WHERE account_id = ?`, acmeID)
		if err != nil {
			t.Fatal(err)
		}
		for r.Next() {
			var id int64
			r.Scan(&id)
			all[id] = true
		}
		r.Close()
		if len(all) != 1001 { // with acme.yaml's c1
			t.Fatalf("acme holds %d conversations, want 1001", len(all))
		}

		q := url.Values{"sort_by": {"updated_at"}, "limit": {"50"}, "include_messages": {"false"}}
		var viaAdmin, viaSQL, seenBefore []int64
		walk := cursorWalk(t, h, acmeKey, q, func(page int, soFar []cursorItem, res response) {
			if res.num("count") != 1001 {
				t.Errorf("page %d: count = %v, want 1001 (every match, whatever the cursor)", page, res.num("count"))
			}
			if page != 5 {
				return
			}
			// After 300 sessions: change 50 already seen and 50 not yet
			// seen. 20 go through the admin routes (a message, a summary),
			// at the clock's now; the other 80 by SQL a second later. Both
			// are later than every cursor.
			seenNow := map[int64]bool{}
			for i, it := range soFar {
				seenNow[it.id] = true
				if i%6 == 3 && len(seenBefore) < 50 {
					seenBefore = append(seenBefore, it.id)
				}
			}
			var unseen []int64
			for id := range all {
				if !seenNow[id] {
					unseen = append(unseen, id)
				}
			}
			slices.Sort(unseen)
			var notYet []int64
			for i := 0; len(notYet) < 50; i += len(unseen) / 50 {
				notYet = append(notYet, unseen[i])
			}
			changed := append(slices.Clone(seenBefore), notYet...)
			for i, id := range changed {
				switch {
				case i%5 == 0 && len(viaAdmin) < 10: // 10 messages
					h.do("POST", fmt.Sprintf("%s/%d/messages", adminChat, id), adminKey,
						map[string]any{"from": "client", "content": "¿Sigue en pie?", "timestamp": "2026-01-01T00:00:00Z"}).must(t, 200)
					viaAdmin = append(viaAdmin, id)
				case i%5 == 1 && len(viaAdmin) < 20: // 10 summaries
					h.do("PATCH", fmt.Sprintf("%s/%d", adminChat, id), adminKey, map[string]any{"summary": "Changed mid-walk"}).must(t, 200)
					viaAdmin = append(viaAdmin, id)
				default:
					viaSQL = append(viaSQL, id)
				}
			}
			h.clock.Advance(time.Second)
			in, args := db.In(viaSQL)
			if _, err := store.Exec(ctx, `UPDATE conversations SET updated_at = ? WHERE account_id = ? AND id IN `+in,
				append([]any{db.Micros(h.clock.Now()), acmeID}, args...)...); err != nil {
				t.Fatal(err)
			}
		})
		if len(viaAdmin) != 20 || len(viaSQL) != 80 || len(seenBefore) != 50 {
			t.Fatalf("changed %d + %d, %d of them seen before", len(viaAdmin), len(viaSQL), len(seenBefore))
		}

		// Every acme conversation at least once, nobody else's.
		times := map[int64]int{}
		for _, it := range walk {
			if !all[it.id] {
				t.Fatalf("session %d is not acme's", it.id)
			}
			times[it.id]++
		}
		if len(times) != len(all) {
			t.Fatalf("the walk saw %d of %d conversations", len(times), len(all))
		}
		// Twice exactly for the changed ones seen before the change; once
		// for everyone else.
		again := map[int64]bool{}
		for _, id := range seenBefore {
			again[id] = true
		}
		for id, n := range times {
			if want := map[bool]int{true: 2, false: 1}[again[id]]; n != want {
				t.Errorf("session %d seen %d times, want %d", id, n, want)
			}
		}
		if len(walk) != 1001+50 {
			t.Errorf("walk length %d, want %d", len(walk), 1001+50)
		}
		// The walk is strictly increasing in (updated_at, session_id): no
		// page ever went back.
		for i := 1; i < len(walk); i++ {
			a, b := parseTS(t, walk[i-1].updated), parseTS(t, walk[i].updated)
			if a.After(b) || (a.Equal(b) && walk[i-1].id >= walk[i].id) {
				t.Fatalf("walk goes back at %d: %v then %v", i, walk[i-1], walk[i])
			}
		}
		// The changed ones close the walk, in their new order: the admin
		// ones (the clock's now), then the SQL ones a second later, each
		// group by session_id.
		slices.Sort(viaAdmin)
		slices.Sort(viaSQL)
		if tail := itemIDs(walk[len(walk)-100:]); !slices.Equal(tail, append(viaAdmin, viaSQL...)) {
			t.Errorf("the walk's last 100 = %v, want the changed ones %v then %v", tail, viaAdmin, viaSQL)
		}
		if walk[len(walk)-1].updated != chatTS(h.clock.Now()) {
			t.Errorf("last updated_at = %s, want %s", walk[len(walk)-1].updated, chatTS(h.clock.Now()))
		}
	})
}

func parseTS(t *testing.T, s string) time.Time {
	t.Helper()
	ts, err := time.Parse(time.RFC3339Nano, s)
	if err != nil {
		t.Fatal(err)
	}
	return ts
}

// cursorB64 encodes a raw cursor document, for tampering tests.
func cursorB64(doc string) string { return base64.RawURLEncoding.EncodeToString([]byte(doc)) }

// TestChatCursorPaging walks the chat fixture's eight conversations with
// cursors in every way a client can: every page size, both directions, a
// cursor alone, a switch from offset paging, and with filters.
func TestChatCursorPaging(t *testing.T) {
	dbtest.Engines(t, func(t *testing.T, store *db.DB) {
		h := chatHarness(t, store)
		// Two more conversations at c7's updated_at exercise the session_id
		// tie-break inside the walk.
		acmeID := h.ids["acme"].Account.ID
		c7 := h.acme().Conversations["c7"]
		for _, n := range []string{"699000001", "699000002"} {
			if _, err := store.Exec(t.Context(), `INSERT INTO conversations (account_id, customer_phone_number, phone_national, status, direction,
				created_at, updated_at) SELECT account_id, ?, ?, 'new', 'outbound', created_at, updated_at FROM conversations WHERE id = ?`,
				"+34"+n, n, c7); err != nil {
				t.Fatal(err)
			}
		}

		// The reference: the contract's own updated_at order, in one page.
		refRes := h.do("GET", chatPath+"?sort_by=updated_at&limit=50&include_messages=false", acmeKey, nil).must(t, 200)
		if v, ok := refRes.Body["next_cursor"]; !ok || v != nil {
			t.Fatalf("a single complete page: next_cursor = %v (present %v), want null", v, ok)
		}
		var ref []int64
		updated, direction := map[int64]string{}, map[int64]string{}
		for _, it := range refRes.list("data") {
			m := it.(map[string]any)
			id := int64(m["session_id"].(float64))
			ref = append(ref, id)
			updated[id], direction[id] = m["updated_at"].(string), m["direction"].(string)
		}
		if len(ref) != 10 || h.count("conversations", "account_id = ?", acmeID) != 10 {
			t.Fatalf("reference has %d conversations, want 10", len(ref))
		}
		reversed := slices.Clone(ref)
		slices.Reverse(reversed)

		base := url.Values{"include_messages": {"false"}}
		with := func(kv ...string) url.Values {
			q := cloneValues(base)
			for i := 0; i < len(kv); i += 2 {
				q.Set(kv[i], kv[i+1])
			}
			return q
		}
		for _, limit := range []string{"1", "3", "5", "9", "10"} {
			t.Run("ascending by "+limit, func(t *testing.T) {
				if got := itemIDs(cursorWalk(t, h, acmeKey, with("sort_by", "updated_at", "limit", limit), nil)); !slices.Equal(got, ref) {
					t.Errorf("walk = %v, want %v", got, ref)
				}
			})
			t.Run("descending by "+limit, func(t *testing.T) {
				if got := itemIDs(cursorWalk(t, h, acmeKey, with("sort_by", "-updated_at", "limit", limit), nil)); !slices.Equal(got, reversed) {
					t.Errorf("walk = %v, want %v", got, reversed)
				}
			})
		}

		// A cursor alone keeps its own order and the default limit.
		_, asc, _ := cursorPage(t, h, acmeKey, with("sort_by", "updated_at", "limit", "3"))
		items, _, res := cursorPage(t, h, acmeKey, url.Values{"cursor": {asc}})
		if !slices.Equal(itemIDs(items), ref[3:]) || res.num("limit") != 20 || res.num("offset") != 0 || res.num("count") != 10 {
			t.Errorf("cursor alone = %v (limit %v, offset %v, count %v), want %v", itemIDs(items), res.num("limit"), res.num("offset"), res.num("count"), ref[3:])
		}
		_, desc, _ := cursorPage(t, h, acmeKey, with("sort_by", "-updated_at", "limit", "4"))
		items, _, _ = cursorPage(t, h, acmeKey, url.Values{"cursor": {desc}, "limit": {"2"}})
		if !slices.Equal(itemIDs(items), reversed[4:6]) {
			t.Errorf("descending cursor alone = %v, want %v", itemIDs(items), reversed[4:6])
		}
		// The same cursor with its sort_by and offset=0 spelled out.
		items, _, _ = cursorPage(t, h, acmeKey, with("cursor", asc, "sort_by", "updated_at", "offset", "0", "limit", "2"))
		if !slices.Equal(itemIDs(items), ref[3:5]) {
			t.Errorf("cursor with sort_by and offset 0 = %v, want %v", itemIDs(items), ref[3:5])
		}

		// Offset pages in the updated_at order carry a cursor too, so a
		// client can switch to cursors mid-way.
		items, next, _ := cursorPage(t, h, acmeKey, with("sort_by", "updated_at", "limit", "3", "offset", "3"))
		if !slices.Equal(itemIDs(items), ref[3:6]) || next == "" {
			t.Fatalf("offset page = %v, next %q", itemIDs(items), next)
		}
		q := with("sort_by", "updated_at", "limit", "50")
		q.Set("cursor", next)
		if items, next, _ := cursorPage(t, h, acmeKey, q); !slices.Equal(itemIDs(items), ref[6:]) || next != "" {
			t.Errorf("after the offset page = %v (next %q), want %v and null", itemIDs(items), next, ref[6:])
		}
		// An offset past the end: empty, null.
		if items, next, _ := cursorPage(t, h, acmeKey, with("sort_by", "updated_at", "offset", "10")); len(items) != 0 || next != "" {
			t.Errorf("past the end: %v, next %q", items, next)
		}

		// updated_after and cursor together: both apply; count is every
		// match of the filters, whatever the cursor.
		watermark := updated[ref[4]]
		var want []int64
		for _, id := range ref {
			if updated[id] >= watermark {
				want = append(want, id)
			}
		}
		got := cursorWalk(t, h, acmeKey, with("sort_by", "updated_at", "limit", "2", "updated_after", watermark), func(page int, _ []cursorItem, res response) {
			if int(res.num("count")) != len(want) {
				t.Errorf("page %d: count %v, want %d", page, res.num("count"), len(want))
			}
		})
		if !slices.Equal(itemIDs(got), want) {
			t.Errorf("updated_after walk = %v, want %v", itemIDs(got), want)
		}
		// Any other filter too.
		want = nil
		for _, id := range ref {
			if direction[id] == "outbound" {
				want = append(want, id)
			}
		}
		if got := itemIDs(cursorWalk(t, h, acmeKey, with("sort_by", "updated_at", "limit", "1", "direction", "outbound"), nil)); !slices.Equal(got, want) || len(want) < 3 {
			t.Errorf("outbound walk = %v, want %v", got, want)
		}

		// Transcripts come with cursor pages exactly as with offsets.
		full := h.do("GET", chatPath+"?sort_by=updated_at&limit=2&max_messages_per_session=2&cursor="+url.QueryEscape(asc), acmeKey, nil).must(t, 200)
		if len(full.list("data", 0, "messages")) == 0 && full.num("data", 0, "message_count") > 0 {
			t.Errorf("no transcript on a cursor page: %s", truncate(full.Raw, 300))
		}

		// Other orders carry no next_cursor key: the contract's response,
		// untouched.
		for _, qs := range []string{"", "sort_by=created_at", "sort_by=-created_at&limit=2", "sort_by=last_message_at", "sort_by=-client_name"} {
			res := h.do("GET", chatPath+"?"+qs, acmeKey, nil).must(t, 200)
			var keys []string
			for k := range res.Body {
				keys = append(keys, k)
			}
			slices.Sort(keys)
			if !slices.Equal(keys, []string{"count", "data", "limit", "offset", "status"}) {
				t.Errorf("?%s: keys %v", qs, keys)
			}
		}

		// Tenancy: acme's cursor read with the other tenant's key shows the
		// other tenant's conversations (positions are just numbers), never
		// acme's.
		items, _, _ = cursorPage(t, h, otherKey, url.Values{"cursor": {cursorB64(`{"o":"updated_at","u":0,"s":1}`)}})
		if len(items) != 1 || items[0].id != h.other().Conversations["c1"] {
			t.Errorf("other tenant's walk = %v", items)
		}
		items, _, _ = cursorPage(t, h, otherKey, url.Values{"cursor": {asc}})
		for _, it := range items {
			if slices.Contains(ref, it.id) {
				t.Errorf("the other tenant sees acme's session %d", it.id)
			}
		}
	})
}

// TestChatCursorValidation: a cursor this endpoint did not issue, or one
// combined with an offset or another order, is a 422 (all problems
// together); an empty cursor is no cursor.
func TestChatCursorValidation(t *testing.T) {
	dbtest.Engines(t, func(t *testing.T, store *db.DB) {
		h := chatHarness(t, store)
		_, asc, _ := cursorPage(t, h, acmeKey, url.Values{"sort_by": {"updated_at"}, "limit": {"2"}})
		_, desc, _ := cursorPage(t, h, acmeKey, url.Values{"sort_by": {"-updated_at"}, "limit": {"2"}})
		if asc == "" || desc == "" || asc == desc {
			t.Fatalf("cursors %q, %q", asc, desc)
		}
		type item struct {
			typ string
			loc []any
		}
		bad := item{"value_error", []any{"query", "cursor"}}
		cases := []struct {
			name string
			q    url.Values
			want []item
		}{
			{"not base64", url.Values{"cursor": {"!!not a cursor!!"}}, []item{bad}},
			{"base64 of text", url.Values{"cursor": {cursorB64("hello")}}, []item{bad}},
			{"JSON, not a cursor", url.Values{"cursor": {cursorB64(`[1,2]`)}}, []item{bad}},
			{"unknown key", url.Values{"cursor": {cursorB64(`{"o":"updated_at","u":1,"s":1,"x":1}`)}}, []item{bad}},
			{"missing session", url.Values{"cursor": {cursorB64(`{"o":"updated_at","u":1}`)}}, []item{bad}},
			{"session 0", url.Values{"cursor": {cursorB64(`{"o":"updated_at","u":1,"s":0}`)}}, []item{bad}},
			{"another order inside", url.Values{"cursor": {cursorB64(`{"o":"created_at","u":1,"s":1}`)}}, []item{bad}},
			{"trailing data", url.Values{"cursor": {cursorB64(`{"o":"updated_at","u":1,"s":1}{}`)}}, []item{bad}},
			{"with an offset", url.Values{"cursor": {asc}, "offset": {"2"}}, []item{{"less_than_equal", []any{"query", "offset"}}}},
			{"with another sort", url.Values{"cursor": {asc}, "sort_by": {"created_at"}}, []item{{"literal_error", []any{"query", "sort_by"}}}},
			{"ascending cursor, descending sort", url.Values{"cursor": {asc}, "sort_by": {"-updated_at"}}, []item{{"literal_error", []any{"query", "sort_by"}}}},
			{"descending cursor, ascending sort", url.Values{"cursor": {desc}, "sort_by": {"updated_at"}}, []item{{"literal_error", []any{"query", "sort_by"}}}},
			{"everything at once", url.Values{"cursor": {asc}, "sort_by": {"client_name"}, "offset": {"1"}, "limit": {"0"}},
				[]item{{"less_than_equal", []any{"query", "offset"}}, {"literal_error", []any{"query", "sort_by"}}, {"greater_than_equal", []any{"query", "limit"}}}},
			{"bad cursor and bad limit", url.Values{"cursor": {"x"}, "limit": {"99"}},
				[]item{bad, {"less_than_equal", []any{"query", "limit"}}}},
		}
		for _, tc := range cases {
			t.Run(tc.name, func(t *testing.T) {
				res := h.do("GET", chatPath+"?"+tc.q.Encode(), acmeKey, nil).must(t, 422)
				if n := len(res.list("detail")); n != len(tc.want) {
					t.Errorf("%d problems, want %d: %s", n, len(tc.want), res.Raw)
				}
				for _, w := range tc.want {
					if !has422(res, w.typ, w.loc...) {
						t.Errorf("no %s at %v: %s", w.typ, w.loc, res.Raw)
					}
				}
			})
		}
		// A padded cursor (re-encoded by a client) is the same cursor.
		padded := asc + map[int]string{0: "", 2: "==", 3: "="}[len(asc)%4]
		a, _, _ := cursorPage(t, h, acmeKey, url.Values{"cursor": {asc}})
		b, _, _ := cursorPage(t, h, acmeKey, url.Values{"cursor": {padded}})
		if !slices.Equal(itemIDs(a), itemIDs(b)) || len(a) == 0 {
			t.Errorf("padded cursor: %v, want %v", itemIDs(b), itemIDs(a))
		}
		// cursor= (empty) is no cursor: the contract's default listing.
		plain := h.do("GET", chatPath, acmeKey, nil).must(t, 200)
		empty := h.do("GET", chatPath+"?cursor=", acmeKey, nil).must(t, 200)
		if string(plain.Raw) != string(empty.Raw) {
			t.Errorf("cursor= changed the response:\n%s\n%s", truncate(plain.Raw, 300), truncate(empty.Raw, 300))
		}
	})
}
