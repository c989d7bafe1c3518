package bench

import (
	"bytes"
	"context"
	"crypto/rand"
	"encoding/hex"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"syscall"
	"time"

	"github.com/frontdesk/frontdesk/internal/csvimport"
	"github.com/frontdesk/frontdesk/internal/db"
	"github.com/frontdesk/frontdesk/internal/workspace"
)

// CompareConfig is `frontdesk bench compare`: two frontdesk binaries (the
// previous commit's and this one) measured side by side in one run, each on
// a fresh database of its own per round, the order alternating by round so
// a change in the machine's load hits both alike.
type CompareConfig struct {
	Before, After string // paths of the two binaries
	// PostgresURL, when set, runs on PostgreSQL: each server gets a
	// database created (and dropped afterwards) on that server; else each
	// gets a temporary SQLite file.
	PostgresURL string
	Rounds      int
	// Load is the mixed run's length and concurrency; ImportRows is the
	// size of the CSV imported first (0: no import).
	Load        time.Duration
	Concurrency int
	ImportRows  int
	// ServeArgs are added to both servers' `serve` command line (for
	// instance --worker=false, to measure the request path alone).
	ServeArgs []string
	Progress  io.Writer
}

// CompareRun is one binary's turn in one round.
type CompareRun struct {
	Label      string // "before" or "after"
	Round      int
	ImportRate float64 // rows/s of the CSV import, on-arrival automations on (wall time of the command)
	// ImportPlainRate is the same for a second file of other new clients
	// imported with --no-automations.
	ImportPlainRate float64
	Load            *LoadReport
}

// CompareReport is the outcome of a comparison.
type CompareReport struct {
	Config  CompareConfig
	Engine  string
	Started time.Time
	Runs    []CompareRun
}

// Compare runs the comparison.
func Compare(ctx context.Context, cfg CompareConfig) (*CompareReport, error) {
	if cfg.Rounds < 1 {
		cfg.Rounds = 1
	}
	progress := cfg.Progress
	if progress == nil {
		progress = io.Discard
	}
	rep := &CompareReport{Config: cfg, Engine: "sqlite", Started: time.Now()}
	if cfg.PostgresURL != "" {
		rep.Engine = "postgres"
	}
	logf := func(format string, args ...any) {
		fmt.Fprintf(progress, "[compare %s] %s\n", time.Since(rep.Started).Round(time.Second), fmt.Sprintf(format, args...))
	}
	work, err := os.MkdirTemp("", "frontdesk-compare-")
	if err != nil {
		return nil, err
	}
	defer os.RemoveAll(work)
	csvPath := filepath.Join(work, "contacts.csv")
	if cfg.ImportRows > 0 {
		// Two files of different clients: one imported with on-arrival
		// automations, one without.
		for i, path := range []string{csvPath, plainCSV(csvPath)} {
			f, err := os.Create(path)
			if err != nil {
				return nil, err
			}
			err = csvimport.SampleCSV(f, cfg.ImportRows, i*cfg.ImportRows)
			if cerr := f.Close(); err == nil {
				err = cerr
			}
			if err != nil {
				return nil, err
			}
		}
	}
	bins := []struct{ label, path string }{{"before", cfg.Before}, {"after", cfg.After}}
	for round := 1; round <= cfg.Rounds; round++ {
		order := bins
		if round%2 == 0 {
			order = []struct{ label, path string }{bins[1], bins[0]}
		}
		for _, b := range order {
			logf("round %d: %s (%s)", round, b.label, b.path)
			run, err := compareOne(ctx, cfg, b.path, work, csvPath, logf)
			if err != nil {
				return nil, fmt.Errorf("round %d, %s: %w", round, b.label, err)
			}
			run.Label, run.Round = b.label, round
			rep.Runs = append(rep.Runs, run)
		}
	}
	return rep, nil
}

// compareOne starts bin's server on a fresh database, imports the CSV, then
// drives the mixed load, and stops it.
func compareOne(ctx context.Context, cfg CompareConfig, bin, work, csvPath string, logf func(string, ...any)) (CompareRun, error) {
	var run CompareRun
	dsn, drop, err := compareDatabase(ctx, cfg.PostgresURL, work)
	if err != nil {
		return run, err
	}
	defer drop()
	addr, err := freeLoopback()
	if err != nil {
		return run, err
	}
	var logs bytes.Buffer
	srv := exec.Command(bin, append([]string{"serve", "--demo", "--db", dsn, "--addr", addr}, cfg.ServeArgs...)...)
	srv.Stdout, srv.Stderr = &logs, &logs
	srv.Env = append(os.Environ(), "FRONTDESK_DB=")
	if err := srv.Start(); err != nil {
		return run, err
	}
	stopped := false
	stop := func() {
		if stopped {
			return
		}
		stopped = true
		srv.Process.Signal(syscall.SIGTERM)
		done := make(chan struct{})
		go func() { srv.Wait(); close(done) }()
		select {
		case <-done:
		case <-time.After(30 * time.Second):
			srv.Process.Kill()
			<-done
		}
	}
	defer stop()
	base := "http://" + addr
	if err := waitHealthy(ctx, base); err != nil {
		return run, fmt.Errorf("%w; server said: %.2000s", err, logs.String())
	}

	// The load measures the server, not its rate limit (docs/contract.md, Rate limits:
	// requests_per_second 0 is meant for benchmarks); the server sees the
	// change within its one-second account cache. The demo's quiet hours
	// are lifted too, so that a run measures the same at any hour: inside
	// them the automations' messages wait for the morning, and the worker
	// would send none of them (a binary without the setting ignores it).
	unlimited := filepath.Join(work, "unlimited.yaml")
	if err := os.WriteFile(unlimited, []byte(daylightWorkspace), 0o600); err != nil {
		return run, err
	}
	if out, err := exec.CommandContext(ctx, bin, "workspace", "apply", "--db", dsn, "-f", unlimited).CombinedOutput(); err != nil {
		return run, fmt.Errorf("workspace apply: %w: %.2000s", err, out)
	}
	time.Sleep(1500 * time.Millisecond)

	if cfg.ImportRows > 0 {
		importRate := func(path string, args ...string) (float64, error) {
			start := time.Now()
			imp := exec.CommandContext(ctx, bin, append([]string{"import", "pipeline", "--base-url", base, "--key", workspace.DemoKey,
				"--node", demoNode, "-f", path, "--quiet", "--out", filepath.Join(work, "results.csv")}, args...)...)
			if out, err := imp.CombinedOutput(); err != nil {
				return 0, fmt.Errorf("import: %w: %.2000s", err, out)
			}
			os.Remove(filepath.Join(work, "results.csv"))
			return float64(cfg.ImportRows) / time.Since(start).Seconds(), nil
		}
		if run.ImportPlainRate, err = importRate(plainCSV(csvPath), "--no-automations"); err != nil {
			return run, err
		}
		if run.ImportRate, err = importRate(csvPath); err != nil {
			return run, err
		}
		logf("  import: %d rows, %.0f rows/s with automations, %.0f without", cfg.ImportRows, run.ImportRate, run.ImportPlainRate)
	}
	if cfg.Load > 0 {
		rep, err := Load(ctx, LoadConfig{BaseURL: base, Key: workspace.DemoKey, Node: demoNode, WaitlistID: 1,
			Duration: cfg.Load, Concurrency: cfg.Concurrency, PID: srv.Process.Pid, DSN: dsn})
		if err != nil {
			return run, fmt.Errorf("load: %w", err)
		}
		run.Load = rep
		logf("  load: %.0f requests/s, ingest p99 %s ms, %d errors, %d 5xx", rep.Total.PerSecond, num(ingestKind(rep).P99), rep.Total.Errors, rep.Total.Status5xx)
	}
	return run, nil
}

// daylightWorkspace is what a compared server's demo account is given
// before it is measured: no request limit, no quiet hours.
const daylightWorkspace = "account: {slug: demo, limits: {requests_per_second: 0}}\nmessaging: {quiet_hours: \"\"}\n"

// demoNode is the demo workspace's API input node.
const demoNode = "6f1c9a52-3b7e-4d2a-9c41-2f8e5d7a1b01"

func ingestKind(rep *LoadReport) KindStats {
	for _, k := range rep.Kinds {
		if strings.HasPrefix(k.Kind, "POST ingest") {
			return k
		}
	}
	return KindStats{}
}

// compareDatabase makes an empty database for one server: a SQLite file in
// work, or a database created on the PostgreSQL server of pgURL.
func compareDatabase(ctx context.Context, pgURL, work string) (string, func(), error) {
	var b [4]byte
	rand.Read(b[:])
	name := "fd_compare_" + hex.EncodeToString(b[:])
	if pgURL == "" {
		path := filepath.Join(work, name+".db")
		return path, func() {
			for _, suffix := range []string{"", "-wal", "-shm"} {
				os.Remove(path + suffix)
			}
		}, nil
	}
	admin, err := db.Open(ctx, pgURL, db.Options{MaxOpenConns: 1})
	if err != nil {
		return "", nil, err
	}
	if _, err := admin.Exec(ctx, "CREATE DATABASE "+name); err != nil {
		admin.Close()
		return "", nil, err
	}
	u, err := url.Parse(pgURL)
	if err != nil {
		admin.Close()
		return "", nil, err
	}
	u.Path = "/" + name
	return u.String(), func() {
		admin.Exec(context.WithoutCancel(ctx), "DROP DATABASE IF EXISTS "+name+" WITH (FORCE)")
		admin.Close()
	}, nil
}

func freeLoopback() (string, error) {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return "", err
	}
	defer l.Close()
	return l.Addr().String(), nil
}

func waitHealthy(ctx context.Context, base string) error {
	deadline := time.Now().Add(2 * time.Minute)
	for time.Now().Before(deadline) {
		resp, err := http.Get(base + "/readyz")
		if err == nil {
			resp.Body.Close()
			if resp.StatusCode == 200 {
				return nil
			}
		}
		select {
		case <-ctx.Done():
			return ctx.Err()
		case <-time.After(50 * time.Millisecond):
		}
	}
	return fmt.Errorf("the server at %s did not become ready", base)
}

// Markdown renders the comparison.
func (rep *CompareReport) Markdown() string {
	var b strings.Builder
	c := rep.Config
	fmt.Fprintf(&b, "## `frontdesk bench compare` on %s, %s\n\n", rep.Engine, rep.Started.UTC().Format("2006-01-02 15:04 MST"))
	fmt.Fprintf(&b, "- before: `%s`; after: `%s`. %d rounds, the order alternating; each run: `serve --demo %s` on a fresh database, its request limit and quiet hours lifted", c.Before, c.After, c.Rounds, strings.Join(c.ServeArgs, " "))
	if c.ImportRows > 0 {
		fmt.Fprintf(&b, ", `import pipeline --no-automations` of %s new rows, then `import pipeline` of %[1]s others with on-arrival automations (wall time of each command)", thousands(c.ImportRows))
	}
	if c.Load > 0 {
		fmt.Fprintf(&b, ", then `bench load` for %s with %d clients", c.Load, c.Concurrency)
	}
	b.WriteString(".\n\n| round | binary | import rows/s, no automations | import rows/s, automations | requests/s | ingest p50 ms | ingest p99 ms | errors | 5xx | jobs created/s | jobs completed/s | backlog at the end |\n" +
		"|---:|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|\n")
	for _, r := range rep.Runs {
		fmt.Fprintf(&b, "| %d | %s | %s | %s |", r.Round, r.Label, rate(r.ImportPlainRate), rate(r.ImportRate))
		if r.Load == nil {
			b.WriteString(" — | — | — | — | — | — | — | — |\n")
			continue
		}
		k := ingestKind(r.Load)
		fmt.Fprintf(&b, " %.0f | %s | %s | %d | %d |", r.Load.Total.PerSecond, num(k.P50), num(k.P99), r.Load.Total.Errors, r.Load.Total.Status5xx)
		if j := r.Load.Jobs; j != nil {
			fmt.Fprintf(&b, " %.0f | %.0f | %s (%.1f %%) |\n", j.CreatedPerSecond, j.CompletedPerSecond, thousands(int(j.Backlog)), 100*j.BacklogShare())
		} else {
			b.WriteString(" — | — | — |\n")
		}
	}
	b.WriteString("\n")
	writeTargets(&b, "Targets (same run)", rep.Targets())
	return b.String()
}

func rate(v float64) string {
	if v == 0 {
		return "—"
	}
	return fmt.Sprintf("%.0f", v)
}

// Targets are the comparison's same-run targets: medians of each binary's runs.
func (rep *CompareReport) Targets() []Target {
	med := func(label string, f func(CompareRun) (float64, bool)) float64 {
		var v []float64
		for _, r := range rep.Runs {
			if x, ok := f(r); r.Label == label && ok {
				v = append(v, x)
			}
		}
		return median(v)
	}
	var out []Target
	loadRate := func(r CompareRun) (float64, bool) {
		if r.Load == nil {
			return 0, false
		}
		return r.Load.Total.PerSecond, true
	}
	if before, after := med("before", loadRate), med("after", loadRate); before > 0 {
		want := 1.5
		if rep.Engine == "postgres" {
			want = 3
		}
		out = append(out, Target{Name: fmt.Sprintf("bench load requests/s ≥ %.1f× the previous binary's", want),
			Value: want / (after / before), Limit: 1, Shown: fmt.Sprintf("%.2f× (%.0f vs %.0f)", after/before, after, before)})
		var p99s []float64
		errors, fives := 0, 0
		for _, r := range rep.Runs {
			if r.Label == "after" && r.Load != nil {
				p99s = append(p99s, float64(ingestKind(r.Load).P99.Milliseconds()))
				errors += r.Load.Total.Errors
				fives += r.Load.Total.Status5xx
			}
		}
		p99 := slices.Max(p99s)
		out = append(out, Target{Name: "bench load: ingest p99 ≤ 200 ms (the worst run of this binary)", Value: p99 / 200, Limit: 1, Shown: fmt.Sprintf("%.0f ms", p99)})
		out = append(out, Target{Name: "bench load: 0 errors, 0 5xx (this binary)", Value: float64(errors + fives), Limit: 0, Shown: fmt.Sprintf("%d errors, %d 5xx", errors, fives)})
		var worst float64
		for _, r := range rep.Runs {
			if r.Label == "after" && r.Load != nil && r.Load.Jobs != nil {
				worst = max(worst, r.Load.Jobs.BacklogShare())
			}
		}
		out = append(out, Target{Name: "bench load: jobs due and not done at the end ≤ 10 % of the jobs created (the worst run of this binary)",
			Value: worst / 0.10, Limit: 1, Shown: fmt.Sprintf("%.1f %%", 100*worst)})
	}
	for _, imp := range []struct {
		name string
		rate func(CompareRun) float64
	}{
		{"with on-arrival automations", func(r CompareRun) float64 { return r.ImportRate }},
		{"without automations", func(r CompareRun) float64 { return r.ImportPlainRate }},
	} {
		get := func(r CompareRun) (float64, bool) { v := imp.rate(r); return v, v > 0 }
		if before, after := med("before", get), med("after", get); before > 0 && rep.Engine == "postgres" {
			out = append(out, Target{Name: fmt.Sprintf("CLI import of %s rows on PostgreSQL %s ≥ 3× the previous binary's rows/s", thousands(rep.Config.ImportRows), imp.name),
				Value: 3 / (after / before), Limit: 1, Shown: fmt.Sprintf("%.2f× (%.0f vs %.0f rows/s)", after/before, after, before)})
		}
	}
	return out
}

// plainCSV is the second import file, beside the first.
func plainCSV(path string) string { return strings.TrimSuffix(path, ".csv") + "-plain.csv" }
