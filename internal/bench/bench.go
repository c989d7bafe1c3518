// Package bench is `frontdesk bench`: it measures Frontdesk through its real
// HTTP handler next to the raw floor of its engine, at growing numbers of
// stored clients and chat messages, and checks the figures against the
// performance targets (README, "Performance"); and (load.go) it drives a running server with a mix
// of reads and batch writes next to plain net/http baselines.
//
// One run uses one engine and a database of its own (a temporary SQLite file,
// or a schema of its own on PostgreSQL), provisions the workspace in
// workspace.yaml, and then, at each size level:
//
//   - bulk-loads clients straight into the tables (db.InsertMany) until the
//     account holds the level's number;
//   - runs every measurement once untimed, then Iterations timed rounds, the
//     measurements interleaved within a round so a busy machine slows all of
//     them alike and the ratios stay meaningful;
//   - after each round deletes what the round created, so every round starts
//     from the stated size.
//
// The chat page is measured the same way at each level of stored messages.
package bench

import (
	"context"
	_ "embed"
	"fmt"
	"io"
	"log/slog"
	"os"
	"runtime"
	"slices"
	"strings"
	"time"

	"github.com/frontdesk/frontdesk/internal/account"
	"github.com/frontdesk/frontdesk/internal/clock"
	"github.com/frontdesk/frontdesk/internal/httpapi"
	"github.com/frontdesk/frontdesk/internal/workspace"
)

//go:embed workspace.yaml
var workspaceFile []byte

// Key is the API key of the bench workspace.
const Key = "pk_bench_frontdesk_main"

// Config is one bench run.
type Config struct {
	// DSN is a PostgreSQL URL (the run creates and drops a schema of its
	// own), a SQLite path that must not exist yet, or "" for a temporary
	// SQLite file.
	DSN string
	// Sizes are the numbers of stored clients to measure at, ascending.
	Sizes []int
	// Messages are the numbers of stored chat messages (besides the 25,000
	// of the measured page) to measure the chat page at, ascending.
	Messages []int
	// Iterations is the number of timed rounds per level.
	Iterations int
	// Progress receives a line per step (nil: none).
	Progress io.Writer
}

// Stat summarises the timings of one measurement at one level.
type Stat struct {
	Median, P90 time.Duration
	N           int
}

func summarize(d []time.Duration) Stat {
	if len(d) == 0 {
		return Stat{}
	}
	s := slices.Clone(d)
	slices.Sort(s)
	return Stat{Median: s[len(s)/2], P90: s[min(len(s)-1, (len(s)*9+9)/10-1)], N: len(s)}
}

// Level is one size level and what was measured there.
type Level struct {
	// Stated is the level's number (clients, or background messages).
	Stated int
	// Stored is what the store held when the timed rounds began: clients
	// of the account, or all its messages (page included).
	Stored int
	// Loaded is how many rows the bulk load added to reach the level, in
	// LoadTime.
	Loaded   int
	LoadTime time.Duration
	Stats    map[string]Stat
}

// Report is the outcome of a run.
type Report struct {
	Engine     string // "sqlite" or "postgres"
	Version    string // engine and version
	Database   string
	Started    time.Time
	Elapsed    time.Duration
	GoVersion  string
	CPUs       int
	LoadBefore string // /proc/loadavg when the run started
	LoadAfter  string
	Iterations int
	Levels     []Level // per number of stored clients
	Chat       []Level // per number of stored messages
	// Streams compares one ingest stream with two into two nodes of the
	// account, at the first level (nil: not measured).
	Streams *Streams
}

// measurement names, in the order of the table.
const (
	mFloor        = "floor"
	mLimitsNew    = "limits_new"
	mLimitsUpsert = "limits_upsert"
	mIngestNew    = "ingest_new"
	mIngestUpdate = "ingest_update"
	mIngestMixed  = "ingest_mixed"
	mWaitlist     = "waitlist_new"
	mServices     = "services"
	mAvailability = "availability"
	mChatSync     = "chat_sync"
	mChatNewest   = "chat_newest"
)

var titles = map[string]string{
	mFloor:        "raw floor: 500 clients + 500 cards, one transaction",
	mLimitsNew:    "limits floor: 500 new contacts + cards (shared/bench/limits' tables and method)",
	mLimitsUpsert: "limits floor: 500 existing contacts upserted (shared/bench/limits)",
	mIngestNew:    "ingest 500 rows, all new",
	mIngestUpdate: "ingest 500 rows, all existing (`update`)",
	mIngestMixed:  "ingest 500 rows, mixed, 10 % failing",
	mWaitlist:     "waiting-list batch 500 rows, all new clients",
	mServices:     "GET /calendar/services",
	mAvailability: "GET /calendar/availability?days=90",
	mChatSync:     "chat page 50 × 500 messages, sync (`updated_after`)",
	mChatNewest:   "chat page 50 × 500 messages, newest first (no filter)",
}

var clientMeasurements = []string{mFloor, mLimitsNew, mLimitsUpsert, mIngestNew, mIngestUpdate, mIngestMixed, mWaitlist, mServices, mAvailability}
var chatMeasurements = []string{mChatSync, mChatNewest}

// servicesPerRound and availabilityPerRound are how many times a round
// reads them: they are cheap, and more samples steady their medians.
const servicesPerRound, availabilityPerRound = 5, 3

// Run provisions a fresh store, measures every level and returns the report.
func Run(ctx context.Context, cfg Config) (*Report, error) {
	if cfg.Iterations < 1 {
		return nil, fmt.Errorf("iterations must be at least 1")
	}
	if !slices.IsSorted(cfg.Sizes) || !slices.IsSorted(cfg.Messages) || len(cfg.Sizes) == 0 {
		return nil, fmt.Errorf("sizes and messages must be given in ascending order")
	}
	progress := cfg.Progress
	if progress == nil {
		progress = io.Discard
	}
	rep := &Report{Started: time.Now(), GoVersion: runtime.Version(), CPUs: runtime.NumCPU(), LoadBefore: loadAvg(), Iterations: cfg.Iterations}
	store, desc, closeStore, err := freshStore(ctx, cfg.DSN)
	if err != nil {
		return nil, err
	}
	defer closeStore()
	rep.Engine, rep.Version, rep.Database = string(store.Engine()), engineVersion(ctx, store), desc
	logf := func(format string, args ...any) {
		fmt.Fprintf(progress, "[%s %s] %s\n", rep.Engine, time.Since(rep.Started).Round(time.Second), fmt.Sprintf(format, args...))
	}
	logf("database: %s", desc)

	res, err := (&workspace.Applier{DB: store, Now: time.Now}).Apply(ctx, workspaceFile)
	if err != nil {
		return nil, fmt.Errorf("apply the bench workspace: %w", err)
	}
	// The bench measures the server, not its rate limit: its account is
	// unlimited (requests_per_second 0: docs/contract.md, Rate limits).
	if _, err := store.Exec(ctx, `UPDATE accounts SET rate_per_second = 0 WHERE id = ?`, res.Account.ID); err != nil {
		return nil, err
	}
	acct, err := account.BySlug(ctx, store, res.Account.Slug)
	if err != nil {
		return nil, err
	}
	f := &fixture{store: store, acct: acct, ids: res.IDs}
	f.limitsSeed = make([]string, 500)
	for i := range f.limitsSeed {
		f.limitsSeed[i] = fmt.Sprintf("%09d", 690_000_000+i)
	}
	if err := f.createLimits(ctx, f.limitsSeed); err != nil {
		return nil, err
	}
	if err := f.loadAppointments(ctx, time.Now()); err != nil {
		return nil, err
	}
	if err := f.settle(ctx, "appointments"); err != nil {
		return nil, err
	}
	r := &runner{
		fixture: f,
		srv:     httpapi.NewServer(httpapi.Config{DB: store, Clock: clock.System{}, Log: slog.New(slog.NewTextHandler(io.Discard, nil))}),
		next:    680_000_000,
	}

	for _, size := range cfg.Sizes {
		lv, err := r.clientLevel(ctx, size, cfg.Iterations, logf)
		if err != nil {
			return nil, fmt.Errorf("at %d clients: %w", size, err)
		}
		rep.Levels = append(rep.Levels, lv)
		if rep.Streams == nil {
			if rep.Streams, err = r.streams(ctx, logf); err != nil {
				return nil, fmt.Errorf("ingest streams: %w", err)
			}
		}
	}
	for _, m := range cfg.Messages {
		lv, err := r.chatLevel(ctx, m, cfg.Iterations, logf)
		if err != nil {
			return nil, fmt.Errorf("at %d messages: %w", m, err)
		}
		rep.Chat = append(rep.Chat, lv)
	}
	rep.Elapsed = time.Since(rep.Started)
	rep.LoadAfter = loadAvg()
	return rep, nil
}

// loadAvg is the first three fields of /proc/loadavg ("" where there is none).
func loadAvg() string {
	data, err := os.ReadFile("/proc/loadavg")
	if err != nil {
		return ""
	}
	fields := strings.Fields(string(data))
	if len(fields) < 3 {
		return ""
	}
	return strings.Join(fields[:3], " ")
}
