package retention_test

import (
	"context"
	"testing"
	"time"

	"github.com/frontdesk/frontdesk/internal/db"
	"github.com/frontdesk/frontdesk/internal/db/dbtest"
	"github.com/frontdesk/frontdesk/internal/retention"
)

// BenchmarkRun is one account's first run over a backlog: 50,000 old
// messages to blank, 10,000 old finished outbox rows and 10,000 audit
// entries to delete, beside as many young ones that stay, on each engine;
// ms/next-run is a run right after, with nothing left to remove.
func BenchmarkRun(b *testing.B) {
	const msgs, rows = 100_000, 20_000 // half of each old
	for _, e := range []db.Engine{db.SQLite, db.Postgres} {
		b.Run(string(e), func(b *testing.B) {
			ctx := context.Background()
			store := dbtest.Open(b, e)
			us := db.Micros(now)
			if _, err := store.Exec(ctx, `INSERT INTO accounts (slug, name, retention, created_at, updated_at) VALUES ('big', 'Big', '{"messages":"12mo","outbox":"12mo","audit":"12mo"}', ?, ?)`, us, us); err != nil {
				b.Fatal(err)
			}
			var acct, conv int64
			store.QueryRow(ctx, `SELECT id FROM accounts WHERE slug = 'big'`).Scan(&acct)
			if err := store.QueryRow(ctx, `INSERT INTO conversations (account_id, customer_phone_number, created_at, updated_at) VALUES (?, 'x', ?, ?) RETURNING id`,
				acct, us, us).Scan(&conv); err != nil {
				b.Fatal(err)
			}
			old, young := now.AddDate(-2, 0, 0), now.AddDate(0, -1, 0)
			seed := func() {
				var m, o, a [][]any
				for i := 0; i < msgs; i++ {
					at := old
					if i%2 == 1 {
						at = young
					}
					at = at.Add(time.Duration(i) * time.Second)
					m = append(m, []any{acct, conv, "client", "hello there", db.Micros(at), us})
				}
				for i := 0; i < rows; i++ {
					at := db.Micros(old.Add(time.Duration(i) * time.Second))
					if i%2 == 1 {
						at = db.Micros(young.Add(time.Duration(i) * time.Second))
					}
					o = append(o, []any{acct, "booking_reminder", "whatsapp", "body", "sent", at, at})
					a = append(a, []any{acct, "updated", "service", at})
				}
				must := func(err error) {
					if err != nil {
						b.Fatal(err)
					}
				}
				must(store.Transact(ctx, func(tx *db.Tx) error {
					if err := db.InsertMany(ctx, tx, `INSERT INTO messages (account_id, conversation_id, sender_kind, content, sent_at, created_at)`, m, ""); err != nil {
						return err
					}
					if err := db.InsertMany(ctx, tx, `INSERT INTO outbox (account_id, kind, channel, body, status, scheduled_at, created_at)`, o, ""); err != nil {
						return err
					}
					return db.InsertMany(ctx, tx, `INSERT INTO audit_log (account_id, action, object_type, created_at)`, a, "")
				}))
			}
			seed()
			acctRow, err := retentionAccount(ctx, store)
			if err != nil {
				b.Fatal(err)
			}
			b.ResetTimer()
			for i := 0; i < b.N; i++ {
				if i > 0 {
					b.StopTimer()
					store.Exec(ctx, `UPDATE messages SET content = 'hello there' WHERE account_id = ?`, acct)
					seed()
					b.StartTimer()
				}
				rep, err := retention.Run(ctx, store, acctRow, now, false)
				if err != nil {
					b.Fatal(err)
				}
				if rep.Results[0].Count < msgs/2 {
					b.Fatalf("%+v", rep)
				}
			}
			// The next day's run over the same data: nothing left to remove.
			b.StopTimer()
			start := time.Now()
			if _, err := retention.Run(ctx, store, acctRow, now, false); err != nil {
				b.Fatal(err)
			}
			b.ReportMetric(float64(time.Since(start).Milliseconds()), "ms/next-run")
		})
	}
}
