package jobs_test

import (
	"context"
	"encoding/json"
	"testing"
	"time"

	"github.com/frontdesk/frontdesk/internal/db"
	"github.com/frontdesk/frontdesk/internal/db/dbtest"
	"github.com/frontdesk/frontdesk/internal/jobs"
)

// An automation message queued inside quiet hours is first tried when they
// end: its job is not due before, so the worker never claims it only to
// defer it. Outside quiet hours it is due at once. Either way it is sent
// once, at the right time.
func TestQuietHoursScheduleTheFirstTry(t *testing.T) {
	madrid, _ := time.LoadLocation("Europe/Madrid")
	for _, tc := range []struct {
		name     string
		at       time.Time
		firstTry time.Time
	}{
		{"inside quiet hours", time.Date(2026, 11, 23, 22, 30, 0, 0, madrid), time.Date(2026, 11, 24, 9, 0, 0, 0, madrid)},
		{"outside quiet hours", time.Date(2026, 11, 23, 12, 0, 0, 0, madrid), time.Date(2026, 11, 23, 12, 0, 0, 0, madrid)},
	} {
		t.Run(tc.name, func(t *testing.T) {
			dbtest.Engines(t, func(t *testing.T, store *db.DB) {
				ctx := context.Background()
				e := setup(t, store)
				var raw string
				if err := store.QueryRow(ctx, `SELECT messaging FROM accounts WHERE id = ?`, e.acct.ID).Scan(&raw); err != nil {
					t.Fatal(err)
				}
				settings := map[string]any{}
				json.Unmarshal([]byte(raw), &settings)
				settings["quiet_hours"] = "21:00-09:00"
				data, _ := json.Marshal(settings)
				if _, err := store.Exec(ctx, `UPDATE accounts SET messaging = ? WHERE id = ?`, string(data), e.acct.ID); err != nil {
					t.Fatal(err)
				}
				e.clock.Set(tc.at)
				e.ingest(t, []string{"+34611000001"}, nil)
				e.drain(t)
				var runAt int64
				var attempts int
				if err := store.QueryRow(ctx, `SELECT j.run_at, j.attempts FROM jobs j JOIN outbox o ON o.account_id = j.account_id AND o.id = j.outbox_id
					WHERE o.kind = ?`, jobs.MsgAutomation).Scan(&runAt, &attempts); err != nil {
					t.Fatal(err)
				}
				if got := time.UnixMicro(runAt); !got.Equal(tc.firstTry) && !(tc.firstTry.Equal(tc.at) && attempts == 1) {
					t.Errorf("first try at %s (attempts %d), want %s", got.In(madrid), attempts, tc.firstTry)
				}
				if tc.firstTry.After(tc.at) && attempts != 0 {
					t.Errorf("the held message was tried %d times inside quiet hours", attempts)
				}
				e.clock.Set(tc.firstTry.Add(time.Minute))
				e.drain(t)
				var status string
				store.QueryRow(ctx, `SELECT status FROM outbox WHERE kind = ?`, jobs.MsgAutomation).Scan(&status)
				if status != "sent" {
					t.Errorf("after quiet hours the message is %q, want sent", status)
				}
			})
		})
	}
}

// A single message (a seat offer, a booking's confirmation) follows the same
// rule when it is queued: inside quiet hours that hold its kind, its job is
// first due when they end; a kind they never hold is due at once.
func TestQueueMessageInsideQuietHours(t *testing.T) {
	madrid, _ := time.LoadLocation("Europe/Madrid")
	night := time.Date(2026, 11, 23, 22, 30, 0, 0, madrid)
	dbtest.Engines(t, func(t *testing.T, store *db.DB) {
		ctx := context.Background()
		e := setup(t, store)
		if _, err := store.Exec(ctx, `UPDATE accounts SET messaging = ? WHERE id = ?`, `{"quiet_hours":"21:00-09:00"}`, e.acct.ID); err != nil {
			t.Fatal(err)
		}
		for _, tc := range []struct {
			kind string
			due  time.Time
		}{
			{jobs.MsgSeatOffer, time.Date(2026, 11, 24, 9, 0, 0, 0, madrid)},
			{jobs.MsgConfirmation, night},
		} {
			err := store.Transact(ctx, func(tx *db.Tx) error {
				return jobs.QueueMessage(ctx, tx, e.acct, night, jobs.Message{Kind: tc.kind, Channel: "sms", Recipient: "+34611000009",
					Body: "Hola", Source: jobs.MessageSource{Type: "test"}}, night, nil)
			})
			if err != nil {
				t.Fatal(err)
			}
			var runAt int64
			if err := store.QueryRow(ctx, `SELECT j.run_at FROM jobs j JOIN outbox o ON o.account_id = j.account_id AND o.id = j.outbox_id
				WHERE o.account_id = ? AND o.kind = ?`, e.acct.ID, tc.kind).Scan(&runAt); err != nil {
				t.Fatal(err)
			}
			if got := time.UnixMicro(runAt); !got.Equal(tc.due) {
				t.Errorf("%s queued at 22:30: due %s, want %s", tc.kind, got.In(madrid), tc.due)
			}
		}
	})
}
