package workspace

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"time"

	"github.com/frontdesk/frontdesk/internal/account"
	"github.com/frontdesk/frontdesk/internal/chat"
	"github.com/frontdesk/frontdesk/internal/db"
	"github.com/frontdesk/frontdesk/internal/phone"
)

// ConversationRefs resolves the file keys a conversation refers to (chat's
// resolver: keys not in the maps are looked up in the store).
type ConversationRefs = chat.Refs

// refProblem turns chat's unknown-key error into a workspace problem.
func refProblem(err error) error {
	var uerr *chat.UnknownKeyError
	if errors.As(err, &uerr) {
		return &Error{Problems: []string{uerr.Error()}}
	}
	return err
}

// NormalizeCustomerPhone returns the E.164 form and the national digits
// conversations are matched to clients on. Validation refuses numbers that
// cannot be read; the raw text is returned only for rows stored before it
// did.
func NormalizeCustomerPhone(raw string, acct account.Account) (string, any) {
	n, err := phone.ParseWithRegion(raw, acct.DefaultRegion)
	if err != nil {
		return raw, nil
	}
	return n.E164(), n.National
}

// UpsertConversation creates or updates a conversation by its key and adds
// the messages it does not have yet (matched by their index in the file). A
// repeated import writes nothing; a changed one moves updated_at.
func UpsertConversation(ctx context.Context, tx *db.Tx, acct account.Account, cv ConversationSpec, refs ConversationRefs, now time.Time) (int64, error) {
	phoneText, national := NormalizeCustomerPhone(cv.CustomerPhoneNumber, acct)
	status, direction := cv.Status, cv.Direction
	if status == "" {
		status = "new"
	}
	if direction == "" {
		direction = "inbound"
	}
	var firstMsg time.Time
	if len(cv.Messages) > 0 {
		firstMsg = chat.ParseTime(cv.Messages[0].Timestamp, time.Time{})
	}
	created := chat.ParseTime(cv.CreatedAt, firstMsg)
	if created.IsZero() {
		created = now
	}
	var disposition, sentiment any
	if cv.Disposition != "" {
		id, err := refs.Disposition(ctx, tx, acct, cv.Disposition)
		if err != nil {
			return 0, refProblem(err)
		}
		disposition = id
	}
	if cv.Sentiment != "" {
		sentiment = cv.Sentiment
	}

	var (
		id                                 int64
		curPhone, curStatus, curDir, curSm string
		curDisp                            sql.NullInt64
		curSent                            sql.NullString
		curCreated                         int64
	)
	err := tx.QueryRow(ctx, `SELECT id, customer_phone_number, status, direction, disposition_tag_id, sentiment, summary, created_at
		FROM conversations WHERE account_id = ? AND file_key = ?`, acct.ID, cv.Key).
		Scan(&id, &curPhone, &curStatus, &curDir, &curDisp, &curSent, &curSm, &curCreated)
	switch {
	case db.IsNoRows(err):
		err = tx.QueryRow(ctx, `INSERT INTO conversations (account_id, file_key, customer_phone_number, phone_national, status, direction,
			disposition_tag_id, sentiment, summary, message_count, created_at, updated_at)
			VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, 0, ?, ?) RETURNING id`,
			acct.ID, cv.Key, phoneText, national, status, direction, disposition, sentiment, cv.Summary,
			db.Micros(created), db.Micros(created)).Scan(&id)
		if err != nil {
			return 0, fmt.Errorf("insert conversation %q: %w", cv.Key, err)
		}
	case err != nil:
		return 0, err
	default:
		// A key the file leaves out keeps the stored value.
		has := cv.keys.has
		if !has("customer_phone_number") {
			phoneText, national = curPhone, nil
			if curPhone != "" {
				_, national = NormalizeCustomerPhone(curPhone, acct)
			}
		}
		if !has("status") {
			status = curStatus
		}
		if !has("direction") {
			direction = curDir
		}
		if !has("summary") {
			cv.Summary = curSm
		}
		if !has("created_at") {
			created = time.UnixMicro(curCreated).UTC()
		}
		if !has("sentiment") {
			cv.Sentiment, sentiment = curSent.String, nil
			if curSent.Valid {
				cv.Sentiment, sentiment = curSent.String, curSent.String
			}
		}
		if !has("disposition") {
			disposition = nil
			if curDisp.Valid {
				disposition = curDisp.Int64
			}
		}
		changed := curPhone != phoneText || curStatus != status || curDir != direction || curSm != cv.Summary ||
			curCreated != db.Micros(created) || curSent.String != cv.Sentiment || curSent.Valid != (cv.Sentiment != "") ||
			curDisp.Valid != (disposition != nil) || (disposition != nil && curDisp.Int64 != disposition.(int64))
		if changed {
			_, err := tx.Exec(ctx, `UPDATE conversations SET customer_phone_number = ?, phone_national = ?, status = ?, direction = ?,
				disposition_tag_id = ?, sentiment = ?, summary = ?, created_at = ?,
				updated_at = CASE WHEN updated_at > ? THEN updated_at ELSE ? END WHERE account_id = ? AND id = ?`,
				phoneText, national, status, direction, disposition, sentiment, cv.Summary, db.Micros(created),
				db.Micros(now), db.Micros(now), acct.ID, id)
			if err != nil {
				return 0, err
			}
		}
	}
	if len(cv.Messages) == 0 {
		return id, nil
	}
	rows := make([][]any, 0, len(cv.Messages))
	for i, m := range cv.Messages {
		r, err := chat.MessageRow(ctx, tx, acct, &refs, id, m, created, now)
		if err != nil {
			return 0, refProblem(err)
		}
		rows = append(rows, append(r, i))
	}
	var before int
	if err := tx.QueryRow(ctx, `SELECT COUNT(*) FROM messages WHERE account_id = ? AND conversation_id = ?`, acct.ID, id).Scan(&before); err != nil {
		return 0, err
	}
	if err := db.InsertMany(ctx, tx, `INSERT INTO messages (account_id, conversation_id, sender_kind, ai_agent_id, user_id, message_type, content, media, sent_at, created_at, file_index)`,
		rows, `ON CONFLICT (account_id, conversation_id, file_index) WHERE file_index IS NOT NULL DO NOTHING`); err != nil {
		return 0, fmt.Errorf("insert messages of %q: %w", cv.Key, err)
	}
	return id, chat.RefreshCounters(ctx, tx, acct.ID, id, before)
}
