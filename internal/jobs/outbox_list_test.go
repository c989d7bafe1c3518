package jobs_test

import (
	"context"
	"os"
	"testing"
	"time"

	"github.com/frontdesk/frontdesk/internal/account"
	"github.com/frontdesk/frontdesk/internal/db"
	"github.com/frontdesk/frontdesk/internal/db/dbtest"
	"github.com/frontdesk/frontdesk/internal/jobs"
	"github.com/frontdesk/frontdesk/internal/workspace"
)

// The outbox filters are part of the query: the limit counts matching
// messages only, so an old match is found behind many newer non-matches, and
// another account's messages never match.
func TestListOutboxFiltered(t *testing.T) {
	dbtest.Engines(t, func(t *testing.T, store *db.DB) {
		ctx := context.Background()
		now := time.Date(2026, 11, 23, 9, 0, 0, 0, time.UTC)
		accts := map[string]account.Account{}
		for slug, file := range map[string]string{"acme": "../workspace/testdata/acme.yaml", "other": "../httpapi/testdata/other.yaml"} {
			data, err := os.ReadFile(file)
			if err != nil {
				t.Fatal(err)
			}
			if _, err := (&workspace.Applier{DB: store, Now: func() time.Time { return now }}).Apply(ctx, data); err != nil {
				t.Fatal(err)
			}
			if accts[slug], err = account.BySlug(ctx, store, slug); err != nil {
				t.Fatal(err)
			}
		}
		acme, other := accts["acme"], accts["other"]
		queue := func(acct account.Account, kind, key, status string) int64 {
			t.Helper()
			m := jobs.Message{Kind: kind, Channel: "sms", Recipient: "+34600111222", Body: "hola", Source: jobs.MessageSource{Type: "test"}}
			if key != "" {
				m.ChannelKey = &key
			}
			if err := store.Transact(ctx, func(tx *db.Tx) error {
				return jobs.QueueMessage(ctx, tx, acct, now, m, now, nil)
			}); err != nil {
				t.Fatal(err)
			}
			var id int64
			if err := store.QueryRow(ctx, `SELECT MAX(id) FROM outbox WHERE account_id = ?`, acct.ID).Scan(&id); err != nil {
				t.Fatal(err)
			}
			if _, err := store.Exec(ctx, `UPDATE outbox SET status = ? WHERE id = ?`, status, id); err != nil {
				t.Fatal(err)
			}
			return id
		}
		// The oldest acme message is the only suppressed one on "wa".
		old := queue(acme, jobs.MsgSeatOffer, "wa", jobs.StatusSuppressed)
		for i := 0; i < 5; i++ {
			queue(acme, jobs.MsgConfirmation, "sms", jobs.StatusSent)
		}
		queue(acme, jobs.MsgAutomation, "wa", jobs.StatusDelivered)
		queue(acme, jobs.MsgWebhook, "", jobs.StatusPending)
		otherWA := queue(other, jobs.MsgSeatOffer, "wa", jobs.StatusSuppressed)

		ids := func(list []jobs.Message) []int64 {
			out := []int64{}
			for _, m := range list {
				out = append(out, m.ID)
			}
			return out
		}
		for _, test := range []struct {
			name  string
			acct  account.Account
			f     jobs.OutboxFilter
			limit int
			want  int // matching messages
			first int64
		}{
			{"status behind newer messages", acme, jobs.OutboxFilter{Status: jobs.StatusSuppressed}, 1, 1, old},
			{"channel and status", acme, jobs.OutboxFilter{ChannelKey: "wa", Status: jobs.StatusSuppressed}, 1, 1, old},
			{"kind and channel", acme, jobs.OutboxFilter{Kind: jobs.MsgSeatOffer, ChannelKey: "wa"}, 10, 1, old},
			{"channel", acme, jobs.OutboxFilter{ChannelKey: "wa"}, 10, 2, 0},
			{"kind", acme, jobs.OutboxFilter{Kind: jobs.MsgConfirmation}, 3, 3, 0},
			{"no filter", acme, jobs.OutboxFilter{}, 100, 8, 0},
			{"unknown channel", acme, jobs.OutboxFilter{ChannelKey: "nope"}, 10, 0, 0},
			{"unknown status", acme, jobs.OutboxFilter{Status: "bogus"}, 10, 0, 0},
			{"other account", other, jobs.OutboxFilter{ChannelKey: "wa"}, 10, 1, otherWA},
		} {
			t.Run(test.name, func(t *testing.T) {
				list, err := jobs.ListOutboxFiltered(ctx, store, test.acct, test.f, test.limit)
				if err != nil {
					t.Fatal(err)
				}
				if len(list) != test.want {
					t.Fatalf("got %d messages %v, want %d", len(list), ids(list), test.want)
				}
				for i, m := range list {
					if i > 0 && m.ID >= list[i-1].ID {
						t.Fatalf("not newest first: %v", ids(list))
					}
					if (test.f.Kind != "" && m.Kind != test.f.Kind) || (test.f.Status != "" && m.Status != test.f.Status) ||
						(test.f.ChannelKey != "" && (m.ChannelKey == nil || *m.ChannelKey != test.f.ChannelKey)) {
						t.Fatalf("message %d does not match %+v: %+v", m.ID, test.f, m)
					}
				}
				if test.first != 0 && list[0].ID != test.first {
					t.Fatalf("first = %d, want %d", list[0].ID, test.first)
				}
			})
		}
		// ListOutbox keeps its behaviour: every message, newest first, limited.
		all, err := jobs.ListOutbox(ctx, store, acme, 3)
		if err != nil || len(all) != 3 || all[0].Kind != jobs.MsgWebhook {
			t.Fatalf("ListOutbox = %v, %v", ids(all), err)
		}
	})
}
