package bench

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"strings"
	"time"
)

// IngestConfig drives `frontdesk bench ingest`: 500-row batches sent one
// after another to a running server over loopback HTTP, as an integrator's
// client sends them (docs/performance.md, "Measuring ingest against the
// floor").
type IngestConfig struct {
	BaseURL, Key, Node string
	Batches            int // timed batches per kind
	// First is the first national number of the run's clients; two runs on
	// one database need different ones.
	First    int
	Progress io.Writer
}

// IngestKind is one kind of batch and its latencies.
type IngestKind struct {
	Kind                  string
	Median, Min, P90, Max time.Duration
}

// IngestReport is what `bench ingest` measured.
type IngestReport struct {
	Base  string
	Kinds []IngestKind
}

// Ingest kinds, in the order they run.
const (
	IngestNew    = "new"    // 500 clients no batch sent before
	IngestUpdate = "update" // the same 500 existing clients, changed
	IngestMixed  = "mixed"  // 250 existing, 250 new, every tenth failing
)

// IngestHTTP measures the three kinds of batch against a running server.
// Every batch must answer 200 with the expected summary.
func IngestHTTP(ctx context.Context, cfg IngestConfig) (*IngestReport, error) {
	if cfg.Batches < 1 {
		return nil, fmt.Errorf("batches must be at least 1")
	}
	client := &http.Client{Timeout: time.Minute}
	path := cfg.BaseURL + public + "/leadflow/ingest/" + cfg.Node + "/batch"
	next := cfg.First
	fresh := func(n int) []string {
		out := make([]string, n)
		for i := range out {
			out[i] = fmt.Sprintf("%09d", next)
			next++
		}
		return out
	}
	post := func(body []byte, want map[string]int) (time.Duration, error) {
		req, err := http.NewRequestWithContext(ctx, "POST", path, bytes.NewReader(body))
		if err != nil {
			return 0, err
		}
		req.Header.Set("Authorization", "Bearer "+cfg.Key)
		req.Header.Set("Content-Type", "application/json")
		start := time.Now()
		resp, err := client.Do(req)
		if err != nil {
			return 0, err
		}
		data, err := io.ReadAll(resp.Body)
		resp.Body.Close()
		took := time.Since(start)
		if err != nil {
			return 0, err
		}
		if resp.StatusCode != 200 {
			return 0, fmt.Errorf("status %d: %.300s", resp.StatusCode, data)
		}
		var out map[string]any
		if err := json.Unmarshal(data, &out); err != nil {
			return 0, err
		}
		return took, summaryIs(out, want)
	}
	existing := fresh(500)
	if _, err := post(ingestBody(existing, nil), map[string]int{"created": 500}); err != nil {
		return nil, fmt.Errorf("seed batch: %w", err)
	}
	rep := &IngestReport{Base: cfg.BaseURL}
	for _, kind := range []string{IngestNew, IngestUpdate, IngestMixed} {
		var took []time.Duration
		// One untimed batch first: connections and caches warm.
		for i := -1; i < cfg.Batches; i++ {
			var body []byte
			var want map[string]int
			switch kind {
			case IngestNew:
				body, want = ingestBody(fresh(500), nil), map[string]int{"created": 500}
			case IngestUpdate:
				// A changed last name each round, so every row is rewritten.
				body, want = renamed(ingestBody(existing, nil), i), map[string]int{"updated": 500}
			case IngestMixed:
				nats := append(append([]string{}, existing[:250]...), fresh(250)...)
				body = ingestBody(nats, func(i int) bool { return i%10 == 0 })
				want = map[string]int{"updated": 225, "created": 225, "failed": 50}
			}
			d, err := post(body, want)
			if err != nil {
				return nil, fmt.Errorf("%s batch: %w", kind, err)
			}
			if i >= 0 {
				took = append(took, d)
			}
		}
		k := IngestKind{Kind: kind, Median: percentile(took, 0.5), Min: percentile(took, 0), P90: percentile(took, 0.9), Max: percentile(took, 1)}
		rep.Kinds = append(rep.Kinds, k)
		if cfg.Progress != nil {
			fmt.Fprintf(cfg.Progress, "[bench ingest] %s: median %s over %d batches\n", kind, ms(k.Median), len(took))
		}
	}
	return rep, nil
}

// renamed gives every row of an ingest body a last name of this round.
func renamed(body []byte, round int) []byte {
	return bytes.ReplaceAll(body, []byte(`"last_name":"`), fmt.Appendf(nil, `"last_name":"r%d-`, round))
}

// Markdown is the report as a table (ms per 500-row batch).
func (rep *IngestReport) Markdown() string {
	var b strings.Builder
	fmt.Fprintf(&b, "500-row batches over HTTP to %s:\n\n| batch | median | min | p90 | max |\n|---|---:|---:|---:|---:|\n", rep.Base)
	for _, k := range rep.Kinds {
		fmt.Fprintf(&b, "| %s | %s | %s | %s | %s |\n", k.Kind, ms(k.Median), ms(k.Min), ms(k.P90), ms(k.Max))
	}
	return b.String()
}
