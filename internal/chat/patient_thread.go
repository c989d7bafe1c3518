package chat

// One patient's thread (docs/inbox.md): the messages of all the client's
// conversations, whatever their channel, in one timeline; reading and
// resolving it act on every conversation of the client.

import (
	"context"
	"fmt"
	"hash/fnv"
	"slices"
	"time"

	"github.com/frontdesk/frontdesk/internal/account"
	"github.com/frontdesk/frontdesk/internal/db"
)

// MaxThreadMessages is how many of a thread's newest messages its page shows.
const MaxThreadMessages = 500

// ThreadMessage is a message of a patient's thread with the conversation
// and channel it belongs to.
type ThreadMessage struct {
	Message
	SessionID  int64
	ChannelKey string // "" for a conversation without a channel
}

// PatientThread is a client's conversations (newest first) and their
// newest messages merged, oldest first.
type PatientThread struct {
	Conversations []InboxItem
	Messages      []ThreadMessage
	Count         int // every message of the client's conversations
}

// ClientThread reads one client's thread. A client of another account, or
// without a phone, has no conversations (the door checks the client first).
func ClientThread(ctx context.Context, q db.Querier, acct account.Account, clientID int64) (PatientThread, error) {
	convs, err := ClientConversations(ctx, q, acct, clientID)
	if err != nil {
		return PatientThread{}, err
	}
	items, err := inboxItems(ctx, q, acct, convs)
	if err != nil {
		return PatientThread{}, err
	}
	out := PatientThread{Conversations: items, Messages: []ThreadMessage{}}
	if len(convs) == 0 {
		return out, nil
	}
	ids := make([]int64, len(convs))
	byID := make(map[int64]*Conversation, len(convs))
	channel := make(map[int64]string, len(convs))
	for i := range convs {
		ids[i] = convs[i].SessionID
		byID[ids[i]] = &convs[i]
		channel[ids[i]] = items[i].ChannelKey
		out.Count += convs[i].MessageCount
	}
	in, inArgs := db.In(ids)
	msgs, err := scanMessages(ctx, q, byID, `SELECT `+messageColumns+` FROM messages m`+messageJoins+`
		WHERE m.account_id = ? AND m.conversation_id IN `+in+`
		ORDER BY m.sent_at DESC, m.id DESC LIMIT ?`, append(append([]any{acct.ID}, inArgs...), MaxThreadMessages)...)
	if err != nil {
		return PatientThread{}, err
	}
	slices.Reverse(msgs)
	for _, m := range msgs {
		out.Messages = append(out.Messages, ThreadMessage{Message: m, SessionID: m.conv, ChannelKey: channel[m.conv]})
	}
	return out, nil
}

// MarkClientRead records that the team read every conversation of the
// client now.
func MarkClientRead(ctx context.Context, q db.Querier, acct account.Account, clientID int64, now time.Time) error {
	_, err := q.Exec(ctx, `UPDATE conversations SET read_at = ? WHERE account_id = ?
		AND phone_national = (SELECT phone_national FROM clients WHERE account_id = ? AND id = ?)`, db.Micros(now), acct.ID, acct.ID, clientID)
	return err
}

// ResolveClient marks every open conversation of the client resolved, each
// through UpdateConversation (its webhook included), and returns how many
// changed.
func ResolveClient(ctx context.Context, store *db.DB, acct account.Account, clientID int64, now time.Time) (int, error) {
	rows, err := store.Query(ctx, `SELECT cv.id FROM conversations cv
		WHERE cv.account_id = ? AND `+openConv+`
			AND cv.phone_national = (SELECT phone_national FROM clients WHERE account_id = ? AND id = ?)`, acct.ID, acct.ID, clientID)
	if err != nil {
		return 0, fmt.Errorf("open conversations: %w", err)
	}
	var ids []int64
	for rows.Next() {
		var id int64
		if err := rows.Scan(&id); err != nil {
			rows.Close()
			return 0, err
		}
		ids = append(ids, id)
	}
	rows.Close()
	if err := rows.Err(); err != nil {
		return 0, err
	}
	resolved := "resolved"
	for _, id := range ids {
		if _, err := UpdateConversation(ctx, store, acct, id, Change{Status: &resolved}, now); err != nil {
			return 0, err
		}
	}
	return len(ids), nil
}

// OpenConversation returns the conversation a message the team starts
// with a client on a channel joins, in the caller's transaction: the
// account's open conversation with that number on that channel (as
// RecordChannelMessage finds it, a conversation opened here and still
// empty included), else a new one, outbound and handled by the team,
// without messages until the first is appended. phoneE164 and national are
// the client's number (national digits are how a conversation meets its
// client). Two first messages sent together meet in one conversation: on
// PostgreSQL the find-or-open holds RecordChannelMessage's lock.
func OpenConversation(ctx context.Context, tx *db.Tx, acct account.Account, channelID int64, phoneE164, national string, now time.Time) (int64, error) {
	if tx.Dialect().Engine == db.Postgres {
		h := fnv.New64a()
		fmt.Fprintf(h, "chat-channel/%d/%d/%s", acct.ID, channelID, national)
		if _, err := tx.Exec(ctx, `SELECT pg_advisory_xact_lock(?)`, int64(h.Sum64())); err != nil {
			return 0, err
		}
	}
	var id int64
	err := tx.QueryRow(ctx, `SELECT id FROM conversations
		WHERE account_id = ? AND channel_id = ? AND phone_national = ? AND status NOT IN ('resolved', 'expired')
			AND COALESCE(last_message_at, created_at) >= ?
		ORDER BY COALESCE(last_message_at, created_at) DESC, id DESC LIMIT 1`,
		acct.ID, channelID, national, db.Micros(now.Add(-OpenWindow))).Scan(&id)
	if err == nil || !db.IsNoRows(err) {
		return id, err
	}
	err = tx.QueryRow(ctx, `INSERT INTO conversations (account_id, customer_phone_number, phone_national, status, direction,
			summary, message_count, created_at, updated_at, channel_id)
		VALUES (?, ?, ?, 'human_handling', 'outbound', '', 0, ?, ?, ?) RETURNING id`,
		acct.ID, phoneE164, national, db.Micros(now), db.Micros(now), channelID).Scan(&id)
	if err != nil {
		return 0, fmt.Errorf("open conversation: %w", err)
	}
	return id, nil
}

// ClientInbox lists the client's conversations as the inbox shows them
// (channel, assignee, unread), newest first.
func ClientInbox(ctx context.Context, q db.Querier, acct account.Account, clientID int64) ([]InboxItem, error) {
	convs, err := ClientConversations(ctx, q, acct, clientID)
	if err != nil {
		return nil, err
	}
	return inboxItems(ctx, q, acct, convs)
}
