package chat

import (
	"time"

	"github.com/frontdesk/frontdesk/internal/db"
)

// The two lookups a round of channel messages makes, by the round's keys:
// up to a round's worth (hundreds) of provider ids or phone numbers. The
// keys go through db.InKeys, so the planner probes the index for each.
// Shown the values, PostgreSQL costed a few hundred probes above reading
// the whole table until it held some tens of thousands of rows, and planned
// the values every time: while an account's messages and conversations
// grew to that size, every round of the worker read all of them, 4-7 ms a
// round in a drain against about 1 (docs/performance.md, "Start-up, and
// what a drain costs the server").

// recordedQuery finds which of ids the channel's messages already hold
// (messages_provider_message).
func recordedQuery(acctID, channel int64, ids []string) (string, []any) {
	in, args := db.InKeys(ids)
	return `SELECT provider_message_id FROM messages WHERE account_id = ? AND channel_id = ? AND provider_message_id IN ` + in,
		append([]any{acctID, channel}, args...)
}

// openQuery finds the channel's open conversations with the numbers in
// phones that had a message since then (conversations_channel_phone).
func openQuery(acctID, channel int64, phones []string, since time.Time) (string, []any) {
	in, args := db.InKeys(phones)
	return `SELECT id, phone_national, last_message_at FROM conversations
		WHERE account_id = ? AND channel_id = ? AND phone_national IN ` + in + ` AND last_message_at >= ? AND status NOT IN ('resolved', 'expired')`,
		append(append([]any{acctID, channel}, args...), db.Micros(since))
}
