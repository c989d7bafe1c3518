package db_test

import (
	"context"
	"fmt"
	"strings"
	"testing"

	"github.com/frontdesk/frontdesk/internal/db"
	"github.com/frontdesk/frontdesk/internal/db/dbtest"
)

// A 500-key lookup written with InKeys finds the same rows as In, and on
// PostgreSQL it probes the index at a size where, shown the 500 values,
// the planner scans the table instead (about 20,000 rows); on SQLite the
// keys, one JSON argument, are probed through the index too.
func TestInKeysProbesTheIndex(t *testing.T) {
	dbtest.Engines(t, func(t *testing.T, store *db.DB) {
		ctx := context.Background()
		if _, err := store.Exec(ctx, `INSERT INTO accounts (id, slug, name, created_at, updated_at) VALUES (1, 'one', 'One', 0, 0) ON CONFLICT DO NOTHING`); err != nil {
			t.Fatal(err)
		}
		if _, err := store.Exec(ctx, `WITH RECURSIVE g(n) AS (SELECT 1 UNION ALL SELECT n + 1 FROM g WHERE n < 20000)
			INSERT INTO clients (account_id, first_name, last_name, name_search, data, created_at, updated_at, email, email_norm)
			SELECT 1, 'A', 'B', 'a b', '{}', 0, 0, 'contacto' || n || '@example.com', 'contacto' || n || '@example.com' FROM g`); err != nil {
			t.Fatal(err)
		}
		emails := make([]string, 500)
		for i := range emails {
			emails[i] = fmt.Sprintf("contacto%d@example.com", 7*i+3)
		}
		emails[0] = "nobody@example.com"
		count := func(in string, args []any) int {
			var n int
			if err := store.QueryRow(ctx, `SELECT COUNT(*) FROM clients c WHERE c.account_id = ? AND c.email_norm IN `+in, append([]any{int64(1)}, args...)...).Scan(&n); err != nil {
				t.Fatal(err)
			}
			return n
		}
		keysIn, keysArgs := db.InKeys(emails)
		plainIn, plainArgs := db.In(emails)
		if got, want := count(keysIn, keysArgs), count(plainIn, plainArgs); got != 499 || want != 499 {
			t.Fatalf("InKeys found %d, In %d; want 499 each", got, want)
		}
		if store.Dialect().Citus {
			return // Citus plans on the workers
		}
		if store.Engine() == db.SQLite {
			// The list is one JSON argument; each value is still looked
			// up through the index.
			rows, err := store.Query(ctx, `EXPLAIN QUERY PLAN SELECT c.id FROM clients c WHERE c.account_id = ? AND c.email_norm IN `+keysIn, append([]any{int64(1)}, keysArgs...)...)
			if err != nil {
				t.Fatal(err)
			}
			var plan strings.Builder
			for rows.Next() {
				var id, parent, unused int
				var detail string
				if err := rows.Scan(&id, &parent, &unused, &detail); err != nil {
					t.Fatal(err)
				}
				plan.WriteString(detail + "\n")
			}
			rows.Close()
			if !strings.Contains(plan.String(), "email_norm=?") {
				t.Fatalf("a 500-key lookup at 20,000 clients:\n%s", plan.String())
			}
			return
		}
		if _, err := store.Exec(ctx, `ANALYZE clients`); err != nil {
			t.Fatal(err)
		}
		rows, err := store.Query(ctx, `EXPLAIN SELECT c.id FROM clients c WHERE c.account_id = ? AND c.email_norm IN `+keysIn, append([]any{int64(1)}, keysArgs...)...)
		if err != nil {
			t.Fatal(err)
		}
		defer rows.Close()
		var plan strings.Builder
		for rows.Next() {
			var line string
			if err := rows.Scan(&line); err != nil {
				t.Fatal(err)
			}
			plan.WriteString(line + "\n")
		}
		if !strings.Contains(plan.String(), "clients_email") || strings.Contains(plan.String(), "Seq Scan") {
			t.Fatalf("a 500-key lookup at 20,000 clients:\n%s", plan.String())
		}
	})
}
