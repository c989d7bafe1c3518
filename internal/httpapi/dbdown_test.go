package httpapi_test

import (
	"context"
	"flag"
	"fmt"
	"io"
	"math/rand/v2"
	"net"
	"net/url"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/frontdesk/frontdesk/internal/db"
	"github.com/frontdesk/frontdesk/internal/db/dbtest"
)

var faultTrials = flag.Int("fault-trials", 1, "cut/restore cycles of TestDatabaseGoesAway (the long version uses 50)")

// cutProxy is a TCP proxy between the server and PostgreSQL that the test
// can cut (every open connection closed, new ones refused) and restore,
// without touching the machine's database.
type cutProxy struct {
	ln     net.Listener
	target string

	mu    sync.Mutex
	down  bool
	conns map[net.Conn]bool
}

func newCutProxy(t *testing.T, target string) *cutProxy {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	p := &cutProxy{ln: ln, target: target, conns: map[net.Conn]bool{}}
	t.Cleanup(func() { ln.Close(); p.cut() })
	go p.serve()
	return p
}

func (p *cutProxy) serve() {
	for {
		c, err := p.ln.Accept()
		if err != nil {
			return
		}
		go p.pipe(c)
	}
}

func (p *cutProxy) pipe(c net.Conn) {
	p.mu.Lock()
	down := p.down
	p.mu.Unlock()
	if down {
		c.Close() // refused: the client sees the connection drop at once
		return
	}
	up, err := net.Dial("tcp", p.target)
	if err != nil {
		c.Close()
		return
	}
	p.mu.Lock()
	if p.down {
		p.mu.Unlock()
		c.Close()
		up.Close()
		return
	}
	p.conns[c], p.conns[up] = true, true
	p.mu.Unlock()
	done := func() {
		c.Close()
		up.Close()
		p.mu.Lock()
		delete(p.conns, c)
		delete(p.conns, up)
		p.mu.Unlock()
	}
	go func() { io.Copy(up, c); done() }()
	io.Copy(c, up)
	done()
}

// cut closes every connection and refuses new ones until restore.
func (p *cutProxy) cut() {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.down = true
	for c := range p.conns {
		c.Close()
	}
	clear(p.conns)
}

func (p *cutProxy) restore() {
	p.mu.Lock()
	p.down = false
	p.mu.Unlock()
}

// The database going away (PostgreSQL only: its connections cut by a proxy
// of the test's, the machine's server untouched): every request answers the
// contract's clean 500 INTERNAL_ERROR envelope with nothing internal in it,
// GET /readyz answers 503, a batch cut mid-request is wholly written or not
// at all, and once the connections come back the same server (no restart)
// answers 200 again. -fault-trials sets the cut/restore cycles.
func TestDatabaseGoesAway(t *testing.T) {
	dsn := dbtest.DSN(t, db.Postgres)
	ctx := context.Background()
	direct, err := db.Open(ctx, dsn, db.Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer direct.Close()
	if err := direct.Migrate(ctx, nil); err != nil {
		t.Fatal(err)
	}
	u, err := url.Parse(dsn)
	if err != nil {
		t.Fatal(err)
	}
	target := u.Host
	if u.Port() == "" {
		target = net.JoinHostPort(u.Hostname(), "5432")
	}
	proxy := newCutProxy(t, target)
	u.Host = proxy.ln.Addr().String()
	store, err := db.Open(ctx, u.String(), db.Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer store.Close()
	h := newHarness(t, store)
	a := h.acme()

	const (
		internalMsg = "Internal server error. The request may be retried."
		outage      = 1100 * time.Millisecond
	)
	leaks := []string{"pgx", "postgres", "sql", "dial", "eof", "conn", "127.0.0.1", proxy.ln.Addr().String(), "search_path", "fdtest_", "goroutine", ".go:"}
	requests := []struct {
		method, path string
		body         any
	}{
		{"GET", isoPub + "/calendar/services", nil},
		{"GET", isoPub + "/calendar/availability?days=7", nil},
		{"POST", isoPub + "/calendar/events", map[string]any{"client": map[string]any{"phone": "+34611008001", "first_name": "Ida"},
			"service_id": a.Services["cleaning"], "professional_id": a.Professionals["lopez"], "event_type_id": a.EventTypes["visit"],
			"start_at": "2026-12-01T10:00:00", "end_at": "2026-12-01T10:30:00", "timezone": "Europe/Madrid"}},
		{"POST", isoPub + "/calendar/waitlist/entries", map[string]any{"phone": "+34611008002", "service_ids": []any{a.Services["cleaning"]}}},
		{"POST", isoPub + "/calendar/waitlist/entries/batch", map[string]any{"waitlist_id": a.Waitlists["main"],
			"entries": []any{map[string]any{"phone": "+34611008003", "service_ids": []any{a.Services["cleaning"]}}}}},
		{"GET", isoPub + "/calendar/waitlist/summary", nil},
		{"GET", isoPub + "/leadflow/pipelines", nil},
		{"POST", isoPub + "/leadflow/ingest/" + a.InputNodes["sales/web"] + "/batch", map[string]any{"clients": []any{map[string]any{"phone_number": "+34611008004"}}}},
		{"GET", isoPub + "/chat/conversations", nil},
	}
	// check500 asserts the clean envelope and nothing internal in it.
	check500 := func(t *testing.T, what string, res response) {
		t.Helper()
		if res.Status != 500 || res.errorCode() != "INTERNAL_ERROR" || res.str("status") != "error" || res.str("message") != internalMsg ||
			res.get("details") != nil {
			t.Errorf("%s with the database gone: %d %s", what, res.Status, res.Raw)
		}
		for _, l := range leaks {
			if strings.Contains(strings.ToLower(string(res.Raw)), strings.ToLower(l)) {
				t.Errorf("%s: the 500 shows %q: %s", what, l, res.Raw)
			}
		}
	}
	ready := func() response { return h.do("GET", "/readyz", "", nil) }
	h.do("GET", isoPub+"/calendar/services", acmeKey, nil).must(t, 200)
	ready().must(t, 200)

	// How long does a 500-row batch take here? The mid-request cuts land
	// anywhere in that span.
	batchOf := func(set int) map[string]any {
		rows := make([]any, 500)
		for i := range rows {
			rows[i] = map[string]any{"phone_number": fmt.Sprintf("+34619%02d%04d", set, i), "first_name": "Cut", "tags": []any{map[string]any{"name": "cut"}}}
		}
		return map[string]any{"clients": rows}
	}
	start := time.Now()
	h.do("POST", isoPub+"/leadflow/ingest/"+a.InputNodes["sales/web"]+"/batch", acmeKey, batchOf(99)).must(t, 200)
	span := time.Since(start) * 5 / 4

	outcomes := map[bool]int{}
	defer func() {
		t.Logf("batches (≈ %v) cut mid-request: %d committed first, %d refused with the clean 500", span*4/5, outcomes[true], outcomes[false])
	}()
	for trial := 0; trial < *faultTrials; trial++ {
		// The connections drop while nothing runs.
		proxy.cut()
		cutAt := time.Now()
		// Half the requests authenticate from the key cache, half must read
		// the key from the (gone) database.
		for i, r := range requests {
			if i%2 == 0 {
				h.clock.Advance(2 * time.Second)
			}
			start := time.Now()
			res := h.do(r.method, r.path, acmeKey, r.body)
			check500(t, fmt.Sprintf("trial %d: %s %s", trial, r.method, r.path), res)
			if took := time.Since(start); took > 5*time.Second {
				t.Errorf("trial %d: %s %s took %v to fail", trial, r.method, r.path, took)
			}
		}
		if res := ready(); res.Status != 503 || res.str("status") != "unavailable" {
			t.Errorf("trial %d: readyz with the database gone: %d %s", trial, res.Status, res.Raw)
		}
		h.do("GET", "/healthz", "", nil).must(t, 200) // the process itself is fine

		// They come back: the same server recovers without a restart. The
		// outage lasts over a second, as real ones do: the pool checks a
		// connection idle for over a second before reusing it (pgx), so a
		// blip shorter than that can still fail one request per pooled
		// connection it broke, with the retryable 500.
		time.Sleep(time.Until(cutAt.Add(outage)))
		proxy.restore()
		deadline := time.Now().Add(5 * time.Second)
		for ready().Status != 200 {
			if time.Now().After(deadline) {
				t.Fatalf("trial %d: readyz still failing 5 s after the database came back", trial)
			}
			time.Sleep(20 * time.Millisecond)
		}
		for _, r := range requests {
			if !strings.HasPrefix(r.method, "GET") {
				continue
			}
			if res := h.do(r.method, r.path, acmeKey, r.body); res.Status != 200 {
				t.Errorf("trial %d: %s %s after the database came back: %d %s", trial, r.method, r.path, res.Status, res.Raw)
			}
		}

		// The connections drop in the middle of a 500-row batch: it answers
		// 200 (committed first) or the clean 500, and is all or nothing.
		batch := batchOf(trial % 99)
		done := make(chan response, 1)
		go func() {
			done <- h.do("POST", isoPub+"/leadflow/ingest/"+a.InputNodes["sales/web"]+"/batch", acmeKey, batch)
		}()
		time.Sleep(time.Duration(rand.Int64N(int64(span) + 1)))
		proxy.cut()
		cutAt = time.Now()
		res := <-done
		time.Sleep(time.Until(cutAt.Add(outage)))
		proxy.restore()
		if res.Status != 200 {
			check500(t, fmt.Sprintf("trial %d: batch cut mid-request", trial), res)
		}
		var clients, cards int
		prefix := fmt.Sprintf("619%02d%%", trial%99)
		direct.QueryRow(ctx, `SELECT COUNT(*) FROM clients WHERE phone_national LIKE ?`, prefix).Scan(&clients)
		direct.QueryRow(ctx, `SELECT COUNT(*) FROM cards k JOIN clients c ON c.account_id = k.account_id AND c.id = k.client_id WHERE c.phone_national LIKE ?`, prefix).Scan(&cards)
		// A 500 may still have committed: when the connection drops after
		// COMMIT was sent and before its acknowledgement came back, no
		// server can know (the client's re-send below converges). A 200
		// that did not commit, or half a batch, is a failure.
		if (res.Status == 200 && clients != 500) || clients != cards || (clients != 0 && clients != 500) {
			t.Errorf("trial %d: the batch answered %d and left %d clients, %d cards", trial, res.Status, clients, cards)
		}
		outcomes[res.Status == 200]++
		// Re-sending converges on the recovered server.
		h.do("POST", isoPub+"/leadflow/ingest/"+a.InputNodes["sales/web"]+"/batch", acmeKey, batch).must(t, 200)
		direct.QueryRow(ctx, `SELECT COUNT(*) FROM clients WHERE phone_national LIKE ?`, prefix).Scan(&clients)
		if clients != 500 {
			t.Errorf("trial %d: %d clients after the re-send", trial, clients)
		}
		if t.Failed() {
			return
		}
	}
}
