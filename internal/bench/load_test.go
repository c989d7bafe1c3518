package bench

import (
	"context"
	"io"
	"log/slog"
	"net"
	"net/http"
	"net/url"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/frontdesk/frontdesk/internal/clock"
	"github.com/frontdesk/frontdesk/internal/db"
	"github.com/frontdesk/frontdesk/internal/db/dbtest"
	"github.com/frontdesk/frontdesk/internal/httpapi"
	"github.com/frontdesk/frontdesk/internal/workspace"
)

// TestLoad drives a real server on loopback for a moment on each engine:
// every kind of request of the mix is sent and answered without a 5xx, the
// plain baseline answers the same services as Frontdesk, and the report
// carries throughput, latencies and the RSS of the (here: this) process.
func TestLoad(t *testing.T) {
	dbtest.Engines(t, func(t *testing.T, store *db.DB) {
		ctx := context.Background()
		res, base := serveBench(t, store)

		rep, err := Load(ctx, LoadConfig{BaseURL: base, Key: Key, Node: inputNode, WaitlistID: res.IDs.Waitlists["main"],
			Duration: 3 * time.Second, Concurrency: 4, PID: os.Getpid(), Compare: time.Second, DSN: dsnOf(t, store)})
		if err != nil {
			t.Fatal(err)
		}
		if rep.Total.Count == 0 || rep.Total.Status5xx != 0 || rep.Total.Errors != 0 {
			t.Errorf("total %+v", rep.Total)
		}
		for _, k := range rep.Kinds {
			if k.Count == 0 || k.P50 <= 0 || k.P99 < k.P50 {
				t.Errorf("%s: %+v", k.Kind, k)
			}
		}
		if !rep.BodiesMatch || len(rep.Compare) != 4 {
			t.Errorf("comparison: match %v, %+v", rep.BodiesMatch, rep.Compare)
		}
		for _, c := range rep.Compare {
			if c.Count == 0 || c.Errors != 0 {
				t.Errorf("%s: %+v", c.Name, c)
			}
		}
		// Everything the successful batches carried is there: the rows
		// afterwards are what the load wrote.
		var written int64
		if err := store.QueryRow(ctx, `SELECT COUNT(*) FROM clients WHERE account_id = ? AND first_name IN ('Carga', 'Espera')`,
			res.Account.ID).Scan(&written); err != nil {
			t.Fatal(err)
		}
		if rep.NewClients == 0 || written != rep.NewClients {
			t.Errorf("the load reports %d new clients written, the database holds %d", rep.NewClients, written)
		}
		if rep.Jobs == nil || rep.Jobs.Created < 0 || rep.Jobs.Backlog < 0 {
			t.Errorf("jobs %+v", rep.Jobs)
		}
		if rep.PeakRSS == 0 || rep.MaxSampledRSS == 0 {
			t.Errorf("RSS %d / %d", rep.PeakRSS, rep.MaxSampledRSS)
		}
		md := rep.Markdown()
		t.Log(md)
		for _, want := range []string{"POST ingest batch (100 rows)", "POST waiting-list batch (100 rows)", "GET conversations page", "(a) hello-world", "(b) plain net/http", "VmHWM", "completed"} {
			if !strings.Contains(md, want) {
				t.Errorf("report lacks %q:\n%s", want, md)
			}
		}
	})
}

// dsnOf finds the DSN of a dbtest store: the SQLite file it has open, or
// the PostgreSQL URL with its search_path.
func dsnOf(t *testing.T, store *db.DB) string {
	t.Helper()
	if store.Engine() == db.Postgres {
		var schema string
		if err := store.QueryRow(context.Background(), "SELECT current_schema()").Scan(&schema); err != nil {
			t.Fatal(err)
		}
		u, err := url.Parse(dbtest.PostgresBase())
		if err != nil {
			t.Fatal(err)
		}
		q := u.Query()
		q.Set("search_path", schema)
		u.RawQuery = q.Encode()
		return u.String()
	}
	var seq int
	var name, file string
	if err := store.QueryRow(context.Background(), "PRAGMA database_list").Scan(&seq, &name, &file); err != nil {
		t.Fatal(err)
	}
	return file
}

// serveBench applies the bench workspace to store, lifts its account's rate
// limit (a load run measures the server, not its rate limit;
// requests_per_second 0 is for benchmarks: docs/contract.md, Rate limits)
// and serves the API on a loopback port; it returns the base URL.
func serveBench(t *testing.T, store *db.DB) (*workspace.Result, string) {
	t.Helper()
	ctx := context.Background()
	res, err := (&workspace.Applier{DB: store, Now: time.Now}).Apply(ctx, workspaceFile)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := store.Exec(ctx, `UPDATE accounts SET rate_per_second = 0 WHERE id = ?`, res.Account.ID); err != nil {
		t.Fatal(err)
	}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	srv := &http.Server{Handler: httpapi.NewServer(httpapi.Config{DB: store, Clock: clock.System{}, Log: slog.New(slog.NewTextHandler(io.Discard, nil))})}
	go srv.Serve(ln)
	t.Cleanup(func() { srv.Close() })
	return res, "http://" + ln.Addr().String()
}
