package contact

import (
	"context"
	"errors"

	"github.com/frontdesk/frontdesk/internal/account"
	"github.com/frontdesk/frontdesk/internal/db"
)

// RowVersions says whether the engine gives each stored client row a
// version that every write of the row changes: PostgreSQL's xmin, the
// transaction that wrote the row version. A batch that looked clients up
// and then locks the ones it will rewrite can then ask for the versions
// alone (LockVersions) instead of reading every column again to see whether
// another batch changed them meanwhile (docs/performance.md, "Lookups").
// SQLite has none (and needs none: one writer at a time); on Citus the
// rows live in the workers' shards, and LockByIDs is used there.
func RowVersions(d db.Dialect) bool {
	return d.Engine == db.Postgres && !d.Citus
}

// versionColumn is the select-list item of a row's version (alias c).
func versionColumn(d db.Dialect) string {
	if RowVersions(d) {
		// A vacuum that freezes the row shows it as xmin 2 from then on:
		// a version that changed without a write, which only costs the
		// caller a second look.
		return "c.xmin::text::bigint"
	}
	return "0"
}

// LockVersions locks the clients of acct with these ids until the
// transaction ends, as LockByIDs does, and returns each one's version as
// stored now: a client whose version differs from the one its lookup read
// was written since. Only where RowVersions holds.
func LockVersions(ctx context.Context, tx *db.Tx, acct account.Account, ids []int64) (map[int64]int64, error) {
	if !RowVersions(tx.Dialect()) {
		return nil, errors.New("LockVersions: this engine keeps no row versions")
	}
	out := make(map[int64]int64, len(ids))
	err := chunk(dedupe(ids), func(part []int64) error {
		in, args := db.InKeys(part)
		rows, err := tx.Query(ctx, `SELECT c.id, `+versionColumn(tx.Dialect())+` FROM clients c
			WHERE c.account_id = ? AND c.id IN `+in+` ORDER BY c.id FOR UPDATE`, append([]any{acct.ID}, args...)...)
		if err != nil {
			return err
		}
		defer rows.Close()
		for rows.Next() {
			var id, v int64
			if err := rows.Scan(&id, &v); err != nil {
				return err
			}
			out[id] = v
		}
		return rows.Err()
	})
	return out, err
}
