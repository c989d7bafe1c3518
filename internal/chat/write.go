package chat

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"time"

	"github.com/frontdesk/frontdesk/internal/account"
	"github.com/frontdesk/frontdesk/internal/clock"
	"github.com/frontdesk/frontdesk/internal/db"
	"github.com/frontdesk/frontdesk/internal/errs"
	"github.com/frontdesk/frontdesk/internal/jobs"
)

// NewMessage is a message a channel appends, plus an optional message of
// the same conversation it replies to.
type NewMessage struct {
	MessageInput
	ReplyToID int64 // 0: none
}

// AppendMessage adds a message to one of the account's conversations and
// returns the conversation as listed (DefaultView). message_count and
// last_message_at (the newest message timestamp) follow. updated_at moves to
// the server's now, never backwards, whatever timestamp the message carries:
// it is the time of the change, and the incremental-sync watermark clients
// keep must follow the server's clock. A message stamped ahead of it (a
// channel's skewed clock) would otherwise push a watermark past changes
// still to come on other conversations, which a sync would then miss.
func AppendMessage(ctx context.Context, store *db.DB, acct account.Account, sessionID int64, m NewMessage, now time.Time) (Conversation, error) {
	var out Conversation
	err := store.Transact(ctx, func(tx *db.Tx) error {
		if err := lockConversation(ctx, tx, acct, sessionID); err != nil {
			return err
		}
		if m.ReplyToID != 0 {
			var one int
			err := tx.QueryRow(ctx, `SELECT 1 FROM messages WHERE account_id = ? AND conversation_id = ? AND id = ?`,
				acct.ID, sessionID, m.ReplyToID).Scan(&one)
			if db.IsNoRows(err) {
				return errs.WithDetails(errs.ValidationError, map[string]any{"field": "reply_to_id"},
					"reply_to_id %d is not a message of conversation %d.", m.ReplyToID, sessionID)
			}
			if err != nil {
				return err
			}
		}
		row, err := MessageRow(ctx, tx, acct, &Refs{}, sessionID, m.MessageInput, now, now)
		if err != nil {
			var uerr *UnknownKeyError
			if errors.As(err, &uerr) {
				field, key := "agent", m.Agent
				if m.From == "user" {
					field, key = "user", m.User
				}
				return errs.WithDetails(errs.ValidationError, map[string]any{"field": field},
					"No %s with key %q in this workspace.", map[string]string{"agent": "AI agent", "user": "user"}[field], key)
			}
			return err
		}
		var reply any
		if m.ReplyToID != 0 {
			reply = m.ReplyToID
		}
		// row: account_id, conversation_id, sender_kind, ai_agent_id, user_id,
		// message_type, content, media, sent_at, created_at.
		if _, err := tx.Exec(ctx, `INSERT INTO messages (account_id, conversation_id, sender_kind, ai_agent_id, user_id,
				message_type, content, media, sent_at, created_at, reply_to_id) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
			append(row, reply)...); err != nil {
			return fmt.Errorf("append message: %w", err)
		}
		sent, moved := row[8].(int64), db.Micros(now)
		if _, err := tx.Exec(ctx, `UPDATE conversations SET message_count = message_count + 1,
				last_message_at = CASE WHEN last_message_at IS NULL OR last_message_at < CAST(? AS BIGINT) THEN CAST(? AS BIGINT) ELSE last_message_at END,
				updated_at = CASE WHEN updated_at < CAST(? AS BIGINT) THEN CAST(? AS BIGINT) ELSE updated_at END
			WHERE account_id = ? AND id = ?`, sent, sent, moved, moved, acct.ID, sessionID); err != nil {
			return fmt.Errorf("count message: %w", err)
		}
		if out, err = Get(ctx, tx, acct, sessionID, DefaultView); err != nil {
			return err
		}
		return emitUpdated(ctx, tx, acct, out, now)
	})
	return out, err
}

// Change is a PATCH of a conversation; a nil field is left as it is.
type Change struct {
	Status *string
	// Disposition names a disposition tag by its workspace key (DispositionKey)
	// or id (DispositionID); SetDisposition with neither clears it.
	SetDisposition bool
	DispositionKey string
	DispositionID  int64
	// Sentiment "" clears it.
	Sentiment *string
	Summary   *string
}

// UpdateConversation applies a change to one of the account's conversations
// and returns it as listed (DefaultView). updated_at moves to now (never
// backwards) when a value actually changed; sending the stored values again
// changes nothing.
func UpdateConversation(ctx context.Context, store *db.DB, acct account.Account, sessionID int64, ch Change, now time.Time) (Conversation, error) {
	var out Conversation
	err := store.Transact(ctx, func(tx *db.Tx) error {
		var (
			status, summary string
			disp            sql.NullInt64
			sentiment       sql.NullString
		)
		err := tx.QueryRow(ctx, `SELECT status, disposition_tag_id, sentiment, summary FROM conversations
			WHERE account_id = ? AND id = ?`+tx.Dialect().ForUpdate(), acct.ID, sessionID).Scan(&status, &disp, &sentiment, &summary)
		if db.IsNoRows(err) {
			return errs.New(errs.NotFound, "Conversation %d not found.", sessionID)
		}
		if err != nil {
			return err
		}
		changed := false
		if ch.Status != nil && *ch.Status != status {
			status, changed = *ch.Status, true
		}
		if ch.SetDisposition {
			var want sql.NullInt64
			if ch.DispositionKey != "" || ch.DispositionID != 0 {
				id, err := dispositionID(ctx, tx, acct, ch.DispositionKey, ch.DispositionID)
				if err != nil {
					return err
				}
				want = sql.NullInt64{Int64: id, Valid: true}
			}
			if want != disp {
				disp, changed = want, true
			}
		}
		if ch.Sentiment != nil {
			want := sql.NullString{String: *ch.Sentiment, Valid: *ch.Sentiment != ""}
			if want != sentiment {
				sentiment, changed = want, true
			}
		}
		if ch.Summary != nil && *ch.Summary != summary {
			summary, changed = *ch.Summary, true
		}
		if changed {
			n := db.Micros(now)
			if _, err := tx.Exec(ctx, `UPDATE conversations SET status = ?, disposition_tag_id = ?, sentiment = ?, summary = ?,
					updated_at = CASE WHEN updated_at < CAST(? AS BIGINT) THEN CAST(? AS BIGINT) ELSE updated_at END
				WHERE account_id = ? AND id = ?`, status, disp, sentiment, summary, n, n, acct.ID, sessionID); err != nil {
				return fmt.Errorf("update conversation: %w", err)
			}
		}
		if out, err = Get(ctx, tx, acct, sessionID, DefaultView); err != nil || !changed {
			return err
		}
		return emitUpdated(ctx, tx, acct, out, now)
	})
	return out, err
}

// lockConversation checks the conversation belongs to the account and, on
// PostgreSQL, holds its row until the transaction ends so concurrent
// appends serialise their counter updates.
func lockConversation(ctx context.Context, tx *db.Tx, acct account.Account, sessionID int64) error {
	var id int64
	err := tx.QueryRow(ctx, `SELECT id FROM conversations WHERE account_id = ? AND id = ?`+tx.Dialect().ForUpdate(), acct.ID, sessionID).Scan(&id)
	if db.IsNoRows(err) {
		return errs.New(errs.NotFound, "Conversation %d not found.", sessionID)
	}
	return err
}

// dispositionID resolves a disposition tag of the account by key or id.
func dispositionID(ctx context.Context, q db.Querier, acct account.Account, key string, id int64) (int64, error) {
	var (
		found int64
		err   error
	)
	if key != "" {
		err = q.QueryRow(ctx, `SELECT id FROM disposition_tags WHERE account_id = ? AND file_key = ?`, acct.ID, key).Scan(&found)
	} else {
		err = q.QueryRow(ctx, `SELECT id FROM disposition_tags WHERE account_id = ? AND id = ?`, acct.ID, id).Scan(&found)
	}
	if db.IsNoRows(err) {
		what := fmt.Sprintf("%q", key)
		if key == "" {
			what = fmt.Sprint(id)
		}
		return 0, errs.WithDetails(errs.ValidationError, map[string]any{"field": "disposition"},
			"No disposition tag %s in this workspace.", what)
	}
	return found, err
}

// emitUpdated tells the account's webhooks a conversation changed.
func emitUpdated(ctx context.Context, tx *db.Tx, acct account.Account, c Conversation, now time.Time) error {
	return jobs.Emit(ctx, tx, acct, now, jobs.Event{Type: jobs.EventChatConversationUpdate, SourceID: c.SessionID, Data: map[string]any{
		"session_id": c.SessionID, "status": c.Status, "message_count": c.MessageCount, "updated_at": clock.Format(c.UpdatedAt)}})
}
