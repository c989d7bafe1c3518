package db

import (
	"context"
	"fmt"
	"strings"
)

// ReserveIDs returns n fresh ids for table, so a batch can insert rows with
// known ids in one statement and never depend on the order of RETURNING.
// On SQLite the caller's transaction holds the write lock (BEGIN IMMEDIATE),
// so max(id) cannot move under it (inserting the ids moves sqlite_sequence
// past them); on PostgreSQL the identity sequence hands
// out ids that no other transaction will get.
func (d Dialect) ReserveIDs(ctx context.Context, q Querier, table string, n int) ([]int64, error) {
	ids, err := d.ReserveIDsOf(ctx, q, Reservation{Table: table, N: n})
	if err != nil {
		return nil, err
	}
	return ids[0], nil
}

// Reservation asks ReserveIDsOf for N ids of Table.
type Reservation struct {
	Table string
	N     int
}

// ReserveIDsOf is ReserveIDs for several tables at once: one round trip on
// PostgreSQL, whatever the number of tables (a batch that creates clients
// also needs their cards' ids). The ids of each reservation are ascending,
// at index i of the answer.
func (d Dialect) ReserveIDsOf(ctx context.Context, q Querier, want ...Reservation) ([][]int64, error) {
	out := make([][]int64, len(want))
	if d.Engine != Postgres {
		for i, w := range want {
			ids, err := d.reserveSQLite(ctx, q, w.Table, w.N)
			if err != nil {
				return nil, err
			}
			out[i] = ids
		}
		return out, nil
	}
	// One branch per table; each resolves its sequence once (an InitPlan),
	// not once per id, and tags its ids with the reservation's index.
	var parts []string
	var args []any
	var names []string
	for i, w := range want {
		if w.N <= 0 {
			continue
		}
		out[i] = make([]int64, 0, w.N)
		parts = append(parts, fmt.Sprintf(`SELECT %d, nextval((SELECT pg_get_serial_sequence('%s', 'id')::regclass)) FROM generate_series(1, ?)`, i, w.Table))
		args = append(args, w.N)
		names = append(names, w.Table)
	}
	if len(parts) == 0 {
		return out, nil
	}
	rows, err := q.Query(ctx, strings.Join(parts, " UNION ALL "), args...)
	if err != nil {
		return nil, fmt.Errorf("reserve %s ids: %w", strings.Join(names, " and "), err)
	}
	defer rows.Close()
	for rows.Next() {
		var (
			i  int
			id int64
		)
		if err := rows.Scan(&i, &id); err != nil {
			return nil, err
		}
		out[i] = append(out[i], id)
	}
	return out, rows.Err()
}

// reserveSQLite hands out the n ids above the table's highest id and, for
// a table with AUTOINCREMENT (migration 00021), above the highest it ever
// had: an id deleted before is never handed out again. In a transaction
// they are also above the ids it reserved before and has not inserted yet,
// so two reservations of one table never overlap.
func (d Dialect) reserveSQLite(ctx context.Context, q Querier, table string, n int) ([]int64, error) {
	if n <= 0 {
		return nil, nil
	}
	var top int64
	if err := q.QueryRow(ctx, fmt.Sprintf(`SELECT MAX(COALESCE((SELECT MAX(id) FROM %s), 0), COALESCE((SELECT seq FROM sqlite_sequence WHERE name = '%s'), 0))`, table, table)).Scan(&top); err != nil {
		return nil, fmt.Errorf("reserve %s ids: %w", table, err)
	}
	if tx, ok := q.(*Tx); ok {
		if tx.reserved == nil {
			tx.reserved = map[string]int64{}
		}
		top = max(top, tx.reserved[table])
		tx.reserved[table] = top + int64(n)
	}
	ids := make([]int64, 0, n)
	for i := 1; i <= n; i++ {
		ids = append(ids, top+int64(i))
	}
	return ids, nil
}
