package db

// Migration 00030: clients.search_text, the folded column the one client
// search matches (docs/patient-search.md). It is a Go migration because
// SQLite has no SQL function that removes accents: the column is added,
// then filled row by row with names.SearchText, the function every write
// of a client stores it with.

import (
	"context"
	"database/sql"
	"fmt"

	"github.com/frontdesk/frontdesk/internal/names"
	"github.com/pressly/goose/v3"
)

// searchTextBatch is how many clients the backfill reads at a time: the
// rows of one batch are read, closed, then written (SQLite's driver does
// not write while a read on the same transaction is open).
const searchTextBatch = 1000

func searchTextMigration(e Engine) *goose.Migration {
	up := func(ctx context.Context, tx *sql.Tx) error {
		if _, err := tx.ExecContext(ctx, `ALTER TABLE clients ADD COLUMN search_text TEXT NOT NULL DEFAULT ''`); err != nil {
			return err
		}
		return backfillSearchText(ctx, tx, e)
	}
	down := func(ctx context.Context, tx *sql.Tx) error {
		_, err := tx.ExecContext(ctx, `ALTER TABLE clients DROP COLUMN search_text`)
		return err
	}
	return goose.NewGoMigration(30, &goose.GoFunc{RunTx: up}, &goose.GoFunc{RunTx: down})
}

// backfillSearchText fills search_text of every client, in id order.
func backfillSearchText(ctx context.Context, tx *sql.Tx, e Engine) error {
	sel := `SELECT id, first_name, last_name, COALESCE(email, '') FROM clients WHERE id > ? ORDER BY id LIMIT ?`
	upd := `UPDATE clients SET search_text = ? WHERE id = ?`
	if e == Postgres {
		sel = `SELECT id, first_name, last_name, COALESCE(email, '') FROM clients WHERE id > $1 ORDER BY id LIMIT $2`
		upd = `UPDATE clients SET search_text = $1 WHERE id = $2`
	}
	type row struct {
		id   int64
		text string
	}
	var after int64
	for {
		rows, err := tx.QueryContext(ctx, sel, after, searchTextBatch)
		if err != nil {
			return fmt.Errorf("backfill search_text: %w", err)
		}
		var batch []row
		for rows.Next() {
			var r row
			var first, last, email string
			if err := rows.Scan(&r.id, &first, &last, &email); err != nil {
				rows.Close()
				return err
			}
			r.text = names.SearchText(first, last, email, "") // no national id before migration 00031
			batch = append(batch, r)
		}
		rows.Close()
		if err := rows.Err(); err != nil {
			return err
		}
		for _, r := range batch {
			if _, err := tx.ExecContext(ctx, upd, r.text, r.id); err != nil {
				return fmt.Errorf("backfill search_text: %w", err)
			}
		}
		if len(batch) < searchTextBatch {
			return nil
		}
		after = batch[len(batch)-1].id
	}
}
