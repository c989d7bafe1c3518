package bench

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"math/rand/v2"
	"net/http"
	"os"
	"slices"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"
)

// LoadConfig is one load run against a running `frontdesk serve`.
type LoadConfig struct {
	// BaseURL is the server, e.g. http://127.0.0.1:8080.
	BaseURL string
	// Key, Node and WaitlistID name the API key, the API input node the
	// ingest batches go to, and the waiting list of the waiting-list
	// batches (the demo workspace's by default in the command).
	Key, Node  string
	WaitlistID int64
	// Duration of the mixed run; Concurrency is the number of clients, each
	// sending its next request when the previous one has answered.
	Duration    time.Duration
	Concurrency int
	// PID of the server process, for its peak RSS (0: not reported).
	PID int
	// Compare is how long each target of the GET /calendar/services
	// comparison is driven (0: no comparison). DSN is the server's
	// database, which the plain baselines read.
	Compare time.Duration
	DSN     string
	// Progress receives a line per phase (nil: none).
	Progress io.Writer
}

// KindStats is what one kind of request did during a run.
type KindStats struct {
	Kind      string
	Count     int
	Errors    int // non-2xx answers and transport failures
	Status5xx int
	Statuses  map[int]int // by HTTP status (0: transport failure)
	P50, P99  time.Duration
	PerSecond float64
}

// CompareStats is one target of the services comparison.
type CompareStats struct {
	Name      string
	Count     int
	Errors    int
	PerSecond float64
	P50, P99  time.Duration
}

// LoadReport is the outcome of a load run.
type LoadReport struct {
	Config     LoadConfig
	Started    time.Time
	Elapsed    time.Duration
	LoadBefore string
	LoadAfter  string
	Kinds      []KindStats
	Total      KindStats
	// RSS of the server in kB: VmHWM (peak since it started) after the run,
	// the largest VmRSS sampled during the run, and VmRSS before it.
	PeakRSS, MaxSampledRSS, RSSBefore int64
	Compare                           []CompareStats
	// BodiesMatch says whether the plain baseline answered the same data as
	// Frontdesk (checked before measuring).
	BodiesMatch bool
	// Jobs is what the server's job queue did during the mixed run (nil
	// without DSN).
	Jobs *JobStats
	// NewClients is how many new clients the successful batches carried:
	// what the database must hold afterwards beyond what it held before.
	NewClients int64
}

// kind is a request of the mix and how often it is picked.
type kind struct {
	name   string
	weight int
	// build makes a request; fresh is how many new clients its body
	// creates when it succeeds.
	build func(g *generator) (method, path string, body []byte, fresh int)
}

// generator holds what the requests of a run need.
type generator struct {
	cfg        LoadConfig
	client     *http.Client
	services   []int64
	pipelineID int64
	next       atomic.Int64 // next fresh national number
	mu         sync.Mutex
	sent       []string // nationals already ingested, for the rows that update
}

// mix is the request mix of the load run: mostly reads, as an integration
// polls, with batch writes of 100 rows.
var mix = []kind{
	{"GET services", 25, func(g *generator) (string, string, []byte, int) { return "GET", public + "/calendar/services", nil, 0 }},
	{"GET pipelines", 10, func(g *generator) (string, string, []byte, int) {
		return "GET", public + "/leadflow/pipelines?status=active", nil, 0
	}},
	{"GET stages", 10, func(g *generator) (string, string, []byte, int) {
		return "GET", fmt.Sprintf("%s/leadflow/pipelines/%d/stages", public, g.pipelineID), nil, 0
	}},
	{"GET conversations page", 20, func(g *generator) (string, string, []byte, int) {
		return "GET", public + "/chat/conversations?limit=50&sort_by=-updated_at", nil, 0
	}},
	{"POST ingest batch (100 rows)", 20, func(g *generator) (string, string, []byte, int) {
		body, fresh := g.ingestBody()
		return "POST", public + "/leadflow/ingest/" + g.cfg.Node + "/batch", body, fresh
	}},
	{"POST waiting-list batch (100 rows)", 15, func(g *generator) (string, string, []byte, int) {
		body, fresh := g.waitlistBody()
		return "POST", public + "/calendar/waitlist/entries/batch", body, fresh
	}},
}

// ingestBody is 100 rows: 80 new clients and 20 sent before (updates);
// it returns how many are new.
func (g *generator) ingestBody() ([]byte, int) {
	nats := make([]string, 0, 100)
	g.mu.Lock()
	for i := 0; i < 20 && len(g.sent) > 0; i++ {
		nats = append(nats, g.sent[rand.IntN(len(g.sent))])
	}
	g.mu.Unlock()
	var fresh []string
	for len(nats) < 100 {
		n := fmt.Sprintf("%09d", g.next.Add(1))
		nats = append(nats, n)
		fresh = append(fresh, n)
	}
	g.mu.Lock()
	if len(g.sent) < 100_000 {
		g.sent = append(g.sent, fresh...)
	}
	g.mu.Unlock()
	rows := make([]map[string]any, len(nats))
	for i, nat := range nats {
		rows[i] = map[string]any{"external_id": strconv.Itoa(i), "phone_number": "+34" + nat, "first_name": "Carga",
			"last_name": nat, "email": "l" + nat + "@example.com", "data": map[string]any{"source": "load"}}
	}
	data, _ := json.Marshal(map[string]any{"clients": rows})
	return data, len(fresh)
}

// waitlistBody is 100 rows of new clients over the list's services.
func (g *generator) waitlistBody() ([]byte, int) {
	rows := make([]any, 100)
	for i := range rows {
		nat := fmt.Sprintf("%09d", g.next.Add(1))
		rows[i] = map[string]any{"phone": "+34" + nat, "first_name": "Espera", "last_name": nat,
			"service_ids": []int64{g.services[i%len(g.services)]}, "priority": i % 4, "time_preference": "any"}
	}
	data, _ := json.Marshal(map[string]any{"waitlist_id": g.cfg.WaitlistID, "entries": rows})
	return data, len(rows)
}

// send performs one request and returns its status (0 when the transport
// failed) and duration, the body read to the end.
func (g *generator) send(ctx context.Context, base, method, path, key string, body []byte) (int, time.Duration) {
	var rd io.Reader
	if body != nil {
		rd = bytes.NewReader(body)
	}
	req, err := http.NewRequestWithContext(ctx, method, base+path, rd)
	if err != nil {
		return 0, 0
	}
	if key != "" {
		req.Header.Set("Authorization", "Bearer "+key)
	}
	if body != nil {
		req.Header.Set("Content-Type", "application/json")
	}
	start := time.Now()
	resp, err := g.client.Do(req)
	if err != nil {
		return 0, time.Since(start)
	}
	io.Copy(io.Discard, resp.Body)
	resp.Body.Close()
	return resp.StatusCode, time.Since(start)
}

// getJSON fetches base+path with the key and decodes it into v.
func (g *generator) getJSON(ctx context.Context, base, path string, v any) error {
	req, err := http.NewRequestWithContext(ctx, "GET", base+path, nil)
	if err != nil {
		return err
	}
	req.Header.Set("Authorization", "Bearer "+g.cfg.Key)
	resp, err := g.client.Do(req)
	if err != nil {
		return err
	}
	defer resp.Body.Close()
	data, err := io.ReadAll(resp.Body)
	if err != nil {
		return err
	}
	if resp.StatusCode != 200 {
		return fmt.Errorf("GET %s: status %d: %.300s", path, resp.StatusCode, data)
	}
	return json.Unmarshal(data, v)
}

// Load runs the services comparison and then the mixed run.
func Load(ctx context.Context, cfg LoadConfig) (*LoadReport, error) {
	if cfg.Concurrency < 1 {
		cfg.Concurrency = 1
	}
	progress := cfg.Progress
	if progress == nil {
		progress = io.Discard
	}
	rep := &LoadReport{Config: cfg, Started: time.Now(), LoadBefore: loadAvg()}
	logf := func(format string, args ...any) {
		fmt.Fprintf(progress, "[load %s] %s\n", time.Since(rep.Started).Round(time.Second), fmt.Sprintf(format, args...))
	}
	g := &generator{cfg: cfg, client: &http.Client{
		Timeout: 2 * time.Minute,
		Transport: &http.Transport{MaxIdleConns: 4 * cfg.Concurrency, MaxIdleConnsPerHost: 4 * cfg.Concurrency,
			IdleConnTimeout: time.Minute, DisableCompression: true},
	}}
	// Fresh numbers in a range of their own per run; a collision with an
	// earlier run only turns a create into an update.
	g.next.Store(int64(640_000_000 + rand.IntN(30)*1_000_000))

	var services struct {
		Data []struct {
			ID int64 `json:"id"`
		} `json:"data"`
	}
	if err := g.getJSON(ctx, cfg.BaseURL, public+"/calendar/services", &services); err != nil {
		return nil, fmt.Errorf("the server at %s: %w", cfg.BaseURL, err)
	}
	for _, s := range services.Data {
		g.services = append(g.services, s.ID)
	}
	var pipelines struct {
		Data []struct {
			ID int64 `json:"id"`
		} `json:"data"`
	}
	if err := g.getJSON(ctx, cfg.BaseURL, public+"/leadflow/pipelines", &pipelines); err != nil {
		return nil, err
	}
	if len(g.services) == 0 || len(pipelines.Data) == 0 {
		return nil, fmt.Errorf("the account needs at least one service and one pipeline")
	}
	g.pipelineID = pipelines.Data[0].ID

	if cfg.Compare > 0 {
		logf("GET /calendar/services: Frontdesk next to a hello-world and a plain net/http handler, %s each", cfg.Compare)
		cmp, match, err := compareServices(ctx, g, logf)
		if err != nil {
			return nil, err
		}
		rep.Compare, rep.BodiesMatch = cmp, match
	}

	rep.RSSBefore = procStatus(cfg.PID, "VmRSS")
	var jobsBefore jobSnapshot
	if cfg.DSN != "" {
		var err error
		if jobsBefore, err = snapshotJobs(ctx, cfg.DSN, time.Now()); err != nil {
			return nil, err
		}
	}
	logf("mixed run: %d clients for %s", cfg.Concurrency, cfg.Duration)
	var (
		mu    sync.Mutex
		times = map[string][]time.Duration{}
		codes = map[string]map[int]int{}
	)
	var total int
	for _, k := range mix {
		total += k.weight
		codes[k.name] = map[int]int{}
	}
	runCtx, cancel := context.WithTimeout(ctx, cfg.Duration)
	defer cancel()
	sampled := make(chan int64, 1)
	go func() { // sample the server's RSS while the run lasts
		var peak int64
		t := time.NewTicker(250 * time.Millisecond)
		defer t.Stop()
		for {
			peak = max(peak, procStatus(cfg.PID, "VmRSS"))
			select {
			case <-runCtx.Done():
				sampled <- peak
				return
			case <-t.C:
			}
		}
	}()
	start := time.Now()
	var wg sync.WaitGroup
	for w := 0; w < cfg.Concurrency; w++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for runCtx.Err() == nil {
				pick := rand.IntN(total)
				var k kind
				for _, k = range mix {
					if pick < k.weight {
						break
					}
					pick -= k.weight
				}
				method, path, body, fresh := k.build(g)
				// Requests in flight when the time is up finish and count,
				// so a slow answer is never hidden.
				status, d := g.send(context.WithoutCancel(runCtx), cfg.BaseURL, method, path, cfg.Key, body)
				mu.Lock()
				times[k.name] = append(times[k.name], d)
				codes[k.name][status]++
				if status >= 200 && status < 300 {
					rep.NewClients += int64(fresh)
				}
				mu.Unlock()
			}
		}()
	}
	wg.Wait()
	rep.Elapsed = time.Since(start)
	rep.MaxSampledRSS = <-sampled
	rep.PeakRSS = procStatus(cfg.PID, "VmHWM")
	rep.LoadAfter = loadAvg()
	if cfg.DSN != "" {
		after, err := snapshotJobs(ctx, cfg.DSN, time.Now())
		if err != nil {
			return nil, err
		}
		rep.Jobs = jobsBefore.during(after, rep.Elapsed)
		logf("jobs: %d created (%.0f/s), %d completed (%.0f/s), %d due and not done at the end", rep.Jobs.Created, rep.Jobs.CreatedPerSecond,
			rep.Jobs.Completed, rep.Jobs.CompletedPerSecond, rep.Jobs.Backlog)
	}

	var all []time.Duration
	rep.Total = KindStats{Kind: "all", Statuses: map[int]int{}}
	for _, k := range mix {
		ks := kindStats(k.name, times[k.name], codes[k.name], rep.Elapsed)
		rep.Kinds = append(rep.Kinds, ks)
		all = append(all, times[k.name]...)
		for c, n := range codes[k.name] {
			rep.Total.Statuses[c] += n
		}
	}
	t := kindStats("all", all, rep.Total.Statuses, rep.Elapsed)
	rep.Total = t
	logf("mixed run: %d requests, %.0f/s, %d errors, %d 5xx, %d new clients written", t.Count, t.PerSecond, t.Errors, t.Status5xx, rep.NewClients)
	return rep, nil
}

func kindStats(name string, d []time.Duration, codes map[int]int, elapsed time.Duration) KindStats {
	ks := KindStats{Kind: name, Count: len(d), Statuses: codes, PerSecond: float64(len(d)) / elapsed.Seconds()}
	for c, n := range codes {
		if c < 200 || c > 299 {
			ks.Errors += n
		}
		if c >= 500 {
			ks.Status5xx += n
		}
	}
	ks.P50, ks.P99 = percentile(d, 0.50), percentile(d, 0.99)
	return ks
}

func percentile(d []time.Duration, p float64) time.Duration {
	if len(d) == 0 {
		return 0
	}
	s := slices.Clone(d)
	slices.Sort(s)
	i := int(p*float64(len(s))+0.5) - 1
	return s[max(0, min(i, len(s)-1))]
}

// procStatus reads a kB field (VmRSS, VmHWM) of /proc/<pid>/status; 0 when
// pid is 0 or the field cannot be read.
func procStatus(pid int, field string) int64 {
	if pid <= 0 {
		return 0
	}
	data, err := os.ReadFile(fmt.Sprintf("/proc/%d/status", pid))
	if err != nil {
		return 0
	}
	for _, line := range strings.Split(string(data), "\n") {
		if v, ok := strings.CutPrefix(line, field+":"); ok {
			n, _ := strconv.ParseInt(strings.TrimSuffix(strings.TrimSpace(v), " kB"), 10, 64)
			return n
		}
	}
	return 0
}

// Markdown renders the load report.
func (rep *LoadReport) Markdown() string {
	var b strings.Builder
	c := rep.Config
	fmt.Fprintf(&b, "## Load run against %s, %s\n\n", c.BaseURL, rep.Started.UTC().Format("2006-01-02 15:04 MST"))
	fmt.Fprintf(&b, "- %d concurrent clients (each sends its next request when the previous one has answered), keep-alive, loopback; load generator and baselines in one process, the server in another, all on the same machine.\n", c.Concurrency)
	fmt.Fprintf(&b, "- Load average (1, 5, 15 min) %s before, %s after.\n\n", rep.LoadBefore, rep.LoadAfter)
	if len(rep.Compare) > 0 {
		fmt.Fprintf(&b, "### GET /calendar/services next to plain net/http (%s per target, in two halves interleaved)\n\n", c.Compare)
		b.WriteString("| target | requests/s | p50 ms | p99 ms | errors | Frontdesk's share |\n|---|---:|---:|---:|---:|---:|\n")
		fd := rep.Compare[0].PerSecond
		for _, s := range rep.Compare {
			share := "—"
			if s.Name != rep.Compare[0].Name && s.PerSecond > 0 {
				share = fmt.Sprintf("%.0f %%", 100*fd/s.PerSecond)
			}
			fmt.Fprintf(&b, "| %s | %.0f | %s | %s | %d | %s |\n", s.Name, s.PerSecond, num(s.P50), num(s.P99), s.Errors, share)
		}
		if !rep.BodiesMatch {
			b.WriteString("\nWarning: the plain handler's data differed from Frontdesk's.\n")
		}
		b.WriteString("\n")
	}
	fmt.Fprintf(&b, "### Mixed run, %s\n\n", rep.Elapsed.Round(100*time.Millisecond))
	fmt.Fprintf(&b, "New clients written by the successful batches: %d.\n\n", rep.NewClients)
	b.WriteString("| request | count | per second | p50 ms | p99 ms | errors | 5xx | statuses |\n|---|---:|---:|---:|---:|---:|---:|---|\n")
	for _, k := range append(slices.Clone(rep.Kinds), rep.Total) {
		fmt.Fprintf(&b, "| %s | %d | %.1f | %s | %s | %d | %d | %s |\n", k.Kind, k.Count, k.PerSecond, num(k.P50), num(k.P99), k.Errors, k.Status5xx, statusList(k.Statuses))
	}
	if j := rep.Jobs; j != nil {
		fmt.Fprintf(&b, "\nJobs (automations, messages, webhooks) during the mixed run: %d created (%.0f/s), %d completed (%.0f/s); "+
			"backlog at the end %d due and not done (%.1f %% of the jobs created; %d were due before the run).\n",
			j.Created, j.CreatedPerSecond, j.Completed, j.CompletedPerSecond, j.Backlog, j.BacklogShare()*100, j.BacklogBefore)
	}
	if c.PID > 0 {
		fmt.Fprintf(&b, "\nServer process %d: RSS %s MiB before the mixed run, at most %s MiB sampled during it (every 250 ms), peak %s MiB (VmHWM, since the process started).\n",
			c.PID, mib(rep.RSSBefore), mib(rep.MaxSampledRSS), mib(rep.PeakRSS))
	}
	b.WriteString("\n")
	return b.String()
}

func statusList(codes map[int]int) string {
	keys := make([]int, 0, len(codes))
	for c := range codes {
		keys = append(keys, c)
	}
	slices.Sort(keys)
	var parts []string
	for _, c := range keys {
		name := strconv.Itoa(c)
		if c == 0 {
			name = "failed"
		}
		parts = append(parts, fmt.Sprintf("%s×%d", name, codes[c]))
	}
	return strings.Join(parts, " ")
}

func mib(kb int64) string { return fmt.Sprintf("%.1f", float64(kb)/1024) }
