package relay_test

import (
	"context"
	"net/http/httptest"
	"testing"

	"github.com/frontdesk/frontdesk/internal/channels/channelstest"
	"github.com/frontdesk/frontdesk/internal/db"
	"github.com/frontdesk/frontdesk/internal/db/dbtest"
	"github.com/frontdesk/frontdesk/internal/jobs"
)

// TestVerificationCodeStaysOutOfChat: a verification code goes out through
// the channel but joins no conversation, while a confirmation request sent
// the same way does.
func TestVerificationCodeStaysOutOfChat(t *testing.T) {
	dbtest.Engines(t, func(t *testing.T, store *db.DB) {
		e := newEnv(t, store)
		ctx := context.Background()
		fake := &channelstest.Twilio{SID: "AC1", Token: "twilio-token"}
		srv := httptest.NewServer(fake)
		defer srv.Close()
		if _, err := store.Exec(ctx, `UPDATE channels SET api_base = ? WHERE id = ?`, srv.URL, e.sms.ID); err != nil {
			t.Fatal(err)
		}
		key := e.sms.Key
		err := store.Transact(ctx, func(tx *db.Tx) error {
			for kind, to := range map[string]string{jobs.MsgVerificationCode: "+34699000001", jobs.MsgConfirmation: "+34699000002"} {
				if err := jobs.QueueMessage(ctx, tx, e.acct, testNow, jobs.Message{Kind: kind, Channel: "sms", Recipient: to,
					Body: "Your code is 123456.", ChannelKey: &key, Source: jobs.MessageSource{Type: "test"}}, testNow, nil); err != nil {
					return err
				}
			}
			return nil
		})
		if err != nil {
			t.Fatal(err)
		}
		e.sendAll(t)
		if got := fake.Accepted(); len(got) != 2 {
			t.Fatalf("Twilio got %d messages, want 2", len(got))
		}
		for to, want := range map[string]int{"+34699000001": 0, "+34699000002": 1} {
			var n int
			store.QueryRow(ctx, `SELECT COUNT(*) FROM conversations WHERE account_id = ? AND customer_phone_number = ?`, e.acct.ID, to).Scan(&n)
			if n != want {
				t.Errorf("%s: %d conversations, want %d", to, n, want)
			}
		}
	})
}
