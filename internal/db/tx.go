package db

// Transactions: Tx, Transact and its retries, SQLite's queue of writers.

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"math/rand/v2"
	"sync"
	"time"
)

// Tx is a transaction.
type Tx struct {
	tx     *sql.Tx
	db     *DB       // the dialect, the slow-query log and the statement cache
	conn   *sql.Conn // PostgreSQL: the transaction's connection, for COPY
	after  []func()
	before []func()
	// reserved is, per table, the highest id ReserveIDs handed out in this
	// transaction on SQLite, where ids come from the table's highest and
	// rows reserved but not yet inserted are not there to count.
	reserved map[string]int64
}

func (tx *Tx) Exec(ctx context.Context, q string, args ...any) (sql.Result, error) {
	expanded, args, fixed := tx.db.dialect.expand(q, args)
	defer tx.db.slow.since(time.Now(), expanded)
	if st := tx.db.prepared(ctx, expanded, fixed); st != nil {
		return tx.tx.StmtContext(ctx, st).ExecContext(ctx, args...)
	}
	return tx.tx.ExecContext(ctx, tx.db.dialect.Rebind(expanded), args...)
}

func (tx *Tx) Query(ctx context.Context, q string, args ...any) (*sql.Rows, error) {
	expanded, args, fixed := tx.db.dialect.expand(q, args)
	defer tx.db.slow.since(time.Now(), expanded)
	if st := tx.db.prepared(ctx, expanded, fixed); st != nil {
		return tx.tx.StmtContext(ctx, st).QueryContext(ctx, args...)
	}
	return tx.tx.QueryContext(ctx, tx.db.dialect.Rebind(expanded), args...)
}

func (tx *Tx) QueryRow(ctx context.Context, q string, args ...any) *sql.Row {
	expanded, args, fixed := tx.db.dialect.expand(q, args)
	defer tx.db.slow.since(time.Now(), expanded)
	if st := tx.db.prepared(ctx, expanded, fixed); st != nil {
		return tx.tx.StmtContext(ctx, st).QueryRowContext(ctx, args...)
	}
	return tx.tx.QueryRowContext(ctx, tx.db.dialect.Rebind(expanded), args...)
}

// Dialect returns the engine's dialect.
func (tx *Tx) Dialect() Dialect { return tx.db.dialect }

// Handle returns the handle the transaction was begun on.
func (tx *Tx) Handle() *DB { return tx.db }

// handleOf is q's handle: q itself, or the one its transaction was begun
// on; nil for another Querier.
func handleOf(q Querier) *DB {
	switch v := q.(type) {
	case *DB:
		return v
	case *Tx:
		return v.db
	}
	return nil
}

// AfterCommit registers fn to run once the transaction has committed (e.g.
// waking a worker). It never runs for a rolled-back transaction.
func (tx *Tx) AfterCommit(fn func()) { tx.after = append(tx.after, fn) }

// BeforeCommit registers fn to run just before the transaction's COMMIT is
// sent, once fn of Transact has returned nil (e.g. marking a cache's
// snapshots as overtaken by a write about to show). It runs even when the
// commit then fails.
func (tx *Tx) BeforeCommit(fn func()) { tx.before = append(tx.before, fn) }

// InTx runs fn in a transaction of its own (Transact) and returns its
// value: the one-line form of an area's "X is XTx in a transaction of its
// own" functions.
func InTx[T any](ctx context.Context, store *DB, fn func(tx *Tx) (T, error)) (T, error) {
	var out T
	err := store.Transact(ctx, func(tx *Tx) error {
		var err error
		out, err = fn(tx)
		return err
	})
	return out, err
}

// Transact runs fn in a transaction, committing when it returns nil and
// rolling back on error or panic. On PostgreSQL a serialization failure or
// deadlock is retried a few times, after a jittered pause (retryPause) so
// that the transactions that collided do not collide again in step;
// unique-key races are the caller's to resolve with ON CONFLICT.
func (db *DB) Transact(ctx context.Context, fn func(tx *Tx) error) error {
	return db.retrying(ctx, 4, func() error { return db.transactOnce(ctx, fn) })
}

// retrying runs once, a whole transaction, up to attempts times while it
// fails with a serialization failure or a deadlock, after a retryPause.
func (db *DB) retrying(ctx context.Context, attempts int, once func() error) error {
	var err error
	for i := 0; i < attempts; i++ {
		if i > 0 {
			select {
			case <-ctx.Done():
				return err
			case <-time.After(retryPause(i, rand.Float64())):
			}
		}
		err = once()
		if err == nil || !db.dialect.retryable(err) || ctx.Err() != nil {
			return err
		}
	}
	return err
}

// retryPause is the wait before retry number retry (1, 2, …) of a
// transaction: full jitter over an exponential ceiling of 5 ms, 10 ms,
// 20 ms …, capped at 200 ms (u is uniform in [0, 1)).
func retryPause(retry int, u float64) time.Duration {
	ceiling := 5 * time.Millisecond << (retry - 1)
	if ceiling > 200*time.Millisecond || ceiling <= 0 {
		ceiling = 200 * time.Millisecond
	}
	return time.Duration(u * float64(ceiling))
}

func (db *DB) transactOnce(ctx context.Context, fn func(tx *Tx) error) (err error) {
	release := func() {}
	if db.writers != nil {
		turn, err := db.writeTurn(ctx)
		if err != nil {
			return err
		}
		var once sync.Once
		release = func() { once.Do(turn) }
		defer release()
	}
	// On PostgreSQL the transaction keeps its connection at hand, for COPY
	// (Tx.copyFrom); the connection goes back to the pool after the
	// transaction ends (deferred calls run last first).
	var conn *sql.Conn
	if db.dialect.Engine == Postgres {
		if conn, err = db.sql.Conn(ctx); err != nil {
			return fmt.Errorf("begin: %w", err)
		}
		defer conn.Close()
	}
	var sqltx *sql.Tx
	if conn != nil {
		sqltx, err = conn.BeginTx(ctx, nil)
	} else {
		sqltx, err = db.sql.BeginTx(ctx, nil)
	}
	if err != nil {
		return fmt.Errorf("begin: %w", err)
	}
	tx := &Tx{tx: sqltx, db: db, conn: conn}
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
	for _, f := range tx.before {
		f()
	}
	if err = sqltx.Commit(); err != nil {
		return fmt.Errorf("commit: %w", err)
	}
	release() // after-commit callbacks may write themselves
	for _, f := range tx.after {
		f()
	}
	return nil
}

// ErrBusy is returned when a SQLite write transaction waited longer than
// the busy timeout for its turn.
var ErrBusy = errors.New("database is busy: a write transaction waited too long for its turn")

// writeTurn waits for this process's turn to write to SQLite. SQLite lets
// one writer in at a time and makes the others poll with growing sleeps
// (the busy handler), which is unfair: under a steady stream of batches a
// waiting writer kept losing the race and a 45 ms batch could wait seconds.
// Queueing on a channel first hands the lock over in arrival order; the busy
// timeout still covers other processes on the same file.
func (db *DB) writeTurn(ctx context.Context) (release func(), err error) {
	timer := time.NewTimer(db.busy)
	defer timer.Stop()
	select {
	case db.writers <- struct{}{}:
		return func() { <-db.writers }, nil
	case <-ctx.Done():
		return nil, ctx.Err()
	case <-timer.C:
		return nil, ErrBusy
	}
}
