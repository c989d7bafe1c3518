package db

import (
	"context"
	"errors"
	"fmt"
	"strconv"
	"strings"

	"github.com/jackc/pgx/v5/pgconn"
)

// Dialect holds what differs between the engines. Everything else is shared.
type Dialect struct {
	Engine Engine
}

// Rebind rewrites `?` placeholders into `$1, $2, …` for PostgreSQL. Question
// marks inside quoted literals are left alone.
func (d Dialect) Rebind(q string) string {
	if d.Engine != Postgres || !strings.Contains(q, "?") {
		return q
	}
	if v, ok := rebindCache.Load(q); ok {
		return v.(string)
	}
	var b strings.Builder
	b.Grow(len(q) + 16)
	n := 0
	inQuote := false
	for i := 0; i < len(q); i++ {
		c := q[i]
		switch {
		case c == '\'':
			inQuote = !inQuote
			b.WriteByte(c)
		case c == '?' && !inQuote:
			n++
			b.WriteByte('$')
			b.WriteString(strconv.Itoa(n))
		default:
			b.WriteByte(c)
		}
	}
	out := b.String()
	if len(q) < 4096 { // batch statements vary in length; don't cache them all
		rebindCache.Store(q, out)
	}
	return out
}

// MaxParams is the most bind parameters one statement may carry.
func (d Dialect) MaxParams() int {
	if d.Engine == Postgres {
		return 65535
	}
	return 32766
}

// ForUpdate is the row-lock suffix of a SELECT; SQLite has none (its write
// transactions already hold the database lock).
func (d Dialect) ForUpdate() string {
	if d.Engine == Postgres {
		return " FOR UPDATE"
	}
	return ""
}

// SkipLocked is the suffix for claiming queue rows without waiting.
func (d Dialect) SkipLocked() string {
	if d.Engine == Postgres {
		return " FOR UPDATE SKIP LOCKED"
	}
	return ""
}

// retryable reports errors worth re-running a whole transaction for.
func (d Dialect) retryable(err error) bool {
	var pgErr *pgconn.PgError
	if errors.As(err, &pgErr) {
		return pgErr.Code == "40001" || pgErr.Code == "40P01"
	}
	return false
}

// IsUniqueViolation reports a unique-constraint failure on either engine.
func IsUniqueViolation(err error) bool {
	var pgErr *pgconn.PgError
	if errors.As(err, &pgErr) {
		return pgErr.Code == "23505"
	}
	return err != nil && strings.Contains(err.Error(), "UNIQUE constraint failed")
}

// ReserveIDs returns n fresh ids for table, so a batch can insert rows with
// known ids in one statement and never depend on the order of RETURNING.
// On SQLite the caller's transaction holds the write lock (BEGIN IMMEDIATE),
// so max(id) cannot move under it; on PostgreSQL the identity sequence hands
// out ids that no other transaction will get.
func (d Dialect) ReserveIDs(ctx context.Context, q Querier, table string, n int) ([]int64, error) {
	if n == 0 {
		return nil, nil
	}
	ids := make([]int64, 0, n)
	if d.Engine == Postgres {
		rows, err := q.Query(ctx, fmt.Sprintf(`SELECT nextval(pg_get_serial_sequence('%s', 'id')) FROM generate_series(1, ?)`, table), n)
		if err != nil {
			return nil, fmt.Errorf("reserve %s ids: %w", table, err)
		}
		defer rows.Close()
		for rows.Next() {
			var id int64
			if err := rows.Scan(&id); err != nil {
				return nil, err
			}
			ids = append(ids, id)
		}
		return ids, rows.Err()
	}
	var max int64
	if err := q.QueryRow(ctx, fmt.Sprintf(`SELECT COALESCE(MAX(id), 0) FROM %s`, table)).Scan(&max); err != nil {
		return nil, fmt.Errorf("reserve %s ids: %w", table, err)
	}
	for i := 1; i <= n; i++ {
		ids = append(ids, max+int64(i))
	}
	return ids, nil
}

// InsertMany inserts rows with one multi-row VALUES statement per chunk of
// at most MaxParams parameters: a 500-row batch is one or two round trips on
// either engine. head is "INSERT INTO t (a, b)"; tail is appended to each
// statement (e.g. "ON CONFLICT DO NOTHING").
func InsertMany(ctx context.Context, q Querier, head string, rows [][]any, tail string) error {
	if len(rows) == 0 {
		return nil
	}
	cols := len(rows[0])
	per := q.Dialect().MaxParams() / cols
	if per > 1000 {
		per = 1000
	}
	tuple := "(" + strings.TrimSuffix(strings.Repeat("?,", cols), ",") + ")"
	for start := 0; start < len(rows); start += per {
		end := min(start+per, len(rows))
		var b strings.Builder
		b.WriteString(head)
		b.WriteString(" VALUES ")
		args := make([]any, 0, (end-start)*cols)
		for i := start; i < end; i++ {
			if i > start {
				b.WriteByte(',')
			}
			b.WriteString(tuple)
			args = append(args, rows[i]...)
		}
		if tail != "" {
			b.WriteByte(' ')
			b.WriteString(tail)
		}
		if _, err := q.Exec(ctx, b.String(), args...); err != nil {
			return err
		}
	}
	return nil
}

// In returns "(?,?,?)" and the args for an IN list of values.
func In[T any](vals []T) (string, []any) {
	if len(vals) == 0 {
		return "(NULL)", nil
	}
	args := make([]any, len(vals))
	for i, v := range vals {
		args[i] = v
	}
	return "(" + strings.TrimSuffix(strings.Repeat("?,", len(vals)), ",") + ")", args
}
