// How the tenant isolation property (isolation_test.go) is checked: B's
// objects, one case's request and answers, snapshots of B's rows and the
// routes routes.go serves.

package httpapi_test

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"regexp"
	"slices"
	"sort"
	"strings"
	"testing"
	"time"

	"github.com/frontdesk/frontdesk/internal/db"
	"github.com/frontdesk/frontdesk/internal/workspace"
)

// isoMarkers are strings that exist only in account B's data. None may
// appear in a response to A, unless A's own request carried it.
var isoMarkers = []string{"othermark", "dr. jones", "bob smith", "bob@other.test", "other clinic", "9a0d7c52-5a52-4c1e-9a57-6f4a0f1f3a99", "europe/london"}

// giveOtherOneOfEverything gives B one object of every kind, all through
// B's own key, and returns the ids of its waiting-list entry and of the
// clients the entry and the ingest created.
func giveOtherOneOfEverything(t *testing.T, h *harness, b workspace.IDs, bAcct int64) (int64, int64, int64) {
	bEntry := h.do("POST", isoPub+"/calendar/waitlist/entries", otherKey, map[string]any{"phone": "+447700900111",
		"first_name": "Otto", "last_name": "Othermark", "service_ids": []any{b.Services["cleaning"]}, "notes": "othermark notes"}).must(t, 200)
	bEntryID := int64(bEntry.num("data", "entries", 0, "id"))
	bOtto := int64(bEntry.num("data", "client_id"))
	bIngest := h.do("POST", isoPub+"/leadflow/ingest/"+b.InputNodes["sales/web"]+"/batch", otherKey, map[string]any{"clients": []any{
		map[string]any{"phone_number": "+447700900222", "first_name": "Olga", "last_name": "Othermark", "email": "olga@b-tenant.test",
			"company": "Othermark Ltd", "data": map[string]any{"secret": "othermark"}, "tags": []any{map[string]any{"name": "othermark-tag"}}},
	}}).must(t, 200)
	bOlga := int64(bIngest.num("results", 0, "client_id"))
	h.do("POST", isoPub+"/calendar/events", otherKey, map[string]any{
		"client":     map[string]any{"phone": "+447700900333", "first_name": "Oscar", "last_name": "Othermark"},
		"service_id": b.Services["cleaning"], "professional_id": b.Professionals["jones"], "event_type_id": b.EventTypes["visit"],
		"start_at": "2026-11-30T10:00:00", "end_at": "2026-11-30T10:30:00", "timezone": "Europe/London", "notes": "othermark"}).must(t, 200)
	waitKeyTouched(t, h, bAcct)
	return bEntryID, bOtto, bOlga
}

// runIsoCase sends c's request with A's key and checks the answer: its
// status and error code, no trace of B's data, c's own check and, when
// c names one of B's ids, the same answer for an id that exists nowhere.
func runIsoCase(t *testing.T, h *harness, served []string, c isoCase) {
	if !slices.Contains(served, c.route) {
		t.Skipf("routes.go does not serve %s", c.route)
	}
	key := acmeKey
	if c.noKey {
		key = ""
	}
	arg := c.foreign
	path, body := c.build(arg)
	method, _, _ := strings.Cut(c.route, " ")
	res := h.do(method, path, key, body)
	if res.Status >= 500 {
		t.Fatalf("%s %s -> %d: %s", method, path, res.Status, res.Raw)
	}
	if c.status != 0 && res.Status != c.status {
		t.Errorf("%s %s -> %d, want %d: %s", method, path, res.Status, c.status, res.Raw)
	}
	if c.code != "" && res.errorCode() != c.code {
		t.Errorf("error_code %q, want %q: %s", res.errorCode(), c.code, res.Raw)
	}
	sent, _ := json.Marshal(body)
	request := strings.ToLower(path + string(sent))
	for _, m := range isoMarkers {
		if !strings.Contains(request, m) && strings.Contains(strings.ToLower(string(res.Raw)), m) {
			t.Errorf("the response shows B's %q: %s", m, res.Raw)
		}
	}
	if c.check != nil && !t.Failed() {
		c.check(t, res)
	}
	if c.foreign != "" {
		gpath, gbody := c.build(c.ghost)
		g := h.do(method, gpath, key, gbody)
		norm := func(r response) string {
			s := string(r.Raw)
			for _, x := range []string{c.foreign, c.ghost} {
				s = regexp.MustCompile(`\b`+regexp.QuoteMeta(x)+`\b`).ReplaceAllString(s, "<ID>")
			}
			return s
		}
		if g.Status != res.Status || g.errorCode() != res.errorCode() || norm(g) != norm(res) {
			t.Errorf("B's id answers differently from a missing one:\n B's: %d %s\n ghost: %d %s", res.Status, res.Raw, g.Status, g.Raw)
		}
	}
}

// notIn fails t when got holds one of the forbidden ids.
func notIn(t *testing.T, what string, got []any, forbidden ...int64) {
	t.Helper()
	for _, g := range got {
		f, _ := g.(float64)
		if slices.Contains(forbidden, int64(f)) {
			t.Errorf("%s lists B's id %v", what, g)
		}
	}
}

// pluck returns the value at key of each object of items.
func pluck(items []any, key string) []any {
	var out []any
	for _, it := range items {
		if m, ok := it.(map[string]any); ok {
			out = append(out, m[key])
		}
	}
	return out
}

// rowStatus is the status of a batch answer's first row.
func rowStatus(res response) string { return res.str("data", "rows", 0, "status") }

// publicRoutes parses routes.go for the public routes it serves, as
// "METHOD /path" with the public prefix left out.
func publicRoutes(t *testing.T) []string {
	t.Helper()
	src, err := os.ReadFile("routes.go")
	if err != nil {
		t.Fatal(err)
	}
	re := regexp.MustCompile(`\.(?:handle|Handle)\("([A-Z]+) "\s*\+\s*p\s*\+\s*"([^"]*)"`)
	var out []string
	for _, m := range re.FindAllStringSubmatch(string(src), -1) {
		out = append(out, m[1]+" "+m[2])
	}
	if len(out) < 20 {
		t.Fatalf("found only %d public routes in routes.go: has its shape changed?", len(out))
	}
	return out
}

// waitKeyTouched waits for the key's background last_used_at write, so the
// snapshot does not race it.
func waitKeyTouched(t *testing.T, h *harness, accountID int64) {
	t.Helper()
	for i := 0; i < 200; i++ {
		if h.count("api_keys", "account_id = ? AND last_used_at IS NOT NULL", accountID) > 0 {
			return
		}
		time.Sleep(10 * time.Millisecond)
	}
	t.Fatal("the key's last use was never recorded")
}

// snapshotAccount reads every row an account owns, table by table (every
// table with an account_id column, found in the catalog so new tables are
// covered, plus the account itself and its jobs' attempts), each row as one
// sorted string.
func snapshotAccount(t *testing.T, store *db.DB, accountID int64) map[string][]string {
	t.Helper()
	ctx := context.Background()
	q := `SELECT table_name FROM information_schema.columns WHERE table_schema = current_schema() AND column_name = 'account_id'`
	if store.Engine() == db.SQLite {
		q = `SELECT m.name FROM sqlite_master m, pragma_table_info(m.name) p WHERE m.type = 'table' AND p.name = 'account_id'`
	}
	rows, err := store.Query(ctx, q)
	if err != nil {
		t.Fatal(err)
	}
	var tables []string
	for rows.Next() {
		var name string
		if err := rows.Scan(&name); err != nil {
			t.Fatal(err)
		}
		tables = append(tables, name)
	}
	rows.Close()
	for _, want := range []string{"clients", "cards", "waitlist_entries", "appointments", "conversations", "messages", "outbox", "jobs", "api_keys"} {
		if !slices.Contains(tables, want) {
			t.Fatalf("the catalog query missed table %s (found %v)", want, tables)
		}
	}
	snap := map[string][]string{}
	read := func(name, query string) {
		rows, err := store.Query(ctx, query, accountID)
		if err != nil {
			t.Fatalf("snapshot %s: %v", name, err)
		}
		defer rows.Close()
		cols, _ := rows.Columns()
		for rows.Next() {
			vals := make([]any, len(cols))
			ptrs := make([]any, len(cols))
			for i := range vals {
				ptrs[i] = &vals[i]
			}
			if err := rows.Scan(ptrs...); err != nil {
				t.Fatal(err)
			}
			var b strings.Builder
			for i, v := range vals {
				if bs, ok := v.([]byte); ok {
					v = string(bs)
				}
				fmt.Fprintf(&b, "%s=%v|", cols[i], v)
			}
			snap[name] = append(snap[name], b.String())
		}
		if err := rows.Err(); err != nil {
			t.Fatal(err)
		}
		sort.Strings(snap[name])
	}
	for _, table := range tables {
		read(table, `SELECT * FROM `+table+` WHERE account_id = ?`)
	}
	read("accounts", `SELECT * FROM accounts WHERE id = ?`)
	read("job_attempts", `SELECT * FROM job_attempts WHERE job_id IN (SELECT id FROM jobs WHERE account_id = ?)`)
	return snap
}

// assertSameRows reports every table whose rows changed.
func assertSameRows(t *testing.T, before, after map[string][]string) {
	t.Helper()
	for table, rows := range after {
		if !slices.Equal(before[table], rows) {
			t.Errorf("B's %s changed:\n before: %v\n after:  %v", table, before[table], rows)
		}
	}
	for table := range before {
		if _, ok := after[table]; !ok {
			t.Errorf("B's %s vanished", table)
		}
	}
}
