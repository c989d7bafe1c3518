package chat_test

import (
	"context"
	"os"
	"testing"
	"time"

	"github.com/frontdesk/frontdesk/internal/account"
	"github.com/frontdesk/frontdesk/internal/chat"
	"github.com/frontdesk/frontdesk/internal/db"
	"github.com/frontdesk/frontdesk/internal/db/dbtest"
	"github.com/frontdesk/frontdesk/internal/errs"
	"github.com/frontdesk/frontdesk/internal/workspace"
)

// The inbox's views, unread state and assignment, against the demo
// workspace's history plus three new patients; another account's users and
// conversations are unknown.
func TestInboxViews(t *testing.T) {
	dbtest.Engines(t, func(t *testing.T, store *db.DB) {
		ctx := context.Background()
		now := time.Date(2026, 11, 23, 9, 0, 0, 0, time.UTC)
		ws := &workspace.Applier{DB: store, Now: func() time.Time { return now }}
		if _, err := ws.Apply(ctx, workspace.Demo()); err != nil {
			t.Fatal(err)
		}
		acme, err := os.ReadFile("../workspace/testdata/acme.yaml")
		if err != nil {
			t.Fatal(err)
		}
		if _, err := ws.Apply(ctx, acme); err != nil {
			t.Fatal(err)
		}
		demo, _ := account.BySlug(ctx, store, "demo")
		other, _ := account.BySlug(ctx, store, "acme")
		var channel, marta, ana, acmeConv int64
		store.QueryRow(ctx, `SELECT id FROM channels WHERE account_id = ?`, demo.ID).Scan(&channel)
		store.QueryRow(ctx, `SELECT id FROM users WHERE account_id = ? AND file_key = 'marta'`, demo.ID).Scan(&marta)
		store.QueryRow(ctx, `SELECT id FROM users WHERE account_id = ? AND file_key = 'ana'`, other.ID).Scan(&ana)
		store.QueryRow(ctx, `SELECT id FROM conversations WHERE account_id = ?`, other.ID).Scan(&acmeConv)
		// Every conversation read before the new patients write.
		if _, err := store.Exec(ctx, `UPDATE conversations SET read_at = ?`, db.Micros(now)); err != nil {
			t.Fatal(err)
		}
		if n, _ := chat.UnreadCount(ctx, store, demo); n != 0 {
			t.Fatalf("unread after reading all = %d", n)
		}
		now = now.Add(time.Minute)
		convs := map[string]int64{}
		for _, national := range []string{"699000001", "699000002", "699000003"} {
			store.Transact(ctx, func(tx *db.Tx) error {
				id, _, _, err := chat.RecordChannelMessage(ctx, tx, demo, chat.ChannelMessage{ChannelID: channel, Phone: "+34" + national,
					PhoneNational: national, Inbound: true, Content: "hola", At: now.Add(-48 * time.Hour)}, now) // stamped in the past
				convs[national] = id
				return err
			})
		}
		item := func(id int64) chat.InboxItem {
			t.Helper()
			it, err := chat.InboxConversation(ctx, store, demo, id)
			if err != nil {
				t.Fatal(err)
			}
			return it
		}
		if n, _ := chat.UnreadCount(ctx, store, demo); n != 3 {
			t.Fatalf("unread: %d conversations, want the 3 new ones", n)
		}
		for _, id := range convs {
			if it := item(id); !it.Unread || it.ChannelID != channel || it.ChannelKey == "" || it.Assignee != nil {
				t.Errorf("unread item %+v", it)
			}
		}

		a, b := convs["699000001"], convs["699000002"]
		if err := chat.MarkRead(ctx, store, demo, a, now); err != nil {
			t.Fatal(err)
		}
		if n, _ := chat.UnreadCount(ctx, store, demo); n != 2 {
			t.Errorf("unread after reading one = %d, want 2", n)
		}
		if err := chat.Assign(ctx, store, demo, b, marta); err != nil {
			t.Fatal(err)
		}
		if it := item(b); it.Assignee == nil || it.Assignee.Name != "Marta Jiménez" {
			t.Errorf("assigned: %+v", it.Assignee)
		}
		if item(a).Unread || !item(b).Unread {
			t.Errorf("a unread %v, b unread %v", item(a).Unread, item(b).Unread)
		}

		// Tenancy: acme's user is no team member of demo; acme's
		// conversation does not exist for demo.
		if err := chat.Assign(ctx, store, demo, b, ana); !errs.Is(err, errs.ValidationError) {
			t.Errorf("another account's user: %v", err)
		}
		if err := chat.Assign(ctx, store, demo, acmeConv, marta); !errs.Is(err, errs.NotFound) {
			t.Errorf("another account's conversation: %v", err)
		}
		if _, err := chat.InboxConversation(ctx, store, demo, acmeConv); !errs.Is(err, errs.NotFound) {
			t.Errorf("another account's conversation read: %v", err)
		}
		if err := chat.Assign(ctx, store, demo, b, 0); err != nil {
			t.Fatal(err)
		}
		if it, _ := chat.InboxConversation(ctx, store, demo, b); it.Assignee != nil {
			t.Errorf("still assigned: %+v", it.Assignee)
		}

		// A team member's message reads the conversation and counts.
		now = now.Add(time.Minute)
		err = store.Transact(ctx, func(tx *db.Tx) error {
			_, err := chat.AppendUserMessage(ctx, tx, demo, b, marta, "  ¡Hola!  ", now)
			return err
		})
		if err != nil {
			t.Fatal(err)
		}
		it, _ := chat.InboxConversation(ctx, store, demo, b)
		if it.Unread || it.MessageCount != 2 {
			t.Errorf("after a reply: %+v", it)
		}
		var content, kind string
		store.QueryRow(ctx, `SELECT content, sender_kind FROM messages WHERE conversation_id = ? ORDER BY id DESC LIMIT 1`, b).Scan(&content, &kind)
		if content != "¡Hola!" || kind != "user" {
			t.Errorf("stored %q as %s", content, kind)
		}
		err = store.Transact(ctx, func(tx *db.Tx) error {
			_, err := chat.AppendUserMessage(ctx, tx, demo, b, ana, "hola", now)
			return err
		})
		if !errs.Is(err, errs.ValidationError) {
			t.Errorf("another account's user wrote: %v", err)
		}
	})
}
