package db

import (
	"errors"
	"strconv"
	"strings"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"

	"github.com/frontdesk/frontdesk/internal/jsontext"
)

// Dialect holds what differs between the engines. Everything else is shared.
type Dialect struct {
	Engine Engine
	// Citus is set on a Citus coordinator (docs/scale-out.md): its
	// distributed tables lock rows only in statements that reach one shard.
	Citus bool
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

// SkipLocked is the suffix for claiming queue rows without waiting. Citus
// takes no row locks in a SELECT spanning shards: there the claim's UPDATE,
// which re-checks its condition on each row it locks, is what keeps two
// claimers apart.
func (d Dialect) SkipLocked() string {
	if d.Engine == Postgres && !d.Citus {
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

// inList is a list bound to one `IN (?)` placeholder; the querier expands
// it for the engine.
type inList struct {
	ints []int64
	strs []string
	any  []any
	keys bool // InKeys
}

// In returns "(?)" and one argument holding vals, for `col IN (?)`. The
// querier expands it: on PostgreSQL `col IN (?)` becomes `col = ANY(?)`
// with one array parameter, so a 500-value lookup is one parameter, the
// statement text never depends on the list's length, and the planner uses
// the index (or, with stale statistics, a hashed array test) instead of
// comparing every row with 500 literals. On SQLite a list of ids or
// strings becomes `col IN (SELECT value FROM json_each(?))` with one JSON
// argument, so the statement stays prepared (docs/performance.md, "In
// lists on SQLite"); other lists, and NOT IN, get a placeholder per value.
func In[T any](vals []T) (string, []any) {
	l := inList{}
	switch v := any(vals).(type) {
	case []int64:
		l.ints = v
	case []string:
		l.strs = v
	default:
		for _, x := range vals {
			l.any = append(l.any, x)
		}
	}
	return "(?)", []any{l}
}

// InKeys is In for a lookup of keys through an index (ids, phones,
// e-mails): on PostgreSQL the planner is not shown the values (the array
// comes from an InitPlan), so it plans the index probe of a few keys
// whatever the list's length. Shown 500 e-mails, PostgreSQL 15 costs each
// probe as a random page read and scanned a table of 20,000-40,000 clients
// instead (9 ms against 1 ms, docs/performance.md, "Lookups"); below that
// size the scan and the probes cost about the same, above it the index wins
// either way. SQLite is as In.
func InKeys[T int64 | string](vals []T) (string, []any) {
	in, args := In(vals)
	l := args[0].(inList)
	l.keys = true
	return in, []any{l}
}

// hiddenArray is an array parameter of SQL type typ (bigint[], text[])
// that the planner is not shown: it comes from an InitPlan (InKeys).
func hiddenArray(typ string) string {
	return "CAST((SELECT CAST(? AS " + typ + ")) AS " + typ + ")"
}

// expand rewrites the placeholders bound to In lists. fixed says the
// rewritten text depends on q alone, not on the lists' lengths, so SQLite
// may keep it prepared.
func (d Dialect) expand(q string, args []any) (expanded string, out []any, fixed bool) {
	has := false
	for _, a := range args {
		if _, ok := a.(inList); ok {
			has = true
			break
		}
	}
	if !has {
		return q, args, true
	}
	var b strings.Builder
	out = make([]any, 0, len(args)+1)
	fixed = true
	n, inQuote, arrays := 0, false, false
	for i := 0; i < len(q); i++ {
		c := q[i]
		if c == '\'' {
			inQuote = !inQuote
		}
		if c != '?' || inQuote {
			b.WriteByte(c)
			continue
		}
		if n >= len(args) {
			b.WriteByte(c)
			continue
		}
		l, ok := args[n].(inList)
		n++
		if !ok {
			b.WriteByte('?')
			out = append(out, args[n-1])
			continue
		}
		if d.Engine == Postgres && (l.ints != nil || l.strs != nil) {
			if head, ok := anyForm(b.String()); ok {
				b.Reset()
				b.WriteString(head)
				arrays = true
				typ := "text[]"
				if l.ints != nil {
					typ = "bigint[]"
					out = append(out, l.ints)
				} else {
					out = append(out, l.strs)
				}
				if l.keys {
					b.WriteString(hiddenArray(typ))
				} else {
					b.WriteString("CAST(? AS " + typ + ")")
				}
				continue
			}
		}
		if d.Engine == SQLite && (l.ints != nil || l.strs != nil) && inForm(b.String()) {
			// One JSON argument instead of a placeholder per value: the
			// statement is parsed once and kept prepared, where 500
			// placeholders were parsed and bound one by one for every
			// batch; SQLite probes the index for each value as it does
			// for a list.
			b.WriteString("SELECT value FROM json_each(?)")
			out = append(out, l.jsonArray())
			continue
		}
		switch {
		default:
			fixed = false
			vals := l.any
			for _, v := range l.ints {
				vals = append(vals, v)
			}
			for _, v := range l.strs {
				vals = append(vals, v)
			}
			if len(vals) == 0 {
				b.WriteString("NULL")
				continue
			}
			b.WriteString(strings.TrimSuffix(strings.Repeat("?,", len(vals)), ","))
			out = append(out, vals...)
		}
	}
	out = append(out, args[n:]...)
	if arrays {
		// A statement with an array parameter is planned for the array it
		// is given. pgx would otherwise prepare and cache it, and after five
		// runs PostgreSQL may switch to a generic plan that does not know
		// the array: a batch lookup `phone_national = ANY($2)` then filtered
		// every client of the account against 500 values one by one (100 ms
		// instead of 2 ms at 10,000 clients). Every other statement keeps
		// pgx's cached prepared statement and PostgreSQL's plan cache, which
		// halves the cost of a short read such as GET /calendar/services.
		out = append([]any{pgx.QueryExecModeCacheDescribe}, out...)
	}
	return b.String(), out, fixed
}

// inForm says whether a query prefix ends in "IN (" (not "NOT IN ("):
// there a list may be a subquery, which yields no row for an empty list as
// PostgreSQL's `= ANY('{}')` does.
func inForm(prefix string) bool {
	p := strings.TrimRight(prefix, " \t\n")
	if !strings.HasSuffix(p, "(") {
		return false
	}
	upper := strings.ToUpper(strings.TrimRight(strings.TrimSuffix(p, "("), " \t\n"))
	return strings.HasSuffix(upper, " IN") && !strings.HasSuffix(upper, " NOT IN")
}

// jsonArray is the list as a JSON array, for SQLite's json_each.
func (l inList) jsonArray() string {
	b := make([]byte, 0, 16*(len(l.ints)+len(l.strs))+2)
	b = append(b, '[')
	for i, v := range l.ints {
		if i > 0 {
			b = append(b, ',')
		}
		b = strconv.AppendInt(b, v, 10)
	}
	for i, v := range l.strs {
		if i > 0 {
			b = append(b, ',')
		}
		b = jsontext.AppendString(b, v, false)
	}
	return string(append(b, ']'))
}

// anyForm rewrites a query prefix ending in "IN (" into one ending in
// "= ANY(" (or "NOT IN (" into "<> ALL("), for an array parameter.
func anyForm(prefix string) (string, bool) {
	p := strings.TrimRight(prefix, " \t\n")
	if !strings.HasSuffix(p, "(") {
		return "", false
	}
	p = strings.TrimRight(strings.TrimSuffix(p, "("), " \t\n")
	upper := strings.ToUpper(p)
	switch {
	case strings.HasSuffix(upper, " NOT IN"):
		return p[:len(p)-len(" NOT IN")] + " <> ALL(", true
	case strings.HasSuffix(upper, " IN"):
		return p[:len(p)-len(" IN")] + " = ANY(", true
	}
	return "", false
}

// BelowNewest is the condition keeping a delete away from table's newest
// row on SQLite, which numbers a table's rows from its highest id and would
// hand a deleted newest id out again; PostgreSQL's sequences never reuse
// one, so there it is empty (and no statement reads the whole table's
// highest id).
func (d Dialect) BelowNewest(table string) string {
	if d.Engine == SQLite {
		return " AND id < (SELECT MAX(id) FROM " + table + ")"
	}
	return ""
}
