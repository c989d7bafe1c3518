package httpapi_test

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"log/slog"
	"net/http/httptest"
	"os"
	"testing"
	"time"

	"github.com/frontdesk/frontdesk/internal/clock"
	"github.com/frontdesk/frontdesk/internal/db"
	"github.com/frontdesk/frontdesk/internal/db/dbtest"
	"github.com/frontdesk/frontdesk/internal/httpapi"
	"github.com/frontdesk/frontdesk/internal/workspace"
)

// benchServer provisions the acme fixture on engine e for a benchmark.
func benchServer(b *testing.B, e db.Engine) (*db.DB, *httpapi.Server, *workspace.Result) {
	b.Helper()
	store := dbtest.Open(b, e)
	data, err := os.ReadFile("../workspace/testdata/acme.yaml")
	if err != nil {
		b.Fatal(err)
	}
	res, err := (&workspace.Applier{DB: store, Now: time.Now}).Apply(context.Background(), data)
	if err != nil {
		b.Fatal(err)
	}
	srv := httpapi.NewServer(httpapi.Config{DB: store, Clock: clock.System{}, Log: slog.New(slog.NewTextHandler(io.Discard, nil))})
	return store, srv, res
}

func post(b *testing.B, srv *httpapi.Server, path string, body []byte, want int) {
	req := httptest.NewRequest("POST", path, bytes.NewReader(body))
	req.Header.Set("Authorization", "Bearer "+acmeKey)
	rec := httptest.NewRecorder()
	srv.ServeHTTP(rec, req)
	if rec.Code != want {
		b.Fatalf("status %d: %s", rec.Code, rec.Body.String())
	}
}

// batchBody builds a 500-row ingest batch with phones starting at base; every
// tenth row fails when failing is set.
func batchBody(base, n int, failing bool) []byte {
	rows := make([]map[string]any, n)
	for i := range rows {
		rows[i] = map[string]any{"external_id": fmt.Sprint(i), "phone_number": fmt.Sprintf("+34%09d", 600000000+base+i),
			"first_name": "Cliente", "last_name": fmt.Sprint(base + i), "email": fmt.Sprintf("c%d@example.com", base+i),
			"data": map[string]any{"source": "bench"}}
		if failing && i%10 == 0 {
			rows[i]["phone_number"] = "12"
		}
	}
	data, _ := json.Marshal(map[string]any{"clients": rows, "trigger_automations": false})
	return data
}

// BenchmarkIngest measures 500-row batches through the HTTP handler next to
// the raw floor: the same 500 clients and 500 cards inserted in one
// transaction with the best plain method of the engine.
func BenchmarkIngest(b *testing.B) {
	for _, e := range []db.Engine{db.SQLite, db.Postgres} {
		b.Run(string(e), func(b *testing.B) {
			b.Run("raw_floor", func(b *testing.B) {
				store, _, res := benchServer(b, e)
				for i := 0; i < b.N; i++ {
					rawFloor(b, store, res, 1_000_000+i*500)
				}
			})
			b.Run("all_new", func(b *testing.B) {
				_, srv, _ := benchServer(b, e)
				b.ResetTimer()
				for i := 0; i < b.N; i++ {
					post(b, srv, "/api/v2/public/leadflow/ingest/"+webNode+"/batch", batchBody(1_000_000+i*500, 500, false), 200)
				}
			})
			b.Run("all_existing_update", func(b *testing.B) {
				_, srv, _ := benchServer(b, e)
				body := batchBody(0, 500, false)
				post(b, srv, "/api/v2/public/leadflow/ingest/"+webNode+"/batch", body, 200)
				b.ResetTimer()
				for i := 0; i < b.N; i++ {
					post(b, srv, "/api/v2/public/leadflow/ingest/"+webNode+"/batch", body, 200)
				}
			})
			b.Run("mixed_10pct_failing", func(b *testing.B) {
				_, srv, _ := benchServer(b, e)
				post(b, srv, "/api/v2/public/leadflow/ingest/"+webNode+"/batch", batchBody(0, 250, false), 200)
				b.ResetTimer()
				for i := 0; i < b.N; i++ {
					// half existing, half new, every tenth row failing
					post(b, srv, "/api/v2/public/leadflow/ingest/"+webNode+"/batch", batchBody(i*250, 500, true), 200)
				}
			})
		})
	}
}

// rawFloor inserts 500 clients and 500 cards in one transaction with no
// Frontdesk code in the path: prepared statements on SQLite, one multi-row
// unnest statement per table on PostgreSQL.
func rawFloor(b *testing.B, store *db.DB, res *workspace.Result, base int) {
	ctx := context.Background()
	acct, pipe, stage := res.Account.ID, res.IDs.Pipelines["sales"], res.IDs.Stages["sales/new"]
	now := time.Now().UnixMicro()
	tx, err := store.SQL().BeginTx(ctx, nil)
	if err != nil {
		b.Fatal(err)
	}
	defer tx.Rollback()
	if store.Engine() == db.Postgres {
		nat := make([]string, 500)
		first := make([]string, 500)
		email := make([]string, 500)
		for i := range nat {
			nat[i] = fmt.Sprintf("%09d", 600000000+base+i)
			first[i] = "Cliente"
			email[i] = fmt.Sprintf("c%d@example.com", base+i)
		}
		rows, err := tx.QueryContext(ctx, `INSERT INTO clients (account_id, first_name, phone_cc, phone_national, email, email_norm, data, created_at, updated_at)
			SELECT $1, f, 34, n, e, e, '{}', $2, $2 FROM unnest($3::text[], $4::text[], $5::text[]) AS t(f, n, e) RETURNING id`, acct, now, first, nat, email)
		if err != nil {
			b.Fatal(err)
		}
		ids := make([]int64, 0, 500)
		for rows.Next() {
			var id int64
			rows.Scan(&id)
			ids = append(ids, id)
		}
		rows.Close()
		if _, err := tx.ExecContext(ctx, `INSERT INTO cards (account_id, pipeline_id, client_id, stage_id, added_at, stage_entered_at, updated_at)
			SELECT $1, $2, c, $3, $4, $4, $4 FROM unnest($5::bigint[]) AS t(c)`, acct, pipe, stage, now, ids); err != nil {
			b.Fatal(err)
		}
	} else {
		cs, err := tx.PrepareContext(ctx, `INSERT INTO clients (account_id, first_name, phone_cc, phone_national, email, email_norm, data, created_at, updated_at) VALUES (?, 'Cliente', 34, ?, ?, ?, '{}', ?, ?)`)
		if err != nil {
			b.Fatal(err)
		}
		ks, err := tx.PrepareContext(ctx, `INSERT INTO cards (account_id, pipeline_id, client_id, stage_id, added_at, stage_entered_at, updated_at) VALUES (?, ?, ?, ?, ?, ?, ?)`)
		if err != nil {
			b.Fatal(err)
		}
		for i := 0; i < 500; i++ {
			e := fmt.Sprintf("c%d@example.com", base+i)
			r, err := cs.ExecContext(ctx, acct, fmt.Sprintf("%09d", 600000000+base+i), e, e, now, now)
			if err != nil {
				b.Fatal(err)
			}
			id, _ := r.LastInsertId()
			if _, err := ks.ExecContext(ctx, acct, pipe, id, stage, now, now, now); err != nil {
				b.Fatal(err)
			}
		}
	}
	if err := tx.Commit(); err != nil {
		b.Fatal(err)
	}
}

// BenchmarkServices measures GET /calendar/services through the whole
// handler chain (access log to io.Discard), the read the load run compares
// with plain net/http. "limited" runs with the rate limiter on (the account
// given a limit too high to reach, so every request still takes a token and
// writes the headers); "off" with the limiter off, for
// the limiter's cost (under 5 % of a request).
func BenchmarkServices(b *testing.B) {
	for _, e := range []db.Engine{db.SQLite, db.Postgres} {
		for _, limiter := range []string{"limited", "off"} {
			b.Run(string(e)+"/"+limiter, func(b *testing.B) {
				store, _, res := benchServer(b, e)
				if _, err := store.Exec(context.Background(), `UPDATE accounts SET rate_per_second = 1e12, rate_burst = 1000000000 WHERE id = ?`, res.Account.ID); err != nil {
					b.Fatal(err)
				}
				srv := httpapi.NewServer(httpapi.Config{DB: store, Clock: clock.System{}, Log: slog.New(slog.NewTextHandler(io.Discard, nil)),
					RateLimit: httpapi.RateLimit{Off: limiter == "off"}})
				benchServices(b, srv)
			})
		}
	}
}

func benchServices(b *testing.B, srv *httpapi.Server) {
	b.ReportAllocs()
	b.ResetTimer()
	b.RunParallel(func(pb *testing.PB) {
		for pb.Next() {
			req := httptest.NewRequest("GET", "/api/v2/public/calendar/services", nil)
			req.Header.Set("Authorization", "Bearer "+acmeKey)
			rec := httptest.NewRecorder()
			srv.ServeHTTP(rec, req)
			if rec.Code != 200 {
				b.Fatalf("status %d: %s", rec.Code, rec.Body.String())
			}
		}
	})
}

// BenchmarkListServices reads GET /calendar/services through the whole
// middleware chain (request id, access log, metrics, key check, rate limit)
// from parallel clients, on an unlimited account.
func BenchmarkListServices(b *testing.B) {
	for _, e := range []db.Engine{db.SQLite, db.Postgres} {
		b.Run(string(e), func(b *testing.B) {
			store, srv, _ := benchServer(b, e)
			if _, err := (&workspace.Applier{DB: store, Now: time.Now}).Apply(context.Background(),
				[]byte(`account: {slug: acme, limits: {requests_per_second: 0}}`)); err != nil {
				b.Fatal(err)
			}
			benchServices(b, srv)
		})
	}
}
