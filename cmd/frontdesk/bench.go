package main

import (
	"context"
	"flag"
	"fmt"
	"os"
	"runtime/pprof"
	"strconv"
	"strings"
	"time"

	"github.com/frontdesk/frontdesk/internal/bench"
	"github.com/frontdesk/frontdesk/internal/db"
	"github.com/frontdesk/frontdesk/internal/workspace"
)

// cmdBench runs `frontdesk bench` (the side-by-side measurements against the
// raw floor, internal/bench) and `frontdesk bench load` (a load run against
// a running server).
func cmdBench(ctx context.Context, args []string, env *Env) error {
	if len(args) > 0 && args[0] == "load" {
		return cmdBenchLoad(ctx, args[1:], env)
	}
	if len(args) > 0 && args[0] == "compare" {
		return cmdBenchCompare(ctx, args[1:], env)
	}
	if len(args) > 0 && args[0] == "ingest" {
		return cmdBenchIngest(ctx, args[1:], env)
	}
	f := newFlags("bench", env)
	sizes := f.String("sizes", "0,100000,1000000", "numbers of stored clients to measure at, ascending (k and M suffixes allowed)")
	messages := f.String("messages", "10000,1000000", "numbers of stored chat messages to measure the chat page at, ascending")
	iterations := f.Int("iterations", 15, "timed rounds per level")
	out := f.String("out", "", "also write the results (markdown) to this file")
	cpuProfile := f.String("cpuprofile", "", "write a CPU profile of the whole run to this file (go tool pprof)")
	f.Usage = func() {
		fmt.Fprint(f.Output(), `Usage: frontdesk bench [--db DSN] [--sizes 0,100k,1M] [--messages 10k,1M] [--iterations 15] [--out FILE] [--cpuprofile FILE]
       frontdesk bench load --addr HOST:PORT [--duration 60s] [--key KEY] [--pid PID] ...
       frontdesk bench compare --before OLD_BINARY [--db postgres://…] [--rounds 2] ...
       frontdesk bench ingest --addr HOST:PORT [--batches 15]

Measures Frontdesk through its HTTP handler next to the raw floor of the
engine, at each number of stored clients and chat messages, and checks the
targets. It writes only into a database of its own: without --db a temporary
SQLite file; with a SQLite path, a file that must not exist yet; with a
postgres:// URL, a schema it creates and drops. FRONTDESK_DB is ignored.

`)
		f.PrintDefaults()
	}
	if err := f.parse(args); err != nil {
		return err
	}
	dsn := ""
	f.Visit(func(fl *flag.Flag) {
		if fl.Name == "db" {
			dsn = *f.dsn
		}
	})
	cfg := bench.Config{DSN: dsn, Iterations: *iterations, Progress: env.Stderr}
	var err error
	if cfg.Sizes, err = parseCounts(*sizes); err != nil {
		fmt.Fprintf(env.Stderr, "--sizes: %v\n", err)
		return errUsage
	}
	if cfg.Messages, err = parseCounts(*messages); err != nil {
		fmt.Fprintf(env.Stderr, "--messages: %v\n", err)
		return errUsage
	}
	if len(cfg.Sizes) == 0 || *iterations < 1 {
		fmt.Fprintln(env.Stderr, "--sizes needs at least one size and --iterations at least 1")
		return errUsage
	}
	stopProfile, err := startCPUProfile(*cpuProfile)
	if err != nil {
		return err
	}
	defer stopProfile()
	rep, err := bench.Run(ctx, cfg)
	if err != nil {
		return err
	}
	return printReport(env, rep.Markdown(), *out)
}

// cmdBenchLoad runs `frontdesk bench load`.
func cmdBenchLoad(ctx context.Context, args []string, env *Env) error {
	f := newFlags("bench load", env)
	addr := f.String("addr", envOr(env, "FRONTDESK_ADDR", "127.0.0.1:8080"), "address of the running frontdesk serve")
	duration := f.Duration("duration", 60*time.Second, "length of the mixed run")
	key := f.String("key", workspace.DemoKey, "API key")
	node := f.String("node", "6f1c9a52-3b7e-4d2a-9c41-2f8e5d7a1b01", "UUID of the API input node the ingest batches go to (default: the demo's)")
	waitlist := f.Int64("waitlist", 1, "id of the waiting list the waiting-list batches go to")
	concurrency := f.Int("concurrency", 8, "concurrent clients")
	pid := f.Int("pid", 0, "server process id, to report its peak RSS from /proc/PID/status")
	compare := f.Duration("compare", 20*time.Second, "per target: GET /calendar/services on Frontdesk, hello world and plain net/http (0: skip)")
	out := f.String("out", "", "also write the results (markdown) to this file")
	f.Usage = func() {
		fmt.Fprint(f.Output(), `Usage: frontdesk bench load --addr 127.0.0.1:8080 [--duration 60s] [--key KEY] [--pid PID] [--db DSN]

Drives a running frontdesk serve on loopback with a mix of reads and batch
writes, after comparing GET /calendar/services with a hello-world and a plain
net/http handler that this command starts on other loopback ports against
the server's database (--db, read only; the default is serve's).

`)
		f.PrintDefaults()
	}
	if err := f.parse(args); err != nil {
		return err
	}
	rep, err := bench.Load(ctx, bench.LoadConfig{BaseURL: baseURL(*addr), Key: *key, Node: *node, WaitlistID: *waitlist,
		Duration: *duration, Concurrency: *concurrency, PID: *pid, Compare: *compare, DSN: *f.dsn, Progress: env.Stderr})
	if err != nil {
		return err
	}
	md := rep.Markdown()
	fmt.Fprint(env.Stdout, md)
	if *out != "" {
		if err := os.WriteFile(*out, []byte(md), 0o644); err != nil {
			return err
		}
	}
	if rep.Total.Status5xx > 0 {
		return fmt.Errorf("%d responses were 5xx", rep.Total.Status5xx)
	}
	return nil
}

// cmdBenchCompare runs `frontdesk bench compare`.
func cmdBenchCompare(ctx context.Context, args []string, env *Env) error {
	f := newFlags("bench compare", env)
	before := f.String("before", "", "the previous binary (go build -o /tmp/frontdesk-before ./cmd/frontdesk at the earlier commit)")
	after := f.String("after", "", "the binary measured against it (default: this one)")
	rounds := f.Int("rounds", 2, "rounds; each runs both binaries, the order alternating")
	duration := f.Duration("duration", 60*time.Second, "length of each mixed load run (0: none)")
	concurrency := f.Int("concurrency", 8, "concurrent clients of the load run")
	importRows := f.Int("import-rows", 20000, "rows of the CSV each server imports first (0: no import)")
	out := f.String("out", "", "also write the results (markdown) to this file")
	var serveArgs stringList
	f.Var(&serveArgs, "serve-arg", "an argument added to both servers' serve command (repeatable), e.g. --serve-arg=--worker=false")
	f.Usage = func() {
		fmt.Fprint(f.Output(), `Usage: frontdesk bench compare --before OLD_BINARY [--db postgres://…] [--rounds 2] [--duration 60s] [--import-rows 20000]

Measures two frontdesk binaries side by side in one run: per round, each
starts `+"`serve --demo`"+` on a fresh database on loopback (a temporary SQLite
file, or with --db a PostgreSQL database it creates on that server and drops
afterwards), imports a generated CSV with its own `+"`import pipeline`"+`, then
takes the mixed load of `+"`bench load`"+`. The order alternates by round.

`)
		f.PrintDefaults()
	}
	if err := f.parse(args); err != nil {
		return err
	}
	if *before == "" {
		fmt.Fprintln(env.Stderr, "--before is required")
		return errUsage
	}
	if *after == "" {
		self, err := os.Executable()
		if err != nil {
			return err
		}
		*after = self
	}
	pg := ""
	f.Visit(func(fl *flag.Flag) {
		if fl.Name == "db" {
			pg = *f.dsn
		}
	})
	if pg != "" && !db.IsPostgresDSN(pg) {
		fmt.Fprintln(env.Stderr, "--db takes a postgres:// URL (without it the servers use temporary SQLite files)")
		return errUsage
	}
	rep, err := bench.Compare(ctx, bench.CompareConfig{Before: *before, After: *after, PostgresURL: pg, Rounds: *rounds,
		Load: *duration, Concurrency: *concurrency, ImportRows: *importRows, ServeArgs: serveArgs, Progress: env.Stderr})
	if err != nil {
		return err
	}
	return printReport(env, rep.Markdown(), *out)
}

// parseCounts reads "0,100k,1M" (empty: none).
func parseCounts(s string) ([]int, error) {
	var out []int
	for _, part := range strings.Split(s, ",") {
		part = strings.TrimSpace(part)
		if part == "" {
			continue
		}
		mult := 1
		switch {
		case strings.HasSuffix(part, "k"), strings.HasSuffix(part, "K"):
			mult, part = 1_000, part[:len(part)-1]
		case strings.HasSuffix(part, "M"), strings.HasSuffix(part, "m"):
			mult, part = 1_000_000, part[:len(part)-1]
		}
		n, err := strconv.Atoi(strings.ReplaceAll(part, "_", ""))
		if err != nil || n < 0 {
			return nil, fmt.Errorf("%q is not a count", part)
		}
		if len(out) > 0 && n*mult <= out[len(out)-1] {
			return nil, fmt.Errorf("counts must be ascending")
		}
		out = append(out, n*mult)
	}
	return out, nil
}

// printReport prints a bench report and, with --out, writes it to that file.
func printReport(env *Env, md, out string) error {
	fmt.Fprint(env.Stdout, md)
	if out != "" {
		return os.WriteFile(out, []byte(md), 0o644)
	}
	return nil
}

// startCPUProfile starts a CPU profile into path ("" : none); the returned
// func stops it and closes the file.
func startCPUProfile(path string) (func(), error) {
	if path == "" {
		return func() {}, nil
	}
	pf, err := os.Create(path)
	if err != nil {
		return nil, err
	}
	if err := pprof.StartCPUProfile(pf); err != nil {
		pf.Close()
		return nil, err
	}
	return func() { pprof.StopCPUProfile(); pf.Close() }, nil
}

// stringList is a repeatable string flag.
type stringList []string

func (l *stringList) String() string     { return strings.Join(*l, " ") }
func (l *stringList) Set(v string) error { *l = append(*l, v); return nil }
