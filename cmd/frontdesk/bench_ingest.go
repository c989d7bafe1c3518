package main

import (
	"context"
	"fmt"
	"strings"
	"time"

	"github.com/frontdesk/frontdesk/internal/bench"
	"github.com/frontdesk/frontdesk/internal/workspace"
)

// cmdBenchIngest runs `frontdesk bench ingest`.
func cmdBenchIngest(ctx context.Context, args []string, env *Env) error {
	f := newFlags("bench ingest", env)
	addr := f.String("addr", envOr(env, "FRONTDESK_ADDR", "127.0.0.1:8080"), "address of the running frontdesk serve")
	key := f.String("key", workspace.DemoKey, "API key")
	node := f.String("node", "6f1c9a52-3b7e-4d2a-9c41-2f8e5d7a1b01", "UUID of the API input node the batches go to (default: the demo's)")
	batches := f.Int("batches", 15, "timed batches per kind")
	first := f.Int("first", 610_000_000+int(time.Now().Unix()%1000)*20_000, "first national number of the run's new clients (default: differs per run)")
	out := f.String("out", "", "also write the results (markdown) to this file")
	f.Usage = func() {
		fmt.Fprint(f.Output(), `Usage: frontdesk bench ingest --addr 127.0.0.1:8080 [--batches 15] [--key KEY] [--node UUID]

Sends 500-row ingest batches one after another to a running frontdesk serve
over loopback HTTP, as an integrator's client would: all new clients, all
existing (updated) and mixed (half each, every tenth row failing), and
reports the time per batch. scripts/ingest-floor.sh runs it beside the raw
floor of ../shared/bench/limits (docs/performance.md).

`)
		f.PrintDefaults()
	}
	if err := f.parse(args); err != nil {
		return err
	}
	rep, err := bench.IngestHTTP(ctx, bench.IngestConfig{BaseURL: baseURL(*addr), Key: *key, Node: *node,
		Batches: *batches, First: *first, Progress: env.Stderr})
	if err != nil {
		return err
	}
	return printReport(env, rep.Markdown(), *out)
}

// baseURL is a bench command's --addr as a base URL: http:// unless a
// scheme is given, no trailing slash.
func baseURL(addr string) string {
	if !strings.HasPrefix(addr, "http://") && !strings.HasPrefix(addr, "https://") {
		addr = "http://" + addr
	}
	return strings.TrimSuffix(addr, "/")
}
