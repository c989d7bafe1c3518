package db

import (
	"context"
	"time"
)

// Heartbeat proves the database takes writes: it commits one row to the
// heartbeat table and deletes the earlier ones. A read (Ping) succeeds on a
// full disk or a read-only PostgreSQL; this does not. On SQLite the row
// carries a few kilobytes so the write needs fresh pages, as the server's
// real writes do: a database that cannot grow fails here with SQLITE_FULL
// rather than passing by rewriting a page in place. The new row goes in
// before the old ones go, so pages they free cannot serve it.
func (db *DB) Heartbeat(ctx context.Context, now time.Time) error {
	pad := `''`
	if db.dialect.Engine == SQLite {
		pad = `hex(zeroblob(2500))` // 5,000 characters: overflow pages
	}
	return db.Transact(ctx, func(tx *Tx) error {
		var id int64
		if err := tx.QueryRow(ctx, `INSERT INTO heartbeat (beat_at, pad) VALUES (?, `+pad+`) RETURNING id`, Micros(now)).Scan(&id); err != nil {
			return err
		}
		_, err := tx.Exec(ctx, `DELETE FROM heartbeat WHERE id < ?`, id)
		return err
	})
}
