// Package db opens Frontdesk's store on SQLite or PostgreSQL and is the
// dialect seam between them: queries are written once, with `?`
// placeholders, and rebound for the engine; the few statements that differ
// (DDL types, id reservation, row locks, advisory locks) are methods of
// Dialect. Timestamps are stored as BIGINT microseconds since the Unix epoch
// on both engines so comparisons, indexes and scans behave identically.
package db

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"log/slog"
	"net/url"
	"path/filepath"
	"strings"
	"sync"
	"time"

	_ "github.com/jackc/pgx/v5/stdlib" // registers the "pgx" driver
	_ "modernc.org/sqlite"             // registers the "sqlite" driver
)

// Engine names a storage engine.
type Engine string

const (
	SQLite   Engine = "sqlite"
	Postgres Engine = "postgres"
)

// DB is an open store. It is safe for concurrent use.
type DB struct {
	sql     *sql.DB
	dialect Dialect
	dsn     string
	slow    slowLog
	// writers queues this process's SQLite write transactions (nil on
	// PostgreSQL); busy is how long one may wait for its turn.
	writers chan struct{}
	busy    time.Duration
	stmts   stmtCache
	// schema is PostgreSQL's current_schema(), read once: the search path
	// comes with the DSN and never changes for a pool.
	schemaMu sync.Mutex
	schema   string
	// local holds process-local state that belongs to this handle (the
	// catalogue caches of internal/readcache): never shared by two handles.
	local sync.Map
}

// Options tune Open.
type Options struct {
	// BusyTimeout is how long a SQLite writer waits for the write lock.
	BusyTimeout time.Duration
	// MaxOpenConns caps the pool (0: engine default).
	MaxOpenConns int
	// SlowQuery, when positive, logs every statement that takes longer to
	// Log at warning level (a plan gone wrong shows up in the server's log
	// before it shows up in a customer's timeouts).
	SlowQuery time.Duration
	Log       *slog.Logger
}

// slowLog reports statements slower than its threshold.
type slowLog struct {
	threshold time.Duration
	log       *slog.Logger
}

// since logs q when it started long enough ago; call it deferred.
func (s slowLog) since(start time.Time, q string) {
	if s.threshold <= 0 || s.log == nil {
		return
	}
	if d := time.Since(start); d >= s.threshold {
		q = strings.Join(strings.Fields(q), " ")
		if len(q) > 300 {
			q = q[:300] + "…"
		}
		s.log.Warn("slow query", "ms", float64(d.Microseconds())/1000, "query", q)
	}
}

// IsPostgresDSN reports whether dsn names a PostgreSQL database.
func IsPostgresDSN(dsn string) bool {
	return strings.HasPrefix(dsn, "postgres://") || strings.HasPrefix(dsn, "postgresql://")
}

// Open connects to dsn: a postgres:// URL or a SQLite file path. It does not
// migrate; call Migrate.
func Open(ctx context.Context, dsn string, opt Options) (*DB, error) {
	if opt.BusyTimeout == 0 {
		opt.BusyTimeout = 60 * time.Second
	}
	var (
		sqldb *sql.DB
		d     Dialect
		err   error
	)
	if IsPostgresDSN(dsn) {
		d = Dialect{Engine: Postgres}
		sqldb, err = sql.Open("pgx", dsn)
		if err != nil {
			return nil, fmt.Errorf("open postgres: %w", err)
		}
		n := opt.MaxOpenConns
		if n == 0 {
			n = 20
		}
		sqldb.SetMaxOpenConns(n)
		sqldb.SetMaxIdleConns(n)
		sqldb.SetConnMaxIdleTime(5 * time.Minute)
	} else {
		d = Dialect{Engine: SQLite}
		if err := secureSQLiteFiles(sqlitePath(dsn), opt.Log); err != nil {
			return nil, fmt.Errorf("open sqlite: %w", err)
		}
		sqldb, err = sql.Open("sqlite", sqliteDSN(dsn, opt.BusyTimeout))
		if err != nil {
			return nil, fmt.Errorf("open sqlite: %w", err)
		}
		n := opt.MaxOpenConns
		if n == 0 {
			n = 8
		}
		sqldb.SetMaxOpenConns(n)
		sqldb.SetMaxIdleConns(n)
	}
	db := &DB{sql: sqldb, dialect: d, dsn: dsn, slow: slowLog{opt.SlowQuery, opt.Log}, busy: opt.BusyTimeout}
	if d.Engine == SQLite {
		db.writers = make(chan struct{}, 1)
	}
	pingCtx, cancel := context.WithTimeout(ctx, 10*time.Second)
	defer cancel()
	if err := sqldb.PingContext(pingCtx); err != nil {
		sqldb.Close()
		return nil, fmt.Errorf("connect to %s: %w", d.Engine, err)
	}
	if db.dialect.Citus, err = db.Citus(pingCtx); err != nil {
		sqldb.Close()
		return nil, fmt.Errorf("connect to %s: %w", d.Engine, err)
	}
	return db, nil
}

// sqliteDSN turns a file path into a modernc DSN: WAL so readers never block
// the writer, foreign keys on, and every transaction opened with BEGIN
// IMMEDIATE so concurrent writers queue on the busy timeout instead of failing
// with SQLITE_BUSY when a read lock is upgraded. Each connection may cache up
// to 32 MiB of pages (the default is 2 MiB): at a million clients a 500-row
// batch touches pages all over the clients table and its indexes, and with
// the default cache it paid 50 % more for re-reading them. Statement
// journals (the undo of one multi-row statement inside a transaction) and
// temporary tables stay in memory instead of in temporary files, whose page
// writes were a tenth of a 500-row batch (docs/performance.md, "Statement
// journals in memory").
func sqliteDSN(path string, busy time.Duration) string {
	q := url.Values{}
	q.Add("_pragma", fmt.Sprintf("busy_timeout(%d)", busy.Milliseconds()))
	q.Add("_pragma", "journal_mode(WAL)")
	q.Add("_pragma", "foreign_keys(1)")
	q.Add("_pragma", "synchronous(NORMAL)")
	q.Add("_pragma", "cache_size(-32768)")
	q.Add("_pragma", "temp_store(MEMORY)")
	q.Set("_txlock", "immediate")
	if strings.HasPrefix(path, "file:") {
		sep := "?"
		if strings.Contains(path, "?") {
			sep = "&"
		}
		return path + sep + q.Encode()
	}
	return "file:" + filepath.ToSlash(path) + "?" + q.Encode()
}

// Close closes the pool.
func (db *DB) Close() error {
	db.stmts.close()
	return db.sql.Close()
}

// stmtCache keeps SQLite statements prepared. The pure-Go SQLite spends
// more time compiling a statement than running a small one (half of a
// GET /calendar/services was spent in the SQL parser), and database/sql
// prepares afresh for every call unless it is handed a *sql.Stmt, which it
// then prepares once per connection. PostgreSQL needs none of this: pgx
// keeps its own per-connection statement cache.
type stmtCache struct {
	mu     sync.Mutex
	m      map[string]*sql.Stmt
	closed bool
}

// maxCachedStmts bounds the cache; Frontdesk's fixed statements are far
// fewer. Statements with expanded In lists are never cached (their text
// varies with the list's length).
const maxCachedStmts = 1000

// prepared returns the cached statement for q, preparing it on first use,
// or nil when q is not to be cached (PostgreSQL, text that depends on an In
// list's length, a full cache, or a statement that does not prepare: the
// caller then runs it directly and reports its error).
func (db *DB) prepared(ctx context.Context, q string, fixed bool) *sql.Stmt {
	if db.dialect.Engine != SQLite || !fixed {
		return nil
	}
	c := &db.stmts
	c.mu.Lock()
	defer c.mu.Unlock()
	if st, ok := c.m[q]; ok || c.closed || len(c.m) >= maxCachedStmts {
		return st
	}
	st, err := db.sql.PrepareContext(ctx, q)
	if err != nil {
		return nil
	}
	if c.m == nil {
		c.m = map[string]*sql.Stmt{}
	}
	c.m[q] = st
	return st
}

func (c *stmtCache) close() {
	c.mu.Lock()
	defer c.mu.Unlock()
	for _, st := range c.m {
		st.Close()
	}
	c.m, c.closed = nil, true
}

// Dialect returns the engine's dialect.
func (db *DB) Dialect() Dialect { return db.dialect }

// Engine returns the engine name.
func (db *DB) Engine() Engine { return db.dialect.Engine }

// SQL exposes the pool for tooling (migrations, metrics, benchmarks' raw floor).
func (db *DB) SQL() *sql.DB { return db.sql }

// Ping checks the connection (readiness).
func (db *DB) Ping(ctx context.Context) error { return db.sql.PingContext(ctx) }

// Querier runs queries written with `?` placeholders. *DB and *Tx implement it.
type Querier interface {
	Exec(ctx context.Context, query string, args ...any) (sql.Result, error)
	Query(ctx context.Context, query string, args ...any) (*sql.Rows, error)
	QueryRow(ctx context.Context, query string, args ...any) *sql.Row
	Dialect() Dialect
}

// Exec runs a statement outside a transaction.
func (db *DB) Exec(ctx context.Context, q string, args ...any) (sql.Result, error) {
	expanded, args, fixed := db.dialect.expand(q, args)
	defer db.slow.since(time.Now(), expanded)
	if st := db.prepared(ctx, expanded, fixed); st != nil {
		return st.ExecContext(ctx, args...)
	}
	return db.sql.ExecContext(ctx, db.dialect.Rebind(expanded), args...)
}

// Query runs a query outside a transaction.
func (db *DB) Query(ctx context.Context, q string, args ...any) (*sql.Rows, error) {
	expanded, args, fixed := db.dialect.expand(q, args)
	defer db.slow.since(time.Now(), expanded)
	if st := db.prepared(ctx, expanded, fixed); st != nil {
		return st.QueryContext(ctx, args...)
	}
	return db.sql.QueryContext(ctx, db.dialect.Rebind(expanded), args...)
}

// QueryRow runs a single-row query outside a transaction.
func (db *DB) QueryRow(ctx context.Context, q string, args ...any) *sql.Row {
	expanded, args, fixed := db.dialect.expand(q, args)
	defer db.slow.since(time.Now(), expanded)
	if st := db.prepared(ctx, expanded, fixed); st != nil {
		return st.QueryRowContext(ctx, args...)
	}
	return db.sql.QueryRowContext(ctx, db.dialect.Rebind(expanded), args...)
}

// Local returns the value this handle keeps under key, made by mk on first
// use. It is for process-local state tied to one database, such as caches
// of its rows: two handles (two tests, two databases) never share it, and a
// transaction reaches its handle's through Handle.
func (db *DB) Local(key any, mk func() any) any {
	if v, ok := db.local.Load(key); ok {
		return v
	}
	v, _ := db.local.LoadOrStore(key, mk())
	return v
}

// ErrNoRows is sql.ErrNoRows, re-exported so area packages need not import
// database/sql just to compare.
var ErrNoRows = sql.ErrNoRows

// IsNoRows reports whether err is a missing row.
func IsNoRows(err error) bool { return errors.Is(err, sql.ErrNoRows) }

var rebindCache sync.Map // query -> postgres form

// Micros converts a time to the stored form.
func Micros(t time.Time) int64 { return t.UnixMicro() }

// NullMicros converts an optional time to the stored form (nil for zero).
func NullMicros(t time.Time) any {
	if t.IsZero() {
		return nil
	}
	return t.UnixMicro()
}

// Time converts the stored form back to UTC.
func Time(us int64) time.Time { return time.UnixMicro(us).UTC() }

// NullTime converts a nullable stored time; zero when NULL.
func NullTime(v sql.NullInt64) time.Time {
	if !v.Valid {
		return time.Time{}
	}
	return Time(v.Int64)
}

// Null returns nil for the zero value of s, else s: for optional text columns.
func Null[T comparable](v T) any {
	var zero T
	if v == zero {
		return nil
	}
	return v
}
