// Package audit keeps the account's audit log: who changed what in the
// dashboard's settings, and when. Entries are written in the transaction of
// the change they describe, so a rolled-back change leaves no entry.
package audit

import (
	"context"
	"fmt"
	"time"

	"github.com/frontdesk/frontdesk/internal/account"
	"github.com/frontdesk/frontdesk/internal/db"
)

// Actor is who made a change: a dashboard user (its id and name as they
// were then).
type Actor struct {
	UserID   int64
	UserName string
}

// Entry is one change.
type Entry struct {
	ID         int64
	UserID     int64 // 0: not a user (a command, the system)
	UserName   string
	Action     string // created, updated, deleted, revoked, invited, …
	ObjectType string // service, professional, webhook, channel, user, api_key, …
	ObjectID   string
	Summary    string // what changed, in words, never a secret
	CreatedAt  time.Time
}

// Record writes one entry. summary must never hold a secret (credentials,
// webhook secrets, keys): callers name the fields that changed instead.
func Record(ctx context.Context, q db.Querier, acct account.Account, who Actor, action, objectType, objectID, summary string, now time.Time) error {
	var user any
	if who.UserID != 0 {
		user = who.UserID
	}
	_, err := q.Exec(ctx, `INSERT INTO audit_log (account_id, user_id, user_name, action, object_type, object_id, summary, created_at)
		VALUES (?, ?, ?, ?, ?, ?, ?, ?)`, acct.ID, user, who.UserName, action, objectType, objectID, summary, db.Micros(now))
	if err != nil {
		return fmt.Errorf("audit: %w", err)
	}
	return nil
}

// List returns the account's newest entries first, at most limit (1..500),
// those before the entry id before when before > 0 (the next page).
func List(ctx context.Context, q db.Querier, acct account.Account, before int64, limit int) ([]Entry, error) {
	limit = min(max(limit, 1), 500)
	where, args := `account_id = ?`, []any{acct.ID}
	if before > 0 {
		where += ` AND id < ?`
		args = append(args, before)
	}
	rows, err := q.Query(ctx, `SELECT id, COALESCE(user_id, 0), user_name, action, object_type, object_id, summary, created_at
		FROM audit_log WHERE `+where+` ORDER BY id DESC LIMIT ?`, append(args, limit)...)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	var out []Entry
	for rows.Next() {
		var e Entry
		var at int64
		if err := rows.Scan(&e.ID, &e.UserID, &e.UserName, &e.Action, &e.ObjectType, &e.ObjectID, &e.Summary, &at); err != nil {
			return nil, err
		}
		e.CreatedAt = db.Time(at)
		out = append(out, e)
	}
	return out, rows.Err()
}
