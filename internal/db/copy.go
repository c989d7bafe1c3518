package db

import (
	"context"
	"fmt"
	"strings"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/stdlib"
)

// copyMinRows is the fewest rows a plain bulk insert sends with COPY on
// PostgreSQL; fewer go in one unnest INSERT, a single round trip.
const copyMinRows = 50

// useCopy says whether InsertMany writes rows with COPY: inside a
// PostgreSQL transaction (only those keep their connection), not on
// Citus, rows that need no ON CONFLICT clause, and enough of them
// (docs/performance.md, "COPY for plain inserts").
func useCopy(q Querier, tail string, n int) (*Tx, bool) {
	tx, ok := q.(*Tx)
	if !ok || tx.conn == nil || tx.db.dialect.Citus || tail != "" || n < copyMinRows {
		return nil, false
	}
	return tx, true
}

// copyFrom writes rows into table's columns cols with COPY on the
// transaction's connection, each value put in its column's form by the
// rule the unnest arrays follow (columnValue).
func (tx *Tx) copyFrom(ctx context.Context, table string, cols []string, rows [][]any) (int64, error) {
	types, err := pgColumnTypes(ctx, tx, table)
	if err != nil {
		return 0, err
	}
	src := &copyRows{rows: rows, types: make([]string, len(cols)), vals: make([]any, len(cols))}
	for j, c := range cols {
		t, ok := types[c]
		if !ok {
			return 0, fmt.Errorf("InsertMany: %s has no column %s", table, c)
		}
		src.types[j] = t
	}
	defer tx.db.slow.since(time.Now(), "COPY "+table+" ("+strings.Join(cols, ", ")+") FROM STDIN")
	var n int64
	err = tx.conn.Raw(func(driverConn any) error {
		c, ok := driverConn.(*stdlib.Conn)
		if !ok {
			return fmt.Errorf("InsertMany: COPY needs a pgx connection, not %T", driverConn)
		}
		var err error
		n, err = c.Conn().CopyFrom(ctx, pgx.Identifier{table}, cols, src)
		return err
	})
	return n, err
}

// copyRows feeds rows to COPY, one reused slice of values at a time.
type copyRows struct {
	rows  [][]any
	types []string
	vals  []any
	next  int
}

func (c *copyRows) Next() bool {
	c.next++
	return c.next <= len(c.rows)
}

func (c *copyRows) Values() ([]any, error) {
	r := c.rows[c.next-1]
	for j, typ := range c.types {
		v, err := columnValue(r[j], typ)
		if err != nil {
			return nil, err
		}
		c.vals[j] = v
	}
	return c.vals, nil
}

func (c *copyRows) Err() error { return nil }
