package chat

import (
	"context"
	"database/sql"
	"fmt"
	"strings"
	"time"

	"github.com/frontdesk/frontdesk/internal/account"
	"github.com/frontdesk/frontdesk/internal/contact"
	"github.com/frontdesk/frontdesk/internal/db"
	"github.com/frontdesk/frontdesk/internal/errs"
	"github.com/frontdesk/frontdesk/internal/phone"
)

// Filter narrows and orders a conversation listing. Zero values mean "not
// sent".
type Filter struct {
	CreatedAfter  time.Time // created_at >= (inclusive)
	CreatedBefore time.Time // created_at <  (exclusive)
	UpdatedAfter  time.Time // updated_at >= (inclusive: the sync watermark)
	ClientID      int64
	Search        string
	// DispositionTagIDs is an OR filter; IncludeUncategorized adds
	// conversations without a disposition, and only with tag ids.
	DispositionTagIDs    []int64
	IncludeUncategorized bool
	Status, Direction    string

	SortBy string // one of SortFields; "" is created_at
	Desc   bool
	// After, when set, keeps only the conversations strictly after the
	// cursor in its updated_at order (keyset paging; the order is the
	// cursor's). It narrows the page, not Count.
	After *Cursor

	Limit, Offset int
	View
}

// View says how much of each conversation to load.
type View struct {
	// IncludeMessages embeds the oldest MaxMessages messages of each
	// conversation; without it the messages key is omitted.
	IncludeMessages bool
	MaxMessages     int
}

// DefaultView is what the list endpoint embeds by default, and what the
// admin routes answer with.
var DefaultView = View{IncludeMessages: true, MaxMessages: DefaultMaxMessages}

// ParseSort reads a sort_by value ("-created_at") into field and direction.
func ParseSort(s string) (field string, desc bool) {
	return strings.TrimPrefix(s, "-"), strings.HasPrefix(s, "-")
}

// SortValues are every accepted sort_by spelling, for validation.
func SortValues() []string {
	out := make([]string, 0, 2*len(SortFields))
	for _, f := range SortFields {
		out = append(out, f, "-"+f)
	}
	return out
}

// conversationFrom is the page's FROM clause: the client is whoever holds the
// conversation's national digits in the same account now (clients_phone is
// unique, so the join never duplicates a conversation).
const conversationFrom = ` FROM conversations cv
	LEFT JOIN clients c ON c.account_id = cv.account_id AND c.phone_national = cv.phone_national
	LEFT JOIN disposition_tags d ON d.account_id = cv.account_id AND d.id = cv.disposition_tag_id`

const conversationColumns = `SELECT cv.id, cv.status, cv.direction, cv.customer_phone_number, cv.sentiment, cv.summary,
	cv.message_count, cv.created_at, cv.updated_at, cv.last_message_at,
	d.id, d.name, d.color,
	c.id, c.first_name, c.last_name, c.phone_cc, c.phone_national, c.email, c.company`

// Page is one page of a conversation listing.
type Page struct {
	Conversations []Conversation
	// Count is the number of all conversations matching the filters,
	// whatever the cursor or offset: the contract's count.
	Count int
	// NextCursor continues the walk after this page; set only for the
	// updated_at order (see Keyset), and nil when this page is the last.
	NextCursor *Cursor
}

// Keyset reports whether the order supports cursors: updated_at, either
// direction (it is the only order whose key every change moves forward).
func (f Filter) Keyset() bool { return f.SortBy == "updated_at" }

// List returns one page of the account's conversations matching f, and the
// number of all matches.
func List(ctx context.Context, q db.Querier, acct account.Account, f Filter) ([]Conversation, int, error) {
	p, err := ListPage(ctx, q, acct, f)
	return p.Conversations, p.Count, err
}

// ListPage returns one page of the account's conversations matching f, the
// number of all matches, and, in the updated_at order, the cursor of the
// next page. With a cursor the order is the cursor's. Same queries as
// ever: the count, then the page (one row longer in the updated_at order,
// which tells whether a next page exists), then the page's details.
func ListPage(ctx context.Context, q db.Querier, acct account.Account, f Filter) (Page, error) {
	if f.After != nil {
		f.SortBy, f.Desc = "updated_at", f.After.Desc
	}
	where, args, needsClient := f.where(acct)
	countFrom := ` FROM conversations cv`
	if needsClient {
		countFrom = ` FROM conversations cv LEFT JOIN clients c ON c.account_id = cv.account_id AND c.phone_national = cv.phone_national`
	}
	var total int
	if err := q.QueryRow(ctx, `SELECT COUNT(*)`+countFrom+` WHERE `+where, args...).Scan(&total); err != nil {
		return Page{}, fmt.Errorf("count conversations: %w", err)
	}
	if total <= f.Offset {
		return Page{Conversations: []Conversation{}, Count: total}, nil
	}
	if f.After != nil {
		cond, condArgs := f.After.after()
		where += " AND " + cond
		args = append(args, condArgs...)
	}
	limit := f.Limit
	if f.Keyset() {
		limit++
	}
	page, err := scanConversations(ctx, q, conversationColumns+conversationFrom+` WHERE `+where+
		` ORDER BY `+f.order(q.Dialect())+` LIMIT ? OFFSET ?`, append(args, limit, f.Offset)...)
	if err != nil {
		return Page{}, err
	}
	var next *Cursor
	if f.Keyset() && len(page) > f.Limit {
		page = page[:f.Limit]
		c := cursorOf(page[len(page)-1], f.Desc)
		next = &c
	}
	if err := complete(ctx, q, acct, page, f.View); err != nil {
		return Page{}, err
	}
	return Page{Conversations: page, Count: total, NextCursor: next}, nil
}

// Get returns one conversation of the account in full, or NOT_FOUND (also for
// another account's conversation).
func Get(ctx context.Context, q db.Querier, acct account.Account, sessionID int64, v View) (Conversation, error) {
	conv, err := header(ctx, q, acct, sessionID)
	if err != nil {
		return Conversation{}, err
	}
	page := []Conversation{conv}
	if err := complete(ctx, q, acct, page, v); err != nil {
		return Conversation{}, err
	}
	return page[0], nil
}

// header loads a conversation's own columns and its client, without
// messages, participants or assignees.
func header(ctx context.Context, q db.Querier, acct account.Account, sessionID int64) (Conversation, error) {
	page, err := scanConversations(ctx, q, conversationColumns+conversationFrom+` WHERE cv.account_id = ? AND cv.id = ?`, acct.ID, sessionID)
	if err != nil {
		return Conversation{}, err
	}
	if len(page) == 0 {
		return Conversation{}, errs.New(errs.NotFound, "Conversation %d not found.", sessionID)
	}
	return page[0], nil
}

// where builds the filter; needsClient reports whether it refers to the
// joined client (c).
func (f Filter) where(acct account.Account) (string, []any, bool) {
	conds := []string{"cv.account_id = ?"}
	args := []any{acct.ID}
	needsClient := false
	if !f.CreatedAfter.IsZero() {
		conds = append(conds, "cv.created_at >= ?")
		args = append(args, db.Micros(f.CreatedAfter))
	}
	if !f.CreatedBefore.IsZero() {
		conds = append(conds, "cv.created_at < ?")
		args = append(args, db.Micros(f.CreatedBefore))
	}
	if !f.UpdatedAfter.IsZero() {
		conds = append(conds, "cv.updated_at >= ?")
		args = append(args, db.Micros(f.UpdatedAfter))
	}
	if f.ClientID != 0 {
		// Through the client's national digits, so the phone index serves
		// it; a client without a phone (or of another account) has none.
		conds = append(conds, "cv.phone_national = (SELECT phone_national FROM clients WHERE account_id = ? AND id = ?)")
		args = append(args, acct.ID, f.ClientID)
	}
	if s := strings.TrimSpace(f.Search); s != "" {
		needsClient = true
		// Lower-cased here, not with SQL lower(): SQLite's lower() only
		// folds ASCII, and name_search is already strings.ToLower'd.
		c := "c.name_search LIKE ? ESCAPE '\\'"
		args = append(args, "%"+escapeLike(strings.ToLower(s))+"%")
		if digits, ok := phoneDigits(s); ok {
			c = "(" + c + " OR cv.customer_phone_number LIKE ?)"
			args = append(args, "%"+digits+"%")
		}
		conds = append(conds, c)
	}
	if len(f.DispositionTagIDs) > 0 {
		in, inArgs := db.In(f.DispositionTagIDs)
		c := "cv.disposition_tag_id IN " + in
		if f.IncludeUncategorized {
			c = "(" + c + " OR cv.disposition_tag_id IS NULL)"
		}
		conds = append(conds, c)
		args = append(args, inArgs...)
	}
	if f.Status != "" {
		conds = append(conds, "cv.status = ?")
		args = append(args, f.Status)
	}
	if f.Direction != "" {
		conds = append(conds, "cv.direction = ?")
		args = append(args, f.Direction)
	}
	return strings.Join(conds, " AND "), args, needsClient
}

// order is the ORDER BY of a page. Ties are broken by id in the same
// direction so offsets page stably. Missing values (no client, no message)
// sort as if greater than any: last ascending, first descending, spelled
// out because the engines' defaults differ.
func (f Filter) order(d db.Dialect) string {
	dir, nulls := "ASC", "NULLS LAST"
	if f.Desc {
		dir, nulls = "DESC", "NULLS FIRST"
	}
	switch f.SortBy {
	case "updated_at":
		return "cv.updated_at " + dir + ", cv.id " + dir
	case "last_message_at":
		return "cv.last_message_at " + dir + " " + nulls + ", cv.id " + dir
	case "client_name":
		// Code-point order on both engines (PostgreSQL would otherwise use
		// the database's linguistic collation).
		coll := ""
		if d.Engine == db.Postgres {
			coll = ` COLLATE "C"`
		}
		return "c.name_search" + coll + " " + dir + " " + nulls + ", cv.id " + dir
	default:
		return "cv.created_at " + dir + ", cv.id " + dir
	}
}

// phoneDigits returns the digits of a search that reads as (part of) a phone
// number: digits with optional spaces, '+', '-', '.', '(' and ')'. A search
// with letters is a name search only.
func phoneDigits(s string) (string, bool) {
	var b strings.Builder
	for _, r := range s {
		switch {
		case r >= '0' && r <= '9':
			b.WriteRune(r)
		case strings.ContainsRune(" +-.()", r):
		default:
			return "", false
		}
	}
	return b.String(), b.Len() > 0
}

// escapeLike escapes LIKE wildcards so a search matches literally.
func escapeLike(s string) string {
	return strings.NewReplacer(`\`, `\\`, `%`, `\%`, `_`, `\_`).Replace(s)
}

func scanConversations(ctx context.Context, q db.Querier, query string, args ...any) ([]Conversation, error) {
	rows, err := q.Query(ctx, query, args...)
	if err != nil {
		return nil, fmt.Errorf("list conversations: %w", err)
	}
	defer rows.Close()
	out := []Conversation{}
	for rows.Next() {
		var (
			cv                    Conversation
			sentiment             sql.NullString
			created, updated      int64
			lastMsg               sql.NullInt64
			dID                   sql.NullInt64
			dName, dColor         sql.NullString
			cID, cc               sql.NullInt64
			first, last, national sql.NullString
			email, company        sql.NullString
		)
		if err := rows.Scan(&cv.SessionID, &cv.Status, &cv.Direction, &cv.CustomerPhoneNumber, &sentiment, &cv.Summary,
			&cv.MessageCount, &created, &updated, &lastMsg, &dID, &dName, &dColor,
			&cID, &first, &last, &cc, &national, &email, &company); err != nil {
			return nil, err
		}
		if sentiment.Valid {
			cv.Sentiment = &sentiment.String
		}
		cv.CreatedAt, cv.UpdatedAt = db.Time(created), db.Time(updated)
		cv.updatedUS = updated
		if lastMsg.Valid {
			t := db.Time(lastMsg.Int64)
			cv.LastMessageAt = &t
		}
		if dID.Valid {
			cv.Disposition = &Disposition{ID: dID.Int64, Name: dName.String, Color: dColor.String}
		}
		cv.customer = Sender{Type: "client"}
		if cID.Valid {
			cl := contact.Client{ID: cID.Int64, FirstName: first.String, LastName: last.String,
				Email: email.String, Company: company.String}
			if national.Valid {
				cl.Phone = phone.Number{CountryCode: int(cc.Int64), National: national.String}
			}
			sum := cl.Summary()
			cv.Client = &sum
			cv.clientID = cl.ID
			cv.customer = Sender{Type: "client", ID: &sum.ID, Name: strOrNil(sum.Name), Email: sum.Email}
		}
		cv.AssignedUsers = []User{}
		cv.Participants = emptyParticipants()
		out = append(out, cv)
	}
	return out, rows.Err()
}

// complete loads the messages, participants and assignees of a page: three
// queries whatever the page size.
func complete(ctx context.Context, q db.Querier, acct account.Account, page []Conversation, v View) error {
	if len(page) == 0 {
		return nil
	}
	byID := make(map[int64]*Conversation, len(page))
	ids := make([]int64, len(page))
	for i := range page {
		byID[page[i].SessionID] = &page[i]
		ids[i] = page[i].SessionID
	}
	if v.IncludeMessages {
		if err := embedMessages(ctx, q, acct, page, byID, v.MaxMessages); err != nil {
			return err
		}
	}
	parts, err := participants(ctx, q, acct, ids)
	if err != nil {
		return err
	}
	for id, p := range parts {
		byID[id].Participants = p
	}
	return assignees(ctx, q, acct, page)
}
