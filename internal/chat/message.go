package chat

// A message as the workspace file, the JSONL import and the admin append
// route give it, and the one place it becomes a messages row.

import (
	"context"
	"database/sql"
	"encoding/json"
	"fmt"
	"time"

	"github.com/frontdesk/frontdesk/internal/account"
	"github.com/frontdesk/frontdesk/internal/db"
)

// MessageInput is a message to store: who sent it (SenderKinds; an AI agent or
// user by its workspace key), what and when (RFC 3339; empty: the
// conversation's default time).
type MessageInput struct {
	From        string      `yaml:"from" json:"from"`
	Agent       string      `yaml:"agent" json:"agent"`
	User        string      `yaml:"user" json:"user"`
	Content     string      `yaml:"content" json:"content"`
	Timestamp   string      `yaml:"timestamp" json:"timestamp"`
	MessageType string      `yaml:"message_type" json:"message_type"`
	Media       *MediaInput `yaml:"media" json:"media"`
}

// MediaInput is media metadata; files themselves are never stored or served.
type MediaInput struct {
	Kind     string  `yaml:"kind" json:"kind"`
	Mime     string  `yaml:"mime" json:"mime"`
	Filename string  `yaml:"filename" json:"filename"`
	Caption  *string `yaml:"caption" json:"caption"`
}

// Refs resolves the workspace keys messages and conversations name (AI
// agents, users, disposition tags). Keys not in the maps are looked up in
// the store and remembered.
type Refs struct {
	Agents, Users, Dispositions map[string]int64
}

// UnknownKeyError is a key Refs found neither in its maps nor in the store.
type UnknownKeyError struct {
	Table, Key string
}

func (e *UnknownKeyError) Error() string { return fmt.Sprintf("unknown %s %q", e.Table, e.Key) }

// Agent, User and Disposition return the id of the account's object with
// that key.
func (r *Refs) Agent(ctx context.Context, q db.Querier, acct account.Account, key string) (int64, error) {
	return r.id(ctx, q, acct, "ai_agents", &r.Agents, key)
}

func (r *Refs) User(ctx context.Context, q db.Querier, acct account.Account, key string) (int64, error) {
	return r.id(ctx, q, acct, "users", &r.Users, key)
}

func (r *Refs) Disposition(ctx context.Context, q db.Querier, acct account.Account, key string) (int64, error) {
	return r.id(ctx, q, acct, "disposition_tags", &r.Dispositions, key)
}

func (r *Refs) id(ctx context.Context, q db.Querier, acct account.Account, table string, m *map[string]int64, key string) (int64, error) {
	if *m == nil {
		*m = map[string]int64{}
	}
	if id, ok := (*m)[key]; ok {
		return id, nil
	}
	var id int64
	err := q.QueryRow(ctx, "SELECT id FROM "+table+" WHERE account_id = ? AND file_key = ?", acct.ID, key).Scan(&id)
	if db.IsNoRows(err) {
		return 0, &UnknownKeyError{Table: table, Key: key}
	}
	if err != nil {
		return 0, err
	}
	(*m)[key] = id
	return id, nil
}

// MessageRow resolves m into the messages columns (account_id,
// conversation_id, sender_kind, ai_agent_id, user_id, message_type,
// content, media, sent_at, created_at); a message without a timestamp is
// stamped def.
func MessageRow(ctx context.Context, q db.Querier, acct account.Account, refs *Refs, conversationID int64, m MessageInput, def, now time.Time) ([]any, error) {
	var agent, user, media any
	switch m.From {
	case "ai_agent":
		id, err := refs.Agent(ctx, q, acct, m.Agent)
		if err != nil {
			return nil, err
		}
		agent = id
	case "user":
		id, err := refs.User(ctx, q, acct, m.User)
		if err != nil {
			return nil, err
		}
		user = id
	}
	if m.Media != nil {
		b, err := json.Marshal(m.Media)
		if err != nil {
			return nil, err
		}
		media = string(b)
	}
	typ := m.MessageType
	if typ == "" {
		typ = "text"
	}
	sent := ParseTime(m.Timestamp, def)
	return []any{acct.ID, conversationID, m.From, agent, user, typ, m.Content, media, db.Micros(sent), db.Micros(now)}, nil
}

// ParseTime reads an RFC 3339 timestamp to the microsecond; empty or
// unreadable text is def.
func ParseTime(s string, def time.Time) time.Time {
	if s == "" {
		return def
	}
	t, err := time.Parse(time.RFC3339Nano, s)
	if err != nil {
		return def
	}
	return t.UTC().Truncate(time.Microsecond)
}

// RefreshCounters recomputes a conversation's message_count and
// last_message_at after messages were added, and moves updated_at to the
// newest message when that is later. It writes nothing when the count did
// not change from before.
func RefreshCounters(ctx context.Context, tx *db.Tx, acctID, conversationID int64, before int) error {
	var count int
	var last sql.NullInt64
	if err := tx.QueryRow(ctx, `SELECT COUNT(*), MAX(sent_at) FROM messages WHERE account_id = ? AND conversation_id = ?`, acctID, conversationID).Scan(&count, &last); err != nil {
		return err
	}
	if count == before {
		return nil
	}
	_, err := tx.Exec(ctx, `UPDATE conversations SET message_count = ?, last_message_at = ?,
		updated_at = CASE WHEN updated_at > ? THEN updated_at ELSE ? END WHERE account_id = ? AND id = ?`,
		count, last, last.Int64, last.Int64, acctID, conversationID)
	return err
}
