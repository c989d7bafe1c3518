package db

import (
	"context"
	"database/sql"
	"fmt"
	"regexp"
	"strings"
	"sync"
)

// InsertMany inserts rows with the engine's best bulk method, so a 500-row
// batch costs one statement per table:
//
//   - PostgreSQL: one `INSERT … SELECT * FROM unnest($1::type[], …)` with one
//     array parameter per column — the planner sees a handful of parameters
//     instead of thousands of VALUES placeholders; inside a transaction, 50
//     rows or more without a tail go by COPY instead, which writes a page's
//     rows with one WAL record (copy.go);
//   - SQLite: a prepared statement of 50 rows executed inside the caller's
//     transaction. SQLite runs in-process, so there is no round trip to
//     save; what costs is parsing and each statement's bind-and-step
//     through database/sql, and a prepared statement is parsed once per
//     connection (a 7,500-placeholder VALUES list is parsed every time).
//
// head is "INSERT INTO t (a, b, c)"; tail is appended (e.g. "ON CONFLICT …
// DO NOTHING"). Rows must have one value per column.
func InsertMany(ctx context.Context, q Querier, head string, rows [][]any, tail string) error {
	_, err := InsertManyCount(ctx, q, head, rows, tail)
	return err
}

// InsertManyCount is InsertMany and the number of rows inserted (fewer than
// len(rows) when tail lets conflicting rows be skipped).
func InsertManyCount(ctx context.Context, q Querier, head string, rows [][]any, tail string) (int64, error) {
	if len(rows) == 0 {
		return 0, nil
	}
	table, cols, err := parseInsertHead(head)
	if err != nil {
		return 0, err
	}
	if q.Dialect().Engine == Postgres {
		var n int64
		if tx, ok := useCopy(q, tail, len(rows)); ok {
			n, err = tx.copyFrom(ctx, table, cols, rows)
		} else {
			n, err = insertUnnest(ctx, q, table, cols, rows, tail)
		}
		if err == nil {
			grew(q, table, n)
		}
		return n, err
	}
	return insertPrepared(ctx, q, head, len(cols), rows, tail)
}

var insertHeadRE = regexp.MustCompile(`(?is)^\s*INSERT\s+INTO\s+([a-z_][a-z0-9_]*)\s*\(([^)]*)\)\s*$`)

func parseInsertHead(head string) (string, []string, error) {
	m := insertHeadRE.FindStringSubmatch(head)
	if m == nil {
		return "", nil, fmt.Errorf("InsertMany: cannot read %q", head)
	}
	var cols []string
	for _, c := range strings.Split(m[2], ",") {
		cols = append(cols, strings.TrimSpace(c))
	}
	return m[1], cols, nil
}

// sqliteRowsPerInsert is how many rows one SQLite INSERT carries: one
// statement per row costs a bind-and-step round through database/sql each,
// and a multi-row VALUES list amortises it (SQLite allows 32,766 variables).
const sqliteRowsPerInsert = 50

// insertPrepared runs the rows as statements of sqliteRowsPerInsert rows and
// one of the rest. Exec keeps each statement prepared on each connection
// (DB.prepared), so a 50-row statement is parsed once per connection, not
// once per call.
func insertPrepared(ctx context.Context, q Querier, head string, ncols int, rows [][]any, tail string) (int64, error) {
	one := "(" + strings.TrimSuffix(strings.Repeat("?,", ncols), ",") + ")"
	statement := func(n int) string {
		stmt := head + " VALUES " + strings.TrimSuffix(strings.Repeat(one+",", n), ",")
		if tail != "" {
			stmt += " " + tail
		}
		return stmt
	}
	per := min(sqliteRowsPerInsert, len(rows))
	full := statement(per)
	// modernc's driver watches a cancellable context with a goroutine per
	// statement; the batch checks the context itself between statements.
	quiet := context.WithoutCancel(ctx)
	args := make([]any, 0, per*ncols)
	var inserted int64
	for start := 0; start < len(rows); start += per {
		if err := ctx.Err(); err != nil {
			return inserted, err
		}
		part := rows[start:min(start+per, len(rows))]
		args = args[:0]
		for _, r := range part {
			args = append(args, r...)
		}
		stmt := full
		if len(part) != per {
			stmt = statement(len(part))
		}
		res, err := q.Exec(quiet, stmt, args...)
		if err != nil {
			return inserted, err
		}
		n, err := res.RowsAffected()
		if err != nil {
			return inserted, err
		}
		inserted += n
	}
	return inserted, nil
}

// columnTypes caches each table's column types on PostgreSQL (the unnest
// arrays need them; the schema only changes with a migration, which restarts
// the process).
var columnTypes sync.Map // "schema.table" -> map[column]type

// currentSchema is the schema unqualified table names resolve to, read once
// per pool (a round trip per bulk insert otherwise).
func currentSchema(ctx context.Context, q Querier) (string, error) {
	store := handleOf(q)
	if store == nil {
		var schema string
		err := q.QueryRow(ctx, `SELECT current_schema()`).Scan(&schema)
		return schema, err
	}
	store.schemaMu.Lock()
	defer store.schemaMu.Unlock()
	if store.schema == "" {
		var schema sql.NullString
		if err := q.QueryRow(ctx, `SELECT current_schema()`).Scan(&schema); err != nil {
			return "", err
		}
		store.schema = schema.String // cached once known
	}
	return store.schema, nil
}

func pgColumnTypes(ctx context.Context, q Querier, table string) (map[string]string, error) {
	schema, err := currentSchema(ctx, q)
	if err != nil {
		return nil, err
	}
	if v, ok := columnTypes.Load(schema + "." + table); ok {
		return v.(map[string]string), nil
	}
	rows, err := q.Query(ctx, `SELECT column_name, data_type FROM information_schema.columns WHERE table_schema = ? AND table_name = ?`, schema, table)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	types := map[string]string{}
	for rows.Next() {
		var c, t string
		if err := rows.Scan(&c, &t); err != nil {
			return nil, err
		}
		types[c] = t
	}
	if err := rows.Err(); err != nil {
		return nil, err
	}
	columnTypes.Store(schema+"."+table, types)
	return types, nil
}

func insertUnnest(ctx context.Context, q Querier, table string, cols []string, rows [][]any, tail string) (int64, error) {
	types, err := pgColumnTypes(ctx, q, table)
	if err != nil {
		return 0, err
	}
	args := make([]any, len(cols))
	casts := make([]string, len(cols))
	for j, c := range cols {
		t, ok := types[c]
		if !ok {
			return 0, fmt.Errorf("InsertMany: %s has no column %s", table, c)
		}
		arr, cast, err := column(rows, j, t)
		if err != nil {
			return 0, fmt.Errorf("InsertMany %s.%s: %w", table, c, err)
		}
		args[j], casts[j] = arr, "?::"+cast
	}
	stmt := fmt.Sprintf("INSERT INTO %s (%s) SELECT * FROM unnest(%s)", table, strings.Join(cols, ", "), strings.Join(casts, ", "))
	if tail != "" {
		stmt += " " + tail
	}
	if q.Dialect().Citus && tail != "" {
		// Citus reports the rows an INSERT … SELECT sent to the shards, not
		// those written: "INSERT 0 2" when ON CONFLICT skipped one of two.
		// What RETURNING gives back is right, so the rows are counted there.
		rows, err := q.Query(ctx, stmt+" RETURNING 1", args...)
		if err != nil {
			return 0, err
		}
		written, err := Int64s(rows)
		return int64(len(written)), err
	}
	res, err := q.Exec(ctx, stmt, args...)
	if err != nil {
		return 0, err
	}
	return res.RowsAffected()
}

// column gathers column j of rows into one array parameter: a plain slice
// when the column has no NULL, else a slice of pointers into one backing
// array (nil is NULL). Either way a column costs a few allocations, not one
// per value (a 500-row client insert has 7,000 values).
func column(rows [][]any, j int, typ string) (any, string, error) {
	switch typ {
	case "bigint", "integer", "smallint":
		return typedColumn[int64](rows, j, typ, "bigint[]")
	case "double precision", "real", "numeric":
		return typedColumn[float64](rows, j, typ, "double precision[]")
	case "boolean":
		return typedColumn[bool](rows, j, typ, "boolean[]")
	default:
		return typedColumn[string](rows, j, typ, "text[]")
	}
}

func typedColumn[T any](rows [][]any, j int, typ, cast string) (any, string, error) {
	vals := make([]T, len(rows))
	var nulls []bool
	for i, r := range rows {
		v, err := columnValue(r[j], typ)
		if err != nil {
			return nil, "", err
		}
		if v == nil {
			if nulls == nil {
				nulls = make([]bool, len(rows))
			}
			nulls[i] = true
			continue
		}
		vals[i] = v.(T)
	}
	if nulls == nil {
		return vals, cast, nil
	}
	out := make([]*T, len(vals))
	for i := range vals {
		if !nulls[i] {
			out[i] = &vals[i]
		}
	}
	return out, cast, nil
}

// columnValue is v as a bulk insert writes it into a column of SQL type
// typ: an int64, float64, bool or string, or nil for NULL. The one rule
// for both of PostgreSQL's bulk forms (unnest arrays and COPY). A value
// that already has its form is returned as it is, without a new
// allocation.
func columnValue(v any, typ string) (any, error) {
	switch typ {
	case "bigint", "integer", "smallint":
		switch x := v.(type) {
		case nil, int64:
			return v, nil
		case int:
			return int64(x), nil
		case int32:
			return int64(x), nil
		case *int64:
			if x == nil {
				return nil, nil
			}
			return *x, nil
		}
	case "double precision", "real", "numeric":
		switch x := v.(type) {
		case nil, float64:
			return v, nil
		case int64:
			return float64(x), nil
		case int:
			return float64(x), nil
		}
	case "boolean":
		switch v.(type) {
		case nil, bool:
			return v, nil
		}
	default: // text
		switch x := v.(type) {
		case nil, string:
			return v, nil
		case []byte:
			return string(x), nil
		default:
			return fmt.Sprint(x), nil
		}
	}
	return nil, fmt.Errorf("value %T for %s", v, typ)
}

// UpdateMany runs one `UPDATE table SET <set> … WHERE table.account_id =
// acctID AND table.id = v.id` for many rows of one account with per-row
// values v: on PostgreSQL v is an unnest of one array
// per column, on SQLite a VALUES list in a CTE. names and types (SQL types
// such as BIGINT, TEXT, DOUBLE PRECISION) describe the columns of v, the
// first being the row id; set refers to them as v.<name> and may hold `?`
// placeholders bound to setArgs.
func UpdateMany(ctx context.Context, tx *Tx, acctID int64, table string, names, types []string, set string, setArgs []any, values [][]any) error {
	_, err := updateMany(ctx, tx, acctID, table, names, types, set, setArgs, "", false, values)
	return err
}

// UpdateManyWhere is UpdateMany for the rows that also satisfy where (a
// predicate on the table, "" for none); it returns the ids it updated.
func UpdateManyWhere(ctx context.Context, tx *Tx, acctID int64, table string, names, types []string, set string, setArgs []any, where string, values [][]any) ([]int64, error) {
	return updateMany(ctx, tx, acctID, table, names, types, set, setArgs, where, true, values)
}

func updateMany(ctx context.Context, tx *Tx, acctID int64, table string, names, types []string, set string, setArgs []any, where string, returning bool, values [][]any) ([]int64, error) {
	if len(values) == 0 {
		return nil, nil
	}
	var ids []int64
	run := func(stmt string, args []any) error {
		if !returning {
			_, err := tx.Exec(ctx, stmt, args...)
			return err
		}
		rows, err := tx.Query(ctx, stmt+" RETURNING "+table+".id", args...)
		if err != nil {
			return err
		}
		more, err := Int64s(rows)
		ids = append(ids, more...)
		return err
	}
	if tx.Dialect().Engine == Postgres {
		stmt, args, err := UpdateManyStatement(acctID, table, names, types, set, setArgs, where, values)
		if err != nil {
			return nil, err
		}
		return ids, run(stmt, args)
	}
	cond := updateCond(table, where)
	per := min(tx.Dialect().MaxParams()/len(types)-len(setArgs), 500)
	tuple := "(" + strings.TrimSuffix(strings.Repeat("?, ", len(types)), ", ") + ")"
	for start := 0; start < len(values); start += per {
		part := values[start:min(start+per, len(values))]
		var b strings.Builder
		fmt.Fprintf(&b, "WITH v(%s) AS (VALUES ", strings.Join(names, ", "))
		args := make([]any, 0, len(part)*len(types)+len(setArgs))
		for i, r := range part {
			if i > 0 {
				b.WriteString(", ")
			}
			b.WriteString(tuple)
			args = append(args, r...)
		}
		fmt.Fprintf(&b, ") UPDATE %s SET %s FROM v WHERE %s", table, set, cond)
		if err := run(b.String(), append(append(args, setArgs...), acctID)); err != nil {
			return ids, err
		}
	}
	return ids, nil
}

// UpdateManyStatement is the statement UpdateManyWhere runs on
// PostgreSQL, without a RETURNING clause, and its arguments, for a caller
// that writes it into a larger statement (a data-modifying WITH query).
func UpdateManyStatement(acctID int64, table string, names, types []string, set string, setArgs []any, where string, values [][]any) (string, []any, error) {
	cond := updateCond(table, where)
	// The ids again, as an index condition the planner sees whatever it
	// estimates of the unnest: without it, a table whose statistics are
	// older than its rows is planned as a sequential scan. Not shown the
	// ids (an InitPlan, as InKeys): shown 500 of them, it read every row of
	// the account through the primary key's first column and filtered them
	// (7 ms of a 500-client UPDATE at 20,000 clients, against 1 ms for the
	// probes).
	cond += " AND " + table + ".id = ANY(" + hiddenArray("bigint[]") + ")"
	arrays := make([]any, len(names))
	params := make([]string, len(names))
	for j, t := range types {
		arr, cast, err := column(values, j, strings.ToLower(t))
		if err != nil {
			return "", nil, fmt.Errorf("UpdateMany %s.%s: %w", table, names[j], err)
		}
		arrays[j], params[j] = arr, "CAST(? AS "+cast+")"
	}
	stmt := fmt.Sprintf("UPDATE %s SET %s FROM unnest(%s) AS v(%s) WHERE %s",
		table, set, strings.Join(params, ", "), strings.Join(names, ", "), cond)
	return stmt, append(append(append([]any{}, setArgs...), arrays...), acctID, arrays[0]), nil
}

// updateCond is the WHERE clause of UpdateMany's statements. The account
// comes first: it keys the table (and, on Citus, picks the shard); its
// placeholder is the clause's first.
func updateCond(table, where string) string {
	cond := table + ".account_id = ? AND " + table + ".id = v.id"
	if where != "" {
		cond += " AND (" + where + ")"
	}
	return cond
}

// Int64s reads a one-column result of integers (ids a RETURNING clause or a
// lookup gave) and closes rows.
func Int64s(rows *sql.Rows) ([]int64, error) { return Column[int64](rows) }

// Column reads a one-column result and closes rows.
func Column[T any](rows *sql.Rows) ([]T, error) {
	defer rows.Close()
	var out []T
	for rows.Next() {
		var v T
		if err := rows.Scan(&v); err != nil {
			return out, err
		}
		out = append(out, v)
	}
	return out, rows.Err()
}

// QueryInt64s runs a query of one integer column and returns its values.
func QueryInt64s(ctx context.Context, q Querier, query string, args ...any) ([]int64, error) {
	rows, err := q.Query(ctx, query, args...)
	if err != nil {
		return nil, err
	}
	return Int64s(rows)
}
