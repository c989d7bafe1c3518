package chat_test

import (
	"context"
	"fmt"
	"reflect"
	"testing"
	"time"

	"github.com/frontdesk/frontdesk/internal/chat"
	"github.com/frontdesk/frontdesk/internal/db"
	"github.com/frontdesk/frontdesk/internal/db/dbtest"
)

// RecordChannelMessages leaves what recording the same messages one by one
// with RecordChannelMessage leaves: the same conversations (joined when open,
// opened otherwise), counts, last message times, and no repeat of a
// provider id, whether recorded before or twice in the batch.
func TestRecordChannelMessagesMatchesOneByOne(t *testing.T) {
	dbtest.Engines(t, func(t *testing.T, store *db.DB) {
		ctx := context.Background()
		now := time.Date(2026, 11, 23, 9, 0, 0, 0, time.UTC)
		acct, channel := demoChannel(t, store, now)
		msg := func(national, provider, body string, inbound bool, at time.Time) chat.ChannelMessage {
			return chat.ChannelMessage{ChannelID: channel, Phone: "+34" + national, PhoneNational: national, Inbound: inbound,
				Content: body, ProviderID: provider, At: at}
		}
		// Two rounds, each recorded one by one under one prefix and as a
		// batch under another: the second round joins what the first
		// opened, repeats a provider id, and opens new conversations.
		round := func(prefix string, r int) []chat.ChannelMessage {
			at := now.Add(time.Duration(r) * time.Hour)
			return []chat.ChannelMessage{
				msg(prefix+"0001", prefix+fmt.Sprint("p1-", r), "hola", false, at),
				msg(prefix+"0001", prefix+fmt.Sprint("p2-", r), "¿vienes?", false, at.Add(time.Second)),
				msg(prefix+"0002", "", "sin id", false, at),
				msg(prefix+"0003", prefix+"dup", "repetido", r == 1, at),
				msg(prefix+"0003", prefix+"dup", "repetido otra vez", false, at),
				msg(prefix+fmt.Sprint("00", 4+r), "", "nuevo", r == 1, at.Add(-time.Minute)),
			}
		}
		for r := 0; r < 2; r++ {
			at := now.Add(time.Duration(r) * time.Hour)
			err := store.Transact(ctx, func(tx *db.Tx) error {
				for _, m := range round("61100", r) {
					if _, _, _, err := chat.RecordChannelMessage(ctx, tx, acct, m, at); err != nil {
						return err
					}
				}
				return chat.RecordChannelMessages(ctx, tx, acct, round("62200", r), at)
			})
			if err != nil {
				t.Fatal(err)
			}
		}
		// A resolved conversation is not joined.
		store.Exec(ctx, `UPDATE conversations SET status = 'resolved' WHERE phone_national IN ('611000002', '622000002')`)
		at := now.Add(2 * time.Hour)
		err := store.Transact(ctx, func(tx *db.Tx) error {
			if _, _, _, err := chat.RecordChannelMessage(ctx, tx, acct, msg("611000002", "", "otra", false, at), at); err != nil {
				return err
			}
			return chat.RecordChannelMessages(ctx, tx, acct, []chat.ChannelMessage{msg("622000002", "", "otra", false, at)}, at)
		})
		if err != nil {
			t.Fatal(err)
		}
		state := func(prefix string) []string {
			rows, err := store.Query(ctx, `SELECT c.phone_national, c.status, c.direction, c.message_count, c.last_message_at, c.updated_at,
					m.sender_kind, m.content, COALESCE(m.provider_message_id, ''), m.sent_at
				FROM conversations c JOIN messages m ON m.account_id = c.account_id AND m.conversation_id = c.id
				WHERE c.account_id = ? AND c.phone_national LIKE ? ORDER BY c.phone_national, c.id, m.sent_at, m.content`, acct.ID, prefix+"%")
			if err != nil {
				t.Fatal(err)
			}
			defer rows.Close()
			var out []string
			for rows.Next() {
				var national, status, direction, kind, content, provider string
				var count, last, updated, sent int64
				if err := rows.Scan(&national, &status, &direction, &count, &last, &updated, &kind, &content, &provider, &sent); err != nil {
					t.Fatal(err)
				}
				out = append(out, fmt.Sprintf("%s %s %s %d %d %d %s %s %s %d", national[5:], status, direction, count, last, updated, kind, content,
					provider[min(5, len(provider)):], sent))
			}
			return out
		}
		one, batch := state("61100"), state("62200")
		if len(one) != 10 || !reflect.DeepEqual(one, batch) {
			t.Errorf("one by one:\n%q\nbatch:\n%q", one, batch)
		}
	})
}
