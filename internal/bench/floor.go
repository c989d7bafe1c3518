package bench

import (
	"context"
	"fmt"
	"time"

	"github.com/frontdesk/frontdesk/internal/db"
)

// rawFloor inserts 500 new clients and their 500 cards in one transaction
// with the best plain method of the engine and no Frontdesk code in the
// path: on SQLite two prepared statements executed per row (the card needs
// the client's rowid); on PostgreSQL one multi-row `INSERT … SELECT FROM
// unnest(arrays) RETURNING id` per table. The rows carry what an ingested
// client and card carry, so the comparison is like for like.
func (f *fixture) rawFloor(ctx context.Context, nationals []string) error {
	acct, pipe, stage, user := f.acct.ID, f.ids.Pipelines["sales"], f.ids.Stages["sales/new"], f.ids.Users["ana"]
	now := time.Now().UnixMicro()
	tx, err := f.store.SQL().BeginTx(ctx, nil)
	if err != nil {
		return err
	}
	defer tx.Rollback()
	n := len(nationals)
	if f.store.Engine() == db.Postgres {
		first, last, search, email := make([]string, n), make([]string, n), make([]string, n), make([]string, n)
		for i, nat := range nationals {
			first[i], last[i] = "Cliente", nat
			search[i] = "cliente " + nat
			email[i] = "c" + nat + "@example.com"
		}
		rows, err := tx.QueryContext(ctx, `INSERT INTO clients (account_id, first_name, last_name, name_search, phone_cc, phone_national,
				email, email_norm, data, created_at, updated_at)
			SELECT $1, f, l, s, 34, n, e, e, '{"source":"bench"}', $2, $2
			FROM unnest($3::text[], $4::text[], $5::text[], $6::text[], $7::text[]) AS t(f, l, s, n, e) RETURNING id`,
			acct, now, first, last, search, nationals, email)
		if err != nil {
			return err
		}
		ids := make([]int64, 0, n)
		for rows.Next() {
			var id int64
			if err := rows.Scan(&id); err != nil {
				rows.Close()
				return err
			}
			ids = append(ids, id)
		}
		rows.Close()
		if err := rows.Err(); err != nil {
			return err
		}
		if _, err := tx.ExecContext(ctx, `INSERT INTO cards (account_id, pipeline_id, client_id, stage_id, assigned_user_id, lead_value,
				added_at, stage_entered_at, updated_at)
			SELECT $1, $2, c, $3, $4, 150, $5, $5, $5 FROM unnest($6::bigint[]) AS t(c)`, acct, pipe, stage, user, now, ids); err != nil {
			return err
		}
	} else {
		cs, err := tx.PrepareContext(ctx, `INSERT INTO clients (account_id, first_name, last_name, name_search, phone_cc, phone_national,
			email, email_norm, data, created_at, updated_at) VALUES (?, 'Cliente', ?, ?, 34, ?, ?, ?, '{"source":"bench"}', ?, ?)`)
		if err != nil {
			return err
		}
		defer cs.Close()
		ks, err := tx.PrepareContext(ctx, `INSERT INTO cards (account_id, pipeline_id, client_id, stage_id, assigned_user_id, lead_value,
			added_at, stage_entered_at, updated_at) VALUES (?, ?, ?, ?, ?, 150, ?, ?, ?)`)
		if err != nil {
			return err
		}
		defer ks.Close()
		for _, nat := range nationals {
			e := "c" + nat + "@example.com"
			r, err := cs.ExecContext(ctx, acct, nat, "cliente "+nat, nat, e, e, now, now)
			if err != nil {
				return fmt.Errorf("floor client: %w", err)
			}
			id, err := r.LastInsertId()
			if err != nil {
				return err
			}
			if _, err := ks.ExecContext(ctx, acct, pipe, id, stage, user, now, now, now); err != nil {
				return fmt.Errorf("floor card: %w", err)
			}
		}
	}
	return tx.Commit()
}
