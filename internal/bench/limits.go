package bench

import (
	"context"
	"fmt"
	"strings"
	"time"

	"github.com/frontdesk/frontdesk/internal/db"
)

// The limits floor is the physical-limit baseline of shared/bench/limits
// (cmd/dbbench), rebuilt here so that it runs in the same process, on the
// same database and interleaved with the measurements it is compared to:
// two plain tables with nothing but the phone and e-mail indexes and the
// active-card index, written with the engine's best plain method (SQLite:
// one transaction, two prepared statements per row, as dbbench's
// stmt_per_row; PostgreSQL: dbbench's single unnest statement, client upsert
// feeding the card insert). Frontdesk's own tables carry more (search names,
// time zones, card history, assignment), which is what "within 2× of the
// floor" leaves room for.
const (
	limitsSQLite = `
CREATE TABLE limits_clients (
  id             INTEGER PRIMARY KEY,
  account_id     INTEGER NOT NULL,
  first_name     TEXT NOT NULL DEFAULT '',
  last_name      TEXT NOT NULL DEFAULT '',
  phone_cc       TEXT NOT NULL,
  phone_national TEXT NOT NULL,
  email          TEXT,
  company        TEXT,
  data           TEXT NOT NULL DEFAULT '{}',
  created_at     TEXT NOT NULL,
  updated_at     TEXT NOT NULL,
  UNIQUE (account_id, phone_national)
);
CREATE INDEX limits_clients_email ON limits_clients (account_id, lower(email));
CREATE TABLE limits_cards (
  id          INTEGER PRIMARY KEY,
  account_id  INTEGER NOT NULL,
  client_id   INTEGER NOT NULL,
  pipeline_id INTEGER NOT NULL,
  stage_id    INTEGER NOT NULL,
  status      TEXT NOT NULL DEFAULT 'active',
  lead_value  REAL,
  created_at  TEXT NOT NULL
);
CREATE UNIQUE INDEX limits_cards_active ON limits_cards (pipeline_id, client_id) WHERE status = 'active'`

	limitsPostgres = `
CREATE TABLE limits_clients (
  id             bigserial PRIMARY KEY,
  account_id     bigint NOT NULL,
  first_name     text NOT NULL DEFAULT '',
  last_name      text NOT NULL DEFAULT '',
  phone_cc       text NOT NULL,
  phone_national text NOT NULL,
  email          text,
  company        text,
  data           jsonb NOT NULL DEFAULT '{}',
  created_at     timestamptz NOT NULL DEFAULT now(),
  updated_at     timestamptz NOT NULL DEFAULT now(),
  UNIQUE (account_id, phone_national)
);
CREATE INDEX limits_clients_email ON limits_clients (account_id, lower(email));
CREATE TABLE limits_cards (
  id          bigserial PRIMARY KEY,
  account_id  bigint NOT NULL,
  client_id   bigint NOT NULL,
  pipeline_id bigint NOT NULL,
  stage_id    bigint NOT NULL,
  status      text NOT NULL DEFAULT 'active',
  lead_value  numeric(12,2),
  created_at  timestamptz NOT NULL DEFAULT now()
);
CREATE UNIQUE INDEX limits_cards_active ON limits_cards (pipeline_id, client_id) WHERE status = 'active'`

	limitsSQLiteUpsert = `INSERT INTO limits_clients (account_id, first_name, last_name, phone_cc, phone_national, email, company, data, created_at, updated_at)
VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?9)
ON CONFLICT (account_id, phone_national) DO UPDATE SET
  first_name = excluded.first_name, last_name = excluded.last_name, phone_cc = excluded.phone_cc,
  email = excluded.email, company = excluded.company, data = excluded.data, updated_at = excluded.updated_at
RETURNING id`
	limitsSQLiteCard = `INSERT INTO limits_cards (account_id, client_id, pipeline_id, stage_id, status, lead_value, created_at)
VALUES (?1, ?2, ?3, ?4, 'active', ?5, ?6)
ON CONFLICT (pipeline_id, client_id) WHERE status = 'active' DO NOTHING`

	limitsPostgresUnnest = `WITH input AS MATERIALIZED (
  SELECT t.cc, t.national, t.first, t.last, t.email, t.company, t.data::jsonb AS data, t.lead_value::numeric(12,2) AS lead_value
  FROM unnest($4::text[], $5::text[], $6::text[], $7::text[], $8::text[], $9::text[], $10::text[], $11::float8[])
       AS t(cc, national, first, last, email, company, data, lead_value)),
up AS (
  INSERT INTO limits_clients (account_id, first_name, last_name, phone_cc, phone_national, email, company, data)
  SELECT $1, first, last, cc, national, email, company, data FROM input
  ON CONFLICT (account_id, phone_national) DO UPDATE SET
    first_name = EXCLUDED.first_name, last_name = EXCLUDED.last_name, phone_cc = EXCLUDED.phone_cc,
    email = EXCLUDED.email, company = EXCLUDED.company, data = EXCLUDED.data, updated_at = now()
  RETURNING id, phone_national)
INSERT INTO limits_cards (account_id, client_id, pipeline_id, stage_id, status, lead_value)
SELECT $1, up.id, $2, $3, 'active', input.lead_value
FROM up JOIN input ON input.national = up.phone_national
ON CONFLICT (pipeline_id, client_id) WHERE status = 'active' DO NOTHING`
)

// limits are the baseline tables' account, pipeline and stage (dbbench's).
const limitsAccount, limitsPipeline, limitsStage = 1, 11, 111

// createLimits creates the baseline tables and seeds the 500 clients the
// upsert baseline rewrites.
func (f *fixture) createLimits(ctx context.Context, existing []string) error {
	ddl := limitsSQLite
	if f.store.Engine() == db.Postgres {
		ddl = limitsPostgres
	}
	conn := f.store.SQL()
	for _, stmt := range splitStatements(ddl) {
		if _, err := conn.ExecContext(ctx, stmt); err != nil {
			return fmt.Errorf("limits tables: %w", err)
		}
	}
	return f.limitsWrite(ctx, existing, "seed")
}

// limitsWrite writes 500 contacts and their cards the dbbench way: new ones
// (insert_new) or, with the same nationals again, an upsert of existing
// ones (upsert_existing); tag changes the names so an upsert rewrites rows.
func (f *fixture) limitsWrite(ctx context.Context, nationals []string, tag string) error {
	n := len(nationals)
	first, last, cc, email, company, data := make([]string, n), make([]string, n), make([]string, n), make([]string, n), make([]string, n), make([]string, n)
	lead := make([]float64, n)
	for i, nat := range nationals {
		first[i], last[i], cc[i] = "Cliente", tag+nat, "34"
		email[i], company[i], data[i] = "c"+nat+"@example.com", "", `{"source":"bench"}`
		lead[i] = 150
	}
	if f.store.Engine() == db.Postgres {
		_, err := f.store.SQL().ExecContext(ctx, limitsPostgresUnnest, limitsAccount, limitsPipeline, limitsStage,
			cc, nationals, first, last, email, company, data, lead)
		return err
	}
	tx, err := f.store.SQL().BeginTx(ctx, nil)
	if err != nil {
		return err
	}
	defer tx.Rollback()
	up, err := tx.PrepareContext(ctx, limitsSQLiteUpsert)
	if err != nil {
		return err
	}
	defer up.Close()
	card, err := tx.PrepareContext(ctx, limitsSQLiteCard)
	if err != nil {
		return err
	}
	defer card.Close()
	ts := time.Now().UTC().Format(time.RFC3339Nano)
	for i := range nationals {
		var id int64
		if err := up.QueryRowContext(ctx, limitsAccount, first[i], last[i], cc[i], nationals[i], email[i], company[i], data[i], ts).Scan(&id); err != nil {
			return err
		}
		if _, err := card.ExecContext(ctx, limitsAccount, id, limitsPipeline, limitsStage, lead[i], ts); err != nil {
			return err
		}
	}
	return tx.Commit()
}

// resetLimits deletes the baseline rows of new contacts (not timed), so the
// tables stay at the seeded 500, as dbbench deletes after each insert_new.
func (f *fixture) resetLimits(ctx context.Context, seeded []string) error {
	keep, args := db.In(seeded)
	for _, q := range []string{
		`DELETE FROM limits_cards WHERE client_id IN (SELECT id FROM limits_clients WHERE phone_national NOT IN ` + keep + `)`,
		`DELETE FROM limits_clients WHERE phone_national NOT IN ` + keep,
	} {
		if _, err := f.store.Exec(ctx, q, args...); err != nil {
			return err
		}
	}
	return nil
}

func splitStatements(ddl string) []string {
	var out []string
	for _, s := range strings.Split(ddl, ";") {
		if s = strings.TrimSpace(s); s != "" {
			out = append(out, s)
		}
	}
	return out
}
