package db

import "context"

// MigrateTo applies the migrations up to version, for tests that start
// from an older schema.
func (db *DB) MigrateTo(ctx context.Context, version int64) error {
	return db.migrate(ctx, nil, version)
}

// NoReuseTables names the tables migration 00021 gives AUTOINCREMENT.
func NoReuseTables() []string {
	var out []string
	for _, t := range noReuseTables {
		out = append(out, t.table)
	}
	return out
}

// MigrateDownTo rolls the migrations back to version.
func (db *DB) MigrateDownTo(ctx context.Context, version int64) error {
	p, err := db.migrations(ctx)
	if err != nil {
		return err
	}
	_, err = p.DownTo(ctx, version)
	return err
}
