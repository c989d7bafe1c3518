package db_test

import (
	"context"
	"database/sql"
	"log/slog"
	"strings"
	"testing"
	"time"

	"github.com/frontdesk/frontdesk/internal/db"
	"github.com/frontdesk/frontdesk/internal/db/dbtest"
	"github.com/frontdesk/frontdesk/internal/logtest"
)

// InsertMany writes every kind of value it takes, NULLs included, on both
// engines: on PostgreSQL a few rows go as one unnest INSERT (columns
// without a NULL as plain arrays, columns with one as arrays of pointers),
// and in a transaction 50 or more by COPY, each value put in the same form.
func TestInsertManyValues(t *testing.T) {
	dbtest.Engines(t, func(t *testing.T, base *db.DB) {
		for _, tc := range []struct {
			name   string
			copies int // of the four probe rows
			copy   bool
		}{
			{"unnest", 1, false},
			{"copy", 15, true},
		} {
			t.Run(tc.name, func(t *testing.T) {
				ctx := context.Background()
				logged := &logtest.Buffer{}
				store, err := db.Open(ctx, dbtest.DSN(t, base.Engine()), db.Options{SlowQuery: time.Nanosecond,
					Log: slog.New(slog.NewTextHandler(logged, nil))})
				if err != nil {
					t.Fatal(err)
				}
				defer store.Close()
				if _, err := store.Exec(ctx, `CREATE TABLE bulk_probe (id BIGINT, n BIGINT, f DOUBLE PRECISION, b BOOLEAN, t TEXT, dense TEXT)`); err != nil {
					t.Fatal(err)
				}
				seven := int64(7)
				var none *int64
				probe := [][]any{
					{5, 1.5, true, "a", "x"},
					{nil, nil, nil, nil, "y"},
					{&seven, int64(2), false, []byte("b"), "z"},
					{none, 3, true, 42, "w"},
				}
				var rows [][]any
				for i := 0; i < tc.copies*len(probe); i++ {
					rows = append(rows, append([]any{int64(i)}, probe[i%len(probe)]...))
				}
				err = store.Transact(ctx, func(tx *db.Tx) error {
					return db.InsertMany(ctx, tx, `INSERT INTO bulk_probe (id, n, f, b, t, dense)`, rows, "")
				})
				if err != nil {
					t.Fatal(err)
				}
				type got struct {
					n sql.NullInt64
					f sql.NullFloat64
					b sql.NullBool
					t sql.NullString
					d string
				}
				want := []got{
					{sql.NullInt64{Int64: 5, Valid: true}, sql.NullFloat64{Float64: 1.5, Valid: true}, sql.NullBool{Bool: true, Valid: true}, sql.NullString{String: "a", Valid: true}, "x"},
					{d: "y"},
					{sql.NullInt64{Int64: 7, Valid: true}, sql.NullFloat64{Float64: 2, Valid: true}, sql.NullBool{Valid: true}, sql.NullString{String: "b", Valid: true}, "z"},
					{f: sql.NullFloat64{Float64: 3, Valid: true}, b: sql.NullBool{Bool: true, Valid: true}, t: sql.NullString{String: "42", Valid: true}, d: "w"},
				}
				r, err := store.Query(ctx, `SELECT n, f, b, t, dense FROM bulk_probe ORDER BY id`)
				if err != nil {
					t.Fatal(err)
				}
				defer r.Close()
				i := 0
				for ; r.Next(); i++ {
					var g got
					if err := r.Scan(&g.n, &g.f, &g.b, &g.t, &g.d); err != nil {
						t.Fatal(err)
					}
					if g != want[i%len(want)] {
						t.Errorf("row %d = %+v, want %+v", i+1, g, want[i%len(want)])
					}
				}
				if i != len(rows) {
					t.Errorf("%d rows read back, want %d", i, len(rows))
				}
				copied := strings.Contains(logged.String(), "COPY bulk_probe")
				if wantCopy := tc.copy && store.Engine() == db.Postgres && !store.Dialect().Citus; copied != wantCopy {
					t.Errorf("COPY used: %v, want %v", copied, wantCopy)
				}
			})
		}
	})
}

// InsertManyCount counts only the rows written when ON CONFLICT skips
// others, on a distributed table of a Citus cluster too (where the
// statement's own count is the rows sent to the shards).
func TestInsertManyCountSkipsConflicts(t *testing.T) {
	dbtest.Engines(t, func(t *testing.T, store *db.DB) {
		ctx := context.Background()
		if _, err := store.Exec(ctx, `CREATE TABLE bulk_conflict (account_id BIGINT NOT NULL, id BIGINT NOT NULL, k TEXT NOT NULL, PRIMARY KEY (account_id, id))`); err != nil {
			t.Fatal(err)
		}
		if _, err := store.Exec(ctx, `CREATE UNIQUE INDEX bulk_conflict_k ON bulk_conflict (account_id, k)`); err != nil {
			t.Fatal(err)
		}
		if store.Dialect().Citus {
			if _, err := store.Exec(ctx, `SELECT create_distributed_table('bulk_conflict', 'account_id')`); err != nil {
				t.Fatal(err)
			}
		}
		const head, tail = `INSERT INTO bulk_conflict (account_id, id, k)`, `ON CONFLICT (account_id, k) DO NOTHING`
		for _, tc := range []struct {
			rows [][]any
			want int64
		}{
			{[][]any{{int64(1), int64(1), "a"}}, 1},
			{[][]any{{int64(1), int64(2), "a"}, {int64(1), int64(3), "b"}}, 1},
			{[][]any{{int64(1), int64(4), "a"}, {int64(1), int64(5), "b"}}, 0},
		} {
			var n int64
			err := store.Transact(ctx, func(tx *db.Tx) error {
				var err error
				n, err = db.InsertManyCount(ctx, tx, head, tc.rows, tail)
				return err
			})
			if err != nil {
				t.Fatal(err)
			}
			if n != tc.want {
				t.Errorf("%v: %d rows counted, want %d", tc.rows, n, tc.want)
			}
		}
	})
}
