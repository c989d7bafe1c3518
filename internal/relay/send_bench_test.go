package relay_test

import (
	"context"
	"fmt"
	"net/http/httptest"
	"testing"
	"time"

	"github.com/frontdesk/frontdesk/internal/account"
	"github.com/frontdesk/frontdesk/internal/channels"
	"github.com/frontdesk/frontdesk/internal/channels/channelstest"
	"github.com/frontdesk/frontdesk/internal/clock"
	"github.com/frontdesk/frontdesk/internal/db"
	"github.com/frontdesk/frontdesk/internal/db/dbtest"
	"github.com/frontdesk/frontdesk/internal/jobs"
	"github.com/frontdesk/frontdesk/internal/outbound"
	"github.com/frontdesk/frontdesk/internal/relay"
	"github.com/frontdesk/frontdesk/internal/secrets"
	"github.com/frontdesk/frontdesk/internal/workspace"
)

// BenchmarkSendThroughWorker measures the job worker's send throughput:
// 400 queued messages go out through the account's channel with the
// worker's defaults (64 sends under way, at most 8 to one provider: the
// log channel has none and gets 64), with every write the worker does per
// message (the provider's answer, the completion, the conversation). The
// "log" channel answers at once, so the database is the whole cost; the
// Twilio case answers in 20 ms like a real provider. It reports messages
// per second (msgs/s); run it with
//
//	FRONTDESK_TEST_POSTGRES=postgres://... go test ./internal/relay -run '^$' -bench SendThroughWorker -benchtime 5x
func BenchmarkSendThroughWorker(b *testing.B) {
	const n = 400
	for _, e := range []db.Engine{db.SQLite, db.Postgres} {
		for _, provider := range []string{"log", "twilio_20ms"} {
			b.Run(string(e)+"/"+provider, func(b *testing.B) {
				store := dbtest.Open(b, e)
				ctx := context.Background()
				box, _ := secrets.New([]byte("0123456789abcdef0123456789abcdef"))
				if _, err := (&workspace.Applier{DB: store, Now: clock.System{}.Now, Targets: outbound.Policy{AllowPrivate: true}}).Apply(ctx,
					[]byte(`account: {slug: bench, name: Bench, timezone: Europe/Madrid, default_region: ES}`)); err != nil {
					b.Fatal(err)
				}
				acct, _ := account.BySlug(ctx, store, "bench")
				ch := channels.Channel{Key: "out", Type: channels.TypeLog, Provider: channels.ProviderLog, Active: true}
				if provider != "log" {
					fake := &channelstest.Twilio{SID: "AC1", Token: "twilio-token", Delay: 20 * time.Millisecond}
					srv := httptest.NewServer(fake)
					b.Cleanup(srv.Close)
					ch = channels.Channel{Key: "out", Type: channels.TypeSMS, Provider: channels.ProviderTwilio, From: "+34910000001", APIBase: srv.URL,
						Active: true, Credentials: map[string]string{"account_sid": "AC1", "auth_token": "twilio-token"}}
				}
				if err := store.Transact(ctx, func(tx *db.Tx) error {
					_, _, err := channels.Save(ctx, tx, box, acct, ch, "", time.Now())
					return err
				}); err != nil {
					b.Fatal(err)
				}
				store.Exec(ctx, `UPDATE accounts SET messaging = '{"default_channel":"out"}' WHERE id = ?`, acct.ID)
				d := &relay.Deliverer{DB: store, Secrets: box, Clock: clock.System{}, Slots: &jobs.Slots{}, Providers: &channels.Providers{Targets: outbound.Policy{AllowPrivate: true}}}
				fx := &jobs.Effects{Targets: outbound.Policy{AllowPrivate: true}, Clock: clock.System{}, Sender: relay.JobSender{Deliverer: d}}
				w := &jobs.Worker{DB: store, Clock: clock.System{}, Handlers: fx.Handlers(), BatchHandlers: fx.BatchHandlers(), Calls: fx.Calls()}
				var sent time.Duration
				for i := 0; i < b.N; i++ {
					b.StopTimer()
					now := time.Now()
					if err := store.Transact(ctx, func(tx *db.Tx) error {
						for k := 0; k < n; k++ {
							m := jobs.Message{Kind: jobs.MsgConfirmation, Channel: "sms", Recipient: fmt.Sprintf("+3460%02d%05d", i%100, k),
								Body: fmt.Sprintf("Cita %d-%d", i, k), Source: jobs.MessageSource{Type: "bench"}}
							if err := jobs.QueueMessage(ctx, tx, acct, now, m, now, nil); err != nil {
								return err
							}
						}
						return nil
					}); err != nil {
						b.Fatal(err)
					}
					b.StartTimer()
					start := time.Now()
					for {
						claimed, err := w.RunOnce(ctx)
						if err != nil {
							b.Fatal(err)
						}
						if claimed == 0 {
							break
						}
					}
					sent += time.Since(start)
				}
				var done int
				store.QueryRow(ctx, `SELECT COUNT(*) FROM outbox WHERE status = 'sent'`).Scan(&done)
				if done != n*b.N {
					b.Fatalf("%d of %d messages sent", done, n*b.N)
				}
				b.ReportMetric(float64(n*b.N)/sent.Seconds(), "msgs/s")
			})
		}
	}
}
