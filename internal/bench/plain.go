package bench

import (
	"context"
	"crypto/sha256"
	"database/sql"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"io"
	"net"
	"net/http"
	"reflect"
	"sync"
	"time"

	"github.com/frontdesk/frontdesk/internal/db"
)

// The baselines of the services comparison, started in process on loopback
// ports of their own: (a) hello world, and (b) what a hand-written net/http
// handler would do for GET /calendar/services with no framework — hash the
// bearer key with SHA-256, read its api_keys row (with the account), run one
// indexed query for the active services with their active professionals
// and event types, encode the same JSON. No request id, access log, metrics
// or panic recovery. Variant (b') keeps each key for one second, as
// Frontdesk's authenticator does, so the comparison can be made like for
// like as well as against the strictest baseline.

const plainKeyQuery = `SELECT a.id, k.expires_at, k.revoked_at FROM api_keys k JOIN accounts a ON a.id = k.account_id WHERE k.hash = ?`

// plainServicesQuery returns one row per service (kind 0), per active
// professional of a service (kind 1) and per active event type (kind 2),
// ordered as Frontdesk orders them.
const plainServicesQuery = `
SELECT s.id, s.name, s.default_duration_minutes, 0, 0, '' FROM services s WHERE s.account_id = ? AND s.active
UNION ALL
SELECT s.id, s.name, s.default_duration_minutes, 1, p.id, p.name FROM services s
	JOIN service_professionals sp ON sp.account_id = s.account_id AND sp.service_id = s.id
	JOIN professionals p ON p.account_id = sp.account_id AND p.id = sp.professional_id AND p.active
	WHERE s.account_id = ? AND s.active
UNION ALL
SELECT s.id, s.name, s.default_duration_minutes, 2, e.id, e.name FROM services s
	JOIN service_event_types se ON se.account_id = s.account_id AND se.service_id = s.id
	JOIN event_types e ON e.account_id = se.account_id AND e.id = se.event_type_id AND e.active
	WHERE s.account_id = ? AND s.active
ORDER BY 1, 4, 5`

type plainRef struct {
	ID   int64  `json:"id"`
	Name string `json:"name"`
}

type plainService struct {
	ID                     int64      `json:"id"`
	Name                   string     `json:"name"`
	DefaultDurationMinutes int        `json:"default_duration_minutes"`
	Professionals          []plainRef `json:"professionals"`
	EventTypes             []plainRef `json:"event_types"`
}

type plainKey struct {
	account  int64
	expires  sql.NullInt64
	loadedAt time.Time
}

// plainHandler is baseline (b), or (b') with cache set.
type plainHandler struct {
	sql             *sql.DB
	keyQ, servicesQ string
	cache           bool
	mu              sync.Mutex
	keys            map[string]plainKey
}

func newPlainHandler(store *db.DB, cache bool) *plainHandler {
	d := store.Dialect()
	return &plainHandler{sql: store.SQL(), keyQ: d.Rebind(plainKeyQuery), servicesQ: d.Rebind(plainServicesQuery), cache: cache,
		keys: map[string]plainKey{}}
}

func (h *plainHandler) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	const prefix = "Bearer "
	auth := r.Header.Get("Authorization")
	if len(auth) <= len(prefix) || auth[:len(prefix)] != prefix {
		http.Error(w, `{"detail":"unauthorized"}`, http.StatusUnauthorized)
		return
	}
	sum := sha256.Sum256([]byte(auth[len(prefix):]))
	hash := hex.EncodeToString(sum[:])
	now := time.Now()
	var k plainKey
	ok := false
	if h.cache {
		h.mu.Lock()
		k, ok = h.keys[hash]
		h.mu.Unlock()
		ok = ok && now.Sub(k.loadedAt) < time.Second
	}
	if !ok {
		var revoked sql.NullInt64
		err := h.sql.QueryRowContext(r.Context(), h.keyQ, hash).Scan(&k.account, &k.expires, &revoked)
		if err == sql.ErrNoRows || (err == nil && revoked.Valid) {
			http.Error(w, `{"detail":"unauthorized"}`, http.StatusUnauthorized)
			return
		}
		if err != nil {
			http.Error(w, `{"detail":"internal"}`, http.StatusInternalServerError)
			return
		}
		k.loadedAt = now
		if h.cache {
			h.mu.Lock()
			h.keys[hash] = k
			h.mu.Unlock()
		}
	}
	if k.expires.Valid && now.UnixMicro() >= k.expires.Int64 {
		http.Error(w, `{"detail":"unauthorized"}`, http.StatusUnauthorized)
		return
	}
	rows, err := h.sql.QueryContext(r.Context(), h.servicesQ, k.account, k.account, k.account)
	if err != nil {
		http.Error(w, `{"detail":"internal"}`, http.StatusInternalServerError)
		return
	}
	defer rows.Close()
	out := []*plainService{}
	for rows.Next() {
		var (
			id, refID int64
			name, ref string
			dur, kind int
		)
		if err := rows.Scan(&id, &name, &dur, &kind, &refID, &ref); err != nil {
			http.Error(w, `{"detail":"internal"}`, http.StatusInternalServerError)
			return
		}
		switch kind {
		case 0:
			if dur <= 0 {
				dur = 30
			}
			out = append(out, &plainService{ID: id, Name: name, DefaultDurationMinutes: dur, Professionals: []plainRef{}, EventTypes: []plainRef{}})
		case 1:
			s := out[len(out)-1]
			s.Professionals = append(s.Professionals, plainRef{refID, ref})
		case 2:
			s := out[len(out)-1]
			s.EventTypes = append(s.EventTypes, plainRef{refID, ref})
		}
	}
	if rows.Err() != nil {
		http.Error(w, `{"detail":"internal"}`, http.StatusInternalServerError)
		return
	}
	data, _ := json.Marshal(map[string]any{"status": "success", "data": out})
	w.Header().Set("Content-Type", "application/json")
	w.Write(data)
}

// serveLoopback serves h on a free loopback port until ctx ends.
func serveLoopback(ctx context.Context, h http.Handler) (string, error) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return "", err
	}
	srv := &http.Server{Handler: h, ReadHeaderTimeout: 10 * time.Second}
	go srv.Serve(ln)
	go func() { <-ctx.Done(); srv.Close() }()
	return "http://" + ln.Addr().String(), nil
}

// compareServices drives GET /calendar/services on Frontdesk and on the
// baselines, each for cfg.Compare in two interleaved halves (so a change in
// the machine's load touches every target alike), and reports whether the
// plain handler answers the same data as Frontdesk.
func compareServices(ctx context.Context, g *generator, logf func(string, ...any)) ([]CompareStats, bool, error) {
	store, err := db.Open(ctx, g.cfg.DSN, db.Options{})
	if err != nil {
		return nil, false, fmt.Errorf("the server's database (--db): %w", err)
	}
	defer store.Close()
	sctx, stop := context.WithCancel(ctx)
	defer stop()
	hello, err := serveLoopback(sctx, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { io.WriteString(w, "hello world") }))
	if err != nil {
		return nil, false, err
	}
	plain, err := serveLoopback(sctx, newPlainHandler(store, false))
	if err != nil {
		return nil, false, err
	}
	cached, err := serveLoopback(sctx, newPlainHandler(store, true))
	if err != nil {
		return nil, false, err
	}
	const path = public + "/calendar/services"
	var fdBody, plainBody map[string]any
	if err := g.getJSON(ctx, g.cfg.BaseURL, path, &fdBody); err != nil {
		return nil, false, err
	}
	if err := g.getJSON(ctx, plain, path, &plainBody); err != nil {
		return nil, false, fmt.Errorf("plain handler: %w", err)
	}
	match := reflect.DeepEqual(fdBody["data"], plainBody["data"])
	if !match {
		logf("warning: the plain handler's data differs from Frontdesk's:\n%v\n%v", fdBody["data"], plainBody["data"])
	}

	targets := []struct{ name, base, path, key string }{
		{"Frontdesk (`frontdesk serve`)", g.cfg.BaseURL, path, g.cfg.Key},
		{"(a) hello-world net/http handler", hello, "/", ""},
		{"(b) plain net/http: key lookup + services query per request", plain, path, g.cfg.Key},
		{"(b′) plain net/http, key kept 1 s (as Frontdesk)", cached, path, g.cfg.Key},
	}
	times := make([][]time.Duration, len(targets))
	errors := make([]int, len(targets))
	elapsed := make([]time.Duration, len(targets))
	half := g.cfg.Compare / 2
	for pass := 0; pass < 2; pass++ {
		for i, t := range targets {
			start := time.Now()
			d, e := drive(ctx, g, half, t.base, t.path, t.key)
			elapsed[i] += time.Since(start)
			times[i] = append(times[i], d...)
			errors[i] += e
			logf("  %s: %.0f requests/s", t.name, float64(len(d))/half.Seconds())
		}
	}
	out := make([]CompareStats, len(targets))
	for i, t := range targets {
		out[i] = CompareStats{Name: t.name, Count: len(times[i]), Errors: errors[i], PerSecond: float64(len(times[i])) / elapsed[i].Seconds(),
			P50: percentile(times[i], 0.5), P99: percentile(times[i], 0.99)}
	}
	return out, match, nil
}

// drive sends GET requests from g.cfg.Concurrency clients for d and returns
// their durations and the number of failures (not 200).
func drive(ctx context.Context, g *generator, d time.Duration, base, path, key string) ([]time.Duration, int) {
	runCtx, cancel := context.WithTimeout(ctx, d)
	defer cancel()
	var (
		mu     sync.Mutex
		all    []time.Duration
		errors int
		wg     sync.WaitGroup
	)
	for w := 0; w < g.cfg.Concurrency; w++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			var mine []time.Duration
			bad := 0
			for runCtx.Err() == nil {
				status, took := g.send(context.WithoutCancel(runCtx), base, "GET", path, key, nil)
				mine = append(mine, took)
				if status != 200 {
					bad++
				}
			}
			mu.Lock()
			all = append(all, mine...)
			errors += bad
			mu.Unlock()
		}()
	}
	wg.Wait()
	return all, errors
}
