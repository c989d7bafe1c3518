package db_test

import (
	"context"
	"slices"
	"testing"

	"github.com/frontdesk/frontdesk/internal/db"
	"github.com/frontdesk/frontdesk/internal/db/dbtest"
)

// TestReserveIDsOf reserves ids of several tables at once: each
// reservation gets its own count of ascending ids, none handed out twice
// across calls, and a table asked for none gets none.
func TestReserveIDsOf(t *testing.T) {
	tests := []struct {
		name string
		want []db.Reservation
	}{
		{"two tables", []db.Reservation{{Table: "clients", N: 3}, {Table: "cards", N: 2}}},
		{"one table empty", []db.Reservation{{Table: "clients", N: 2}, {Table: "cards", N: 0}}},
		{"all empty", []db.Reservation{{Table: "clients"}, {Table: "cards"}}},
		{"one", []db.Reservation{{Table: "outbox", N: 4}}},
	}
	dbtest.Engines(t, func(t *testing.T, store *db.DB) {
		ctx := context.Background()
		for _, tt := range tests {
			t.Run(tt.name, func(t *testing.T) {
				err := store.Transact(ctx, func(tx *db.Tx) error {
					got, err := tx.Dialect().ReserveIDsOf(ctx, tx, tt.want...)
					if err != nil {
						return err
					}
					if len(got) != len(tt.want) {
						t.Fatalf("%d answers for %d reservations", len(got), len(tt.want))
					}
					for i, w := range tt.want {
						if len(got[i]) != w.N || !slices.IsSorted(got[i]) || len(slices.Compact(slices.Clone(got[i]))) != w.N {
							t.Errorf("%s: got %v, want %d distinct ascending ids", w.Table, got[i], w.N)
						}
						if w.N == 0 {
							continue
						}
						// A later reservation of the same table in the
						// transaction never repeats them, inserted or not
						// (PostgreSQL: the sequence; SQLite: the transaction
						// remembers what it handed out).
						again, err := tx.Dialect().ReserveIDs(ctx, tx, w.Table, 1)
						if err != nil {
							return err
						}
						if slices.Contains(got[i], again[0]) {
							t.Errorf("%s: id %d handed out twice", w.Table, again[0])
						}
					}
					return nil
				})
				if err != nil {
					t.Fatal(err)
				}
			})
		}
	})
}
