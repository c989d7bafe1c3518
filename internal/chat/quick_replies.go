package chat

// Quick replies (docs/inbox.md): short texts an account keeps for its team
// to insert into a reply, edited by owners in Settings.

import (
	"context"
	"fmt"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/frontdesk/frontdesk/internal/account"
	"github.com/frontdesk/frontdesk/internal/db"
	"github.com/frontdesk/frontdesk/internal/errs"
)

// Limits of quick replies.
const (
	MaxQuickReplyLength = 500
	MaxQuickReplies     = 50
)

// QuickReply is one kept text.
type QuickReply struct {
	ID   string // a uuid
	Body string
}

// QuickReplies lists the account's quick replies in the order of their texts.
func QuickReplies(ctx context.Context, q db.Querier, acct account.Account) ([]QuickReply, error) {
	rows, err := q.Query(ctx, `SELECT uuid, body FROM quick_replies WHERE account_id = ? ORDER BY body, uuid`, acct.ID)
	if err != nil {
		return nil, fmt.Errorf("quick replies: %w", err)
	}
	defer rows.Close()
	var out []QuickReply
	for rows.Next() {
		var r QuickReply
		if err := rows.Scan(&r.ID, &r.Body); err != nil {
			return nil, err
		}
		out = append(out, r)
	}
	return out, rows.Err()
}

// QuickReplyBody checks a quick reply's text: trimmed, not empty, at most
// MaxQuickReplyLength characters.
func QuickReplyBody(body string) (string, error) {
	body = strings.TrimSpace(body)
	if body == "" {
		return "", errs.WithDetails(errs.ValidationError, map[string]any{"field": "body"}, "Write the quick reply's text.")
	}
	if n := utf8.RuneCountInString(body); n > MaxQuickReplyLength {
		return "", errs.WithDetails(errs.ValidationError, map[string]any{"field": "body"},
			"A quick reply may have at most %d characters; this one has %d.", MaxQuickReplyLength, n)
	}
	return body, nil
}

// AddQuickReply keeps a new quick reply for the account, in the caller's
// transaction; an account keeps at most MaxQuickReplies.
func AddQuickReply(ctx context.Context, tx *db.Tx, acct account.Account, body string, now time.Time) (QuickReply, error) {
	body, err := QuickReplyBody(body)
	if err != nil {
		return QuickReply{}, err
	}
	var n int
	if err := tx.QueryRow(ctx, `SELECT COUNT(*) FROM quick_replies WHERE account_id = ?`, acct.ID).Scan(&n); err != nil {
		return QuickReply{}, err
	}
	if n >= MaxQuickReplies {
		return QuickReply{}, errs.WithDetails(errs.ValidationError, map[string]any{"field": "body"},
			"An account keeps at most %d quick replies; remove one first.", MaxQuickReplies)
	}
	out := QuickReply{ID: db.NewUUID(), Body: body}
	_, err = tx.Exec(ctx, `INSERT INTO quick_replies (uuid, account_id, body, created_at) VALUES (?, ?, ?, ?)`,
		out.ID, acct.ID, body, db.Micros(now))
	return out, err
}

// RemoveQuickReply deletes one of the account's quick replies and returns
// it; another account's, or an unknown id, is NOT_FOUND.
func RemoveQuickReply(ctx context.Context, tx *db.Tx, acct account.Account, id string) (QuickReply, error) {
	out := QuickReply{ID: id}
	err := tx.QueryRow(ctx, `SELECT body FROM quick_replies WHERE account_id = ? AND uuid = ?`, acct.ID, id).Scan(&out.Body)
	if db.IsNoRows(err) {
		return QuickReply{}, errs.New(errs.NotFound, "Quick reply %q not found.", id)
	}
	if err != nil {
		return QuickReply{}, err
	}
	_, err = tx.Exec(ctx, `DELETE FROM quick_replies WHERE account_id = ? AND uuid = ?`, acct.ID, id)
	return out, err
}
