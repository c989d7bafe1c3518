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
		sqldb, err = sql.Open("pgx", postgresDSN(dsn))
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
	db := &DB{sql: sqldb, dialect: d, dsn: dsn, slow: slowLog{opt.SlowQuery, opt.Log}}
	pingCtx, cancel := context.WithTimeout(ctx, 10*time.Second)
	defer cancel()
	if err := sqldb.PingContext(pingCtx); err != nil {
		sqldb.Close()
		return nil, fmt.Errorf("connect to %s: %w", d.Engine, err)
	}
	return db, nil
}

// postgresDSN asks every session for custom plans. pgx caches prepared
// statements per connection, and after five runs PostgreSQL would switch a
// statement to a generic plan that does not know its array parameter: a
// batch lookup `phone_national = ANY($2)` then filters every row of the
// account against 500 values one by one instead of hashing them or probing
// the index (100 ms instead of 2 ms at 10,000 clients). Planning each batch
// lookup costs well under a millisecond.
func postgresDSN(dsn string) string {
	u, err := url.Parse(dsn)
	if err != nil {
		return dsn
	}
	q := u.Query()
	if q.Get("plan_cache_mode") == "" {
		q.Set("plan_cache_mode", "force_custom_plan")
	}
	u.RawQuery = q.Encode()
	return u.String()
}

// sqliteDSN turns a file path into a modernc DSN: WAL so readers never block
// the writer, foreign keys on, and every transaction opened with BEGIN
// IMMEDIATE so concurrent writers queue on the busy timeout instead of failing
// with SQLITE_BUSY when a read lock is upgraded. Each connection may cache up
// to 32 MiB of pages (the default is 2 MiB): at a million clients a 500-row
// batch touches pages all over the clients table and its indexes, and with
// the default cache it paid 50 % more for re-reading them.
func sqliteDSN(path string, busy time.Duration) string {
	q := url.Values{}
	q.Add("_pragma", fmt.Sprintf("busy_timeout(%d)", busy.Milliseconds()))
	q.Add("_pragma", "journal_mode(WAL)")
	q.Add("_pragma", "foreign_keys(1)")
	q.Add("_pragma", "synchronous(NORMAL)")
	q.Add("_pragma", "cache_size(-32768)")
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
func (db *DB) Close() error { return db.sql.Close() }

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
	q, args = db.dialect.expand(q, args)
	defer db.slow.since(time.Now(), q)
	return db.sql.ExecContext(ctx, db.dialect.Rebind(q), args...)
}

// Query runs a query outside a transaction.
func (db *DB) Query(ctx context.Context, q string, args ...any) (*sql.Rows, error) {
	q, args = db.dialect.expand(q, args)
	defer db.slow.since(time.Now(), q)
	return db.sql.QueryContext(ctx, db.dialect.Rebind(q), args...)
}

// QueryRow runs a single-row query outside a transaction.
func (db *DB) QueryRow(ctx context.Context, q string, args ...any) *sql.Row {
	q, args = db.dialect.expand(q, args)
	defer db.slow.since(time.Now(), q)
	return db.sql.QueryRowContext(ctx, db.dialect.Rebind(q), args...)
}

// Tx is a transaction.
type Tx struct {
	tx      *sql.Tx
	dialect Dialect
	slow    slowLog
	after   []func()
}

func (tx *Tx) Exec(ctx context.Context, q string, args ...any) (sql.Result, error) {
	q, args = tx.dialect.expand(q, args)
	defer tx.slow.since(time.Now(), q)
	return tx.tx.ExecContext(ctx, tx.dialect.Rebind(q), args...)
}

func (tx *Tx) Query(ctx context.Context, q string, args ...any) (*sql.Rows, error) {
	q, args = tx.dialect.expand(q, args)
	defer tx.slow.since(time.Now(), q)
	return tx.tx.QueryContext(ctx, tx.dialect.Rebind(q), args...)
}

func (tx *Tx) QueryRow(ctx context.Context, q string, args ...any) *sql.Row {
	q, args = tx.dialect.expand(q, args)
	defer tx.slow.since(time.Now(), q)
	return tx.tx.QueryRowContext(ctx, tx.dialect.Rebind(q), args...)
}

// Dialect returns the engine's dialect.
func (tx *Tx) Dialect() Dialect { return tx.dialect }

// AfterCommit registers fn to run once the transaction has committed (e.g.
// waking a worker). It never runs for a rolled-back transaction.
func (tx *Tx) AfterCommit(fn func()) { tx.after = append(tx.after, fn) }

// Transact runs fn in a transaction, committing when it returns nil and
// rolling back on error or panic. On PostgreSQL a serialization failure or
// deadlock is retried a few times; unique-key races are the caller's to
// resolve with ON CONFLICT.
func (db *DB) Transact(ctx context.Context, fn func(tx *Tx) error) error {
	const attempts = 3
	var err error
	for i := 0; i < attempts; i++ {
		err = db.transactOnce(ctx, fn)
		if err == nil || !db.dialect.retryable(err) || ctx.Err() != nil {
			return err
		}
	}
	return err
}

func (db *DB) transactOnce(ctx context.Context, fn func(tx *Tx) error) (err error) {
	sqltx, err := db.sql.BeginTx(ctx, nil)
	if err != nil {
		return fmt.Errorf("begin: %w", err)
	}
	tx := &Tx{tx: sqltx, dialect: db.dialect, slow: db.slow}
	defer func() {
		if p := recover(); p != nil {
			sqltx.Rollback()
			panic(p)
		}
		if err != nil {
			sqltx.Rollback()
		}
	}()
	if err = fn(tx); err != nil {
		return err
	}
	if err = sqltx.Commit(); err != nil {
		return fmt.Errorf("commit: %w", err)
	}
	for _, f := range tx.after {
		f()
	}
	return nil
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
