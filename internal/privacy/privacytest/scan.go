package privacytest

import (
	"context"
	"fmt"
	"strings"
	"testing"

	"github.com/frontdesk/frontdesk/internal/db"
)

// Scan looks for each needle (lower case) in every text column of every
// table, read from the database's own catalog, and returns where each was
// found ("table.column"), so a table added later is scanned too.
func Scan(t testing.TB, store *db.DB, needles []string) map[string][]string {
	t.Helper()
	ctx := context.Background()
	cols := map[string][]string{}
	if store.Engine() == db.Postgres {
		rows, err := store.Query(ctx, `SELECT table_name, column_name FROM information_schema.columns
			WHERE table_schema = current_schema() AND data_type IN ('text', 'character varying', 'character', 'json', 'jsonb')`)
		if err != nil {
			t.Fatal(err)
		}
		for rows.Next() {
			var table, col string
			rows.Scan(&table, &col)
			cols[table] = append(cols[table], col)
		}
		rows.Close()
	} else {
		tables, err := store.Query(ctx, `SELECT name FROM sqlite_master WHERE type = 'table' AND name NOT LIKE 'sqlite_%'`)
		if err != nil {
			t.Fatal(err)
		}
		var names []string
		for tables.Next() {
			var n string
			tables.Scan(&n)
			names = append(names, n)
		}
		tables.Close()
		for _, table := range names {
			rows, err := store.Query(ctx, fmt.Sprintf(`PRAGMA table_info(%q)`, table))
			if err != nil {
				t.Fatal(err)
			}
			for rows.Next() {
				var (
					cid, notNull, pk int
					name, typ        string
					def              any
				)
				rows.Scan(&cid, &name, &typ, &notNull, &def, &pk)
				// SQLite keeps any value in any column: only the
				// integer and real columns are left out.
				if u := strings.ToUpper(typ); !strings.Contains(u, "INT") && !strings.Contains(u, "REAL") && !strings.Contains(u, "DOUBLE") && !strings.Contains(u, "BOOL") {
					cols[table] = append(cols[table], name)
				}
			}
			rows.Close()
		}
	}
	if len(cols) < 20 {
		t.Fatalf("the catalog lists %d tables with text columns: the scan is not reading it", len(cols))
	}
	found := map[string][]string{}
	for table, list := range cols {
		for _, col := range list {
			for _, n := range needles {
				var hits int
				q := fmt.Sprintf(`SELECT COUNT(*) FROM %q WHERE LOWER(CAST(%q AS TEXT)) LIKE ?`, table, col)
				if err := store.QueryRow(ctx, q, "%"+n+"%").Scan(&hits); err != nil {
					t.Fatalf("%s: %v", q, err)
				}
				if hits > 0 {
					found[n] = append(found[n], table+"."+col)
				}
			}
		}
	}
	return found
}
