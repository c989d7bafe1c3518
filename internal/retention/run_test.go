package retention_test

import (
	"context"
	"testing"
	"time"

	"github.com/frontdesk/frontdesk/internal/account"
	"github.com/frontdesk/frontdesk/internal/db"
	"github.com/frontdesk/frontdesk/internal/db/dbtest"
	"github.com/frontdesk/frontdesk/internal/retention"
)

// now is the clock of every run below: 14:00 in Madrid (summer time).
var now = time.Date(2026, 6, 15, 12, 0, 0, 0, time.UTC)

// fixture is one account's rows just older and just younger than each cut-off.
type fixture struct {
	acct account.Account
	conv int64
	// ids by what they are
	oldMsg, youngMsg               int64
	oldOut, youngOut, oldPending   int64
	oldRunningJob                  int64
	oldHook, youngHook, oldHookJob int64
	oldAudit, youngAudit           int64
}

func mustExec(t *testing.T, store *db.DB, q string, args ...any) {
	t.Helper()
	if _, err := store.Exec(context.Background(), q, args...); err != nil {
		t.Fatalf("%s: %v", q, err)
	}
}

func mustID(t *testing.T, store *db.DB, q string, args ...any) int64 {
	t.Helper()
	var id int64
	if err := store.QueryRow(context.Background(), q+` RETURNING id`, args...).Scan(&id); err != nil {
		t.Fatalf("%s: %v", q, err)
	}
	return id
}

// seed makes an account with policy (a stored document or nil) and rows at
// the given cut-offs (the zero time: that kind gets rows a century old and
// a day old, so a policy without the kind must keep them).
func seed(t *testing.T, store *db.DB, slug, tz string, policy any, cut map[retention.Kind]time.Time) fixture {
	t.Helper()
	ctx := context.Background()
	us := db.Micros(now)
	mustExec(t, store, `INSERT INTO accounts (slug, name, timezone, retention, created_at, updated_at) VALUES (?, ?, ?, ?, ?, ?)`,
		slug, slug, tz, policy, us, us)
	acct, err := account.BySlug(ctx, store, slug)
	if err != nil {
		t.Fatal(err)
	}
	at := func(k retention.Kind, d time.Duration) int64 {
		c, ok := cut[k]
		if !ok {
			c = now.AddDate(-100, 0, 0)
			if d > 0 {
				c = now.Add(-24 * time.Hour)
			}
		}
		return db.Micros(c.Add(d))
	}
	f := fixture{acct: acct}
	f.conv = mustID(t, store, `INSERT INTO conversations (account_id, customer_phone_number, message_count, created_at, updated_at) VALUES (?, '+34600000000', 2, ?, ?)`,
		acct.ID, us, us)
	msg := `INSERT INTO messages (account_id, conversation_id, sender_kind, message_type, content, media, storage_key, sent_at, created_at)
		VALUES (?, ?, 'client', 'image', 'hello', '{"url":"x"}', 'blob/1', ?, ?)`
	f.oldMsg = mustID(t, store, msg, acct.ID, f.conv, at(retention.Messages, -time.Second), us)
	f.youngMsg = mustID(t, store, msg, acct.ID, f.conv, at(retention.Messages, time.Second), us)

	out := `INSERT INTO outbox (account_id, kind, channel, recipient, body, status, scheduled_at, created_at) VALUES (?, ?, 'whatsapp', 'x', 'body', ?, ?, ?)`
	old, young := at(retention.Outbox, -time.Second), at(retention.Outbox, time.Second)
	f.oldOut = mustID(t, store, out, acct.ID, "booking_reminder", "sent", old, old)
	f.oldPending = mustID(t, store, out, acct.ID, "booking_reminder", "pending", old, old)
	running := mustID(t, store, out, acct.ID, "booking_reminder", "failed", old, old)
	f.oldRunningJob = mustID(t, store, `INSERT INTO jobs (account_id, kind, status, run_at, created_at, outbox_id) VALUES (?, 'outbox_send', 'running', ?, ?, ?)`,
		acct.ID, old, old, running)
	f.youngOut = mustID(t, store, out, acct.ID, "booking_reminder", "cancelled", young, young)

	old, young = at(retention.WebhookDeliveries, -time.Second), at(retention.WebhookDeliveries, time.Second)
	f.oldHook = mustID(t, store, out, acct.ID, "webhook", "failed", old, old)
	f.oldHookJob = mustID(t, store, `INSERT INTO jobs (account_id, kind, status, run_at, created_at, outbox_id) VALUES (?, 'webhook_delivery', 'failed', ?, ?, ?)`,
		acct.ID, old, old, f.oldHook)
	for i := 1; i <= 2; i++ {
		mustExec(t, store, `INSERT INTO job_attempts (account_id, job_id, attempt, at, ok, error) VALUES (?, ?, ?, ?, FALSE, 'HTTP 500')`, acct.ID, f.oldHookJob, i, old)
	}
	f.youngHook = mustID(t, store, out, acct.ID, "webhook", "sent", young, young)
	job := mustID(t, store, `INSERT INTO jobs (account_id, kind, status, run_at, created_at, outbox_id) VALUES (?, 'webhook_delivery', 'done', ?, ?, ?)`,
		acct.ID, young, young, f.youngHook)
	mustExec(t, store, `INSERT INTO job_attempts (account_id, job_id, attempt, at, ok) VALUES (?, ?, 1, ?, TRUE)`, acct.ID, job, young)

	audit := `INSERT INTO audit_log (account_id, user_name, action, object_type, summary, created_at) VALUES (?, 'Ana', 'updated', 'service', 'x', ?)`
	f.oldAudit = mustID(t, store, audit, acct.ID, at(retention.Audit, -time.Second))
	f.youngAudit = mustID(t, store, audit, acct.ID, at(retention.Audit, time.Second))
	return f
}

func exists(t *testing.T, store *db.DB, table string, id int64) bool {
	t.Helper()
	var n int
	if err := store.QueryRow(context.Background(), `SELECT COUNT(*) FROM `+table+` WHERE id = ?`, id).Scan(&n); err != nil {
		t.Fatal(err)
	}
	return n == 1
}

func content(t *testing.T, store *db.DB, id int64) string {
	t.Helper()
	var c string
	var media, key *string
	if err := store.QueryRow(context.Background(), `SELECT content, media, storage_key FROM messages WHERE id = ?`, id).Scan(&c, &media, &key); err != nil {
		t.Fatal(err)
	}
	if media != nil || key != nil {
		c += "+media"
	}
	return c
}

// snapshot is every row's survival and every message's content, to show a
// dry run or another account's run changed nothing.
func snapshot(t *testing.T, store *db.DB) string {
	t.Helper()
	var s string
	for _, q := range []string{
		`SELECT COUNT(*) || '/' || COALESCE(SUM(LENGTH(content)), 0) || '/' || COUNT(media) FROM messages`,
		`SELECT COUNT(*) || '' FROM outbox`, `SELECT COUNT(*) || '' FROM jobs`,
		`SELECT COUNT(*) || '' FROM job_attempts`, `SELECT COUNT(*) || '' FROM audit_log`,
	} {
		var v string
		if err := store.QueryRow(context.Background(), q).Scan(&v); err != nil {
			t.Fatal(err)
		}
		s += v + " "
	}
	return s
}

func TestRetentionRun(t *testing.T) {
	dbtest.Engines(t, func(t *testing.T, store *db.DB) {
		ctx := context.Background()
		// Madrid: 14:00 local; the cut-offs are the same wall-clock time in
		// Madrid 24 months, 12 months, 90 days and 3 years earlier.
		madrid, _ := time.LoadLocation("Europe/Madrid")
		cutA := map[retention.Kind]time.Time{
			retention.Messages:          time.Date(2024, 6, 15, 14, 0, 0, 0, madrid),
			retention.Outbox:            time.Date(2025, 6, 15, 14, 0, 0, 0, madrid),
			retention.WebhookDeliveries: time.Date(2026, 3, 17, 14, 0, 0, 0, madrid), // 90 days, across the March change
			retention.Audit:             time.Date(2023, 6, 15, 14, 0, 0, 0, madrid),
		}
		a := seed(t, store, "alpha", "Europe/Madrid",
			`{"messages":"24mo","outbox":"12mo","webhook_deliveries":"90d","audit":"3y"}`, cutA)
		// beta keeps only messages for a month; its other rows are a
		// century old and must stay.
		cutB := map[retention.Kind]time.Time{retention.Messages: time.Date(2026, 5, 15, 12, 0, 0, 0, time.UTC)}
		b := seed(t, store, "beta", "UTC", `{"messages":"1mo"}`, cutB)
		// gamma has no policy: everything stays, however old.
		g := seed(t, store, "gamma", "UTC", nil, nil)
		// A newest row in every table, as a live database has.
		seed(t, store, "delta", "UTC", nil, map[retention.Kind]time.Time{
			retention.Messages: now, retention.Outbox: now, retention.WebhookDeliveries: now, retention.Audit: now})

		before := snapshot(t, store)
		dry, err := retention.Run(ctx, store, a.acct, now, true)
		if err != nil {
			t.Fatal(err)
		}
		if got := snapshot(t, store); got != before {
			t.Fatalf("the dry run changed rows: %s -> %s", before, got)
		}
		want := map[retention.Kind]int64{retention.Messages: 1, retention.Outbox: 1, retention.WebhookDeliveries: 1, retention.Audit: 1}
		check := func(name string, rep retention.Report) {
			t.Helper()
			if len(rep.Results) != 4 {
				t.Fatalf("%s: %+v", name, rep)
			}
			for _, r := range rep.Results {
				if r.Count != want[r.Kind] || !r.Cutoff.Equal(cutA[r.Kind]) {
					t.Errorf("%s %s: count %d cutoff %s, want %d at %s", name, r.Kind, r.Count, r.Cutoff, want[r.Kind], cutA[r.Kind].UTC())
				}
			}
		}
		check("dry run", dry)

		rep, err := retention.Run(ctx, store, a.acct, now, false)
		if err != nil {
			t.Fatal(err)
		}
		check("run", rep)

		for _, c := range []struct {
			name, table string
			id          int64
			kept        bool
		}{
			{"old message row", "messages", a.oldMsg, true},
			{"old sent message", "outbox", a.oldOut, false},
			{"old pending message", "outbox", a.oldPending, true},
			{"old failed message with a running job", "jobs", a.oldRunningJob, true},
			{"young message", "outbox", a.youngOut, true},
			{"old webhook delivery", "outbox", a.oldHook, false},
			{"old webhook delivery's job", "jobs", a.oldHookJob, false},
			{"young webhook delivery", "outbox", a.youngHook, true},
			{"old audit entry", "audit_log", a.oldAudit, false},
			{"young audit entry", "audit_log", a.youngAudit, true},
			{"beta's century-old message", "outbox", b.oldOut, true},
			{"beta's century-old webhook delivery", "outbox", b.oldHook, true},
			{"beta's century-old audit entry", "audit_log", b.oldAudit, true},
			{"gamma's century-old audit entry", "audit_log", g.oldAudit, true},
			{"gamma's century-old webhook delivery", "outbox", g.oldHook, true},
		} {
			if got := exists(t, store, c.table, c.id); got != c.kept {
				t.Errorf("%s (%s %d): kept %v, want %v", c.name, c.table, c.id, got, c.kept)
			}
		}
		var attempts int
		store.QueryRow(ctx, `SELECT COUNT(*) FROM job_attempts WHERE job_id = ?`, a.oldHookJob).Scan(&attempts)
		if attempts != 0 {
			t.Errorf("the old delivery's %d attempts stayed", attempts)
		}
		for _, c := range []struct {
			name string
			id   int64
			want string
		}{
			{"alpha's old message", a.oldMsg, ""},
			{"alpha's young message", a.youngMsg, "hello+media"},
			{"beta's old message", b.oldMsg, "hello+media"},
			{"gamma's old message", g.oldMsg, "hello+media"},
		} {
			if got := content(t, store, c.id); got != c.want {
				t.Errorf("%s: %q, want %q", c.name, got, c.want)
			}
		}
		var count int
		store.QueryRow(ctx, `SELECT message_count FROM conversations WHERE id = ?`, a.conv).Scan(&count)
		if count != 2 {
			t.Errorf("conversation count %d, want 2", count)
		}

		// Again: nothing is left to go, and the last run is remembered.
		again, err := retention.Run(ctx, store, a.acct, now, false)
		if err != nil {
			t.Fatal(err)
		}
		for _, r := range again.Results {
			if r.Count != 0 {
				t.Errorf("second run: %s removed %d", r.Kind, r.Count)
			}
		}
		st, err := retention.Load(ctx, store, a.acct)
		if err != nil || st.LastRun == nil || !st.LastRun.At.Equal(now) || len(st.LastRun.Results) != 4 {
			t.Fatalf("last run %+v (%v)", st.LastRun, err)
		}

		// beta: its old message is blanked, its young one kept.
		if _, err := retention.Run(ctx, store, b.acct, now, false); err != nil {
			t.Fatal(err)
		}
		if content(t, store, b.oldMsg) != "" || content(t, store, b.youngMsg) != "hello+media" {
			t.Errorf("beta: old %q young %q", content(t, store, b.oldMsg), content(t, store, b.youngMsg))
		}
		// gamma: no policy, nothing goes.
		before = snapshot(t, store)
		rep, err = retention.Run(ctx, store, g.acct, now, false)
		if err != nil || len(rep.Results) != 0 || snapshot(t, store) != before {
			t.Errorf("gamma: %+v, %v", rep, err)
		}
	})
}

// Batches: more rows than one batch holds all go, in several statements.
func TestRetentionBatches(t *testing.T) {
	dbtest.Engines(t, func(t *testing.T, store *db.DB) {
		old := retention.BatchSize
		retention.BatchSize = 3
		t.Cleanup(func() { retention.BatchSize = old })
		ctx := context.Background()
		f := seed(t, store, "alpha", "UTC", `{"messages":"1d","audit":"1d"}`, nil)
		for i := 0; i < 10; i++ {
			mustExec(t, store, `INSERT INTO messages (account_id, conversation_id, sender_kind, content, sent_at, created_at) VALUES (?, ?, 'client', 'hi', ?, ?)`,
				f.acct.ID, f.conv, db.Micros(now.AddDate(0, 0, -5)), db.Micros(now))
			mustExec(t, store, `INSERT INTO audit_log (account_id, action, object_type, created_at) VALUES (?, 'updated', 'service', ?)`,
				f.acct.ID, db.Micros(now.AddDate(0, 0, -5)))
		}
		mustExec(t, store, `INSERT INTO audit_log (account_id, action, object_type, created_at) VALUES (?, 'updated', 'service', ?)`, f.acct.ID, db.Micros(now))
		rep, err := retention.Run(ctx, store, f.acct, now, false)
		if err != nil {
			t.Fatal(err)
		}
		// 10 + the fixture's century-old message and audit entry.
		for _, r := range rep.Results {
			if r.Count != 11 {
				t.Errorf("%s: %d, want 11", r.Kind, r.Count)
			}
		}
	})
}

func retentionAccount(ctx context.Context, store *db.DB) (account.Account, error) {
	return account.BySlug(ctx, store, "big")
}
