package chat_test

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/frontdesk/frontdesk/internal/chat"
	"github.com/frontdesk/frontdesk/internal/db"
	"github.com/frontdesk/frontdesk/internal/db/dbtest"
)

// A round's lookups by provider id and by phone find what they should, and
// on PostgreSQL probe their indexes for a round's worth of keys instead of
// reading every message and conversation of the account: shown 500 values
// at 20,000 rows with statistics, the planner chose to read the table.
func TestRoundLookupsProbeTheirIndexes(t *testing.T) {
	dbtest.Engines(t, func(t *testing.T, store *db.DB) {
		ctx := context.Background()
		now := time.Date(2026, 11, 30, 9, 0, 0, 0, time.UTC)
		acct, channel := demoChannel(t, store, now)
		// 20,000 open conversations on the channel, each with a message
		// that has a provider id.
		const n = 20000
		last := db.Micros(now.Add(-time.Hour))
		if _, err := store.Exec(ctx, `WITH RECURSIVE g(n) AS (SELECT 1 UNION ALL SELECT n + 1 FROM g WHERE n < ?)
			INSERT INTO conversations (account_id, channel_id, customer_phone_number, phone_national, status, created_at, updated_at, last_message_at)
			SELECT ?, ?, '+34' || CAST(700000000 + n AS TEXT), CAST(700000000 + n AS TEXT), 'new', ?, ?, ? FROM g`,
			n, acct.ID, channel, last, last, last); err != nil {
			t.Fatal(err)
		}
		if _, err := store.Exec(ctx, `INSERT INTO messages (account_id, conversation_id, sender_kind, channel_id, provider_message_id, sent_at, created_at)
			SELECT account_id, id, 'user', channel_id, 'pm-' || phone_national, ?, ? FROM conversations WHERE account_id = ? AND channel_id = ?`,
			last, last, acct.ID, channel); err != nil {
			t.Fatal(err)
		}
		if store.Engine() == db.Postgres {
			if _, err := store.Exec(ctx, `ANALYZE conversations; ANALYZE messages`); err != nil {
				t.Fatal(err)
			}
		}
		// 500 keys a round: every seventh number has a conversation and
		// a message, the rest none.
		var phones, ids, wantPhones, wantIDs []string
		for i := range 500 {
			nat := fmt.Sprint(700000000 + 7*i + 1)
			if 7*i+1 > n || i%2 == 1 {
				nat = fmt.Sprint(800000000 + i) // nobody's
			} else {
				wantPhones, wantIDs = append(wantPhones, nat), append(wantIDs, "pm-"+nat)
			}
			phones, ids = append(phones, nat), append(ids, "pm-"+nat)
		}
		idsQuery, idsArgs := chat.RecordedQuery(acct.ID, channel, ids)
		openSQL, openArgs := chat.OpenQuery(acct.ID, channel, phones, now.Add(-chat.OpenWindow))
		for _, tc := range []struct {
			name, table string
			query       string
			args        []any
			want        []string
		}{
			{"provider ids", "messages", idsQuery, idsArgs, wantIDs},
			{"open conversations", "conversations", "SELECT phone_national FROM (" + openSQL + ") AS open", openArgs, wantPhones},
		} {
			t.Run(tc.name, func(t *testing.T) {
				rows, err := store.Query(ctx, tc.query, tc.args...)
				if err != nil {
					t.Fatal(err)
				}
				got, err := db.Column[string](rows)
				if err != nil {
					t.Fatal(err)
				}
				slices.Sort(got)
				want := slices.Sorted(slices.Values(tc.want))
				if !slices.Equal(got, want) {
					t.Fatalf("found %d keys, want %d", len(got), len(want))
				}
				if store.Engine() != db.Postgres || store.Dialect().Citus {
					return // SQLite looks each value up; Citus plans on the workers
				}
				rows, err = store.Query(ctx, "EXPLAIN "+tc.query, tc.args...)
				if err != nil {
					t.Fatal(err)
				}
				plan, err := db.Column[string](rows)
				if err != nil {
					t.Fatal(err)
				}
				if text := strings.Join(plan, "\n"); strings.Contains(text, "Seq Scan on "+tc.table) {
					t.Errorf("a round's 500 keys read every row of %s:\n%s", tc.table, text)
				}
			})
		}
	})
}
