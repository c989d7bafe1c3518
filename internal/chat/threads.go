package chat

// The inbox by patient (docs/inbox.md): every conversation of one client,
// whatever its channel, is one thread; a conversation whose number matches
// no client is a thread of its own. A thread is new while a client message
// of an open conversation is later than every team or AI message of the
// thread: automatic messages (confirmation requests, reminders, seat
// offers) answer nothing and ask nothing, so a thread of them alone is
// never new.

import (
	"context"
	"database/sql"
	"fmt"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/frontdesk/frontdesk/internal/account"
	"github.com/frontdesk/frontdesk/internal/contact"
	"github.com/frontdesk/frontdesk/internal/db"
)

// Thread views of the inbox.
const (
	ThreadsAll      = ""
	ThreadsNew      = "new"
	ThreadsMine     = "mine"
	ThreadsResolved = "resolved"
)

// ThreadShows are the views besides all, for validation.
var ThreadShows = []string{ThreadsNew, ThreadsMine, ThreadsResolved}

// PreviewLength is how many characters of the last message a thread shows.
const PreviewLength = 80

// ThreadFilter narrows the inbox's threads.
type ThreadFilter struct {
	Show   string // ThreadsAll, ThreadsNew, ThreadsMine or ThreadsResolved
	UserID int64  // the team member whose threads ThreadsMine lists
	Search string // name words or phone digits, as Filter.Search
	Limit  int
	Offset int
}

// Thread is one line of the inbox: a client's conversations together, or
// one conversation of an unknown sender.
type Thread struct {
	ClientID  int64 // 0: a conversation whose number matches no client
	SessionID int64 // the thread's newest conversation
	Name      string
	Phone     string
	LastAt    *time.Time
	// Preview is the last message's text, cut to PreviewLength characters;
	// PreviewFrom its sender kind (client, user, ai_agent, business_app).
	Preview, PreviewFrom string
	Unread               int  // client messages of open conversations the team has not read
	Unanswered           bool // the thread is new (see the file's comment)
	// Status is the newest open conversation's, or "resolved" when every
	// conversation is closed; Assignee is that conversation's.
	Status   string
	Assignee *User
}

const openConv = `cv.status NOT IN ('resolved', 'expired')`

// threadRows is one row per conversation with what the threads group:
// the thread's key (the client, or the conversation for an unknown
// sender), the last activity, whether it is open and whose it is, and the
// newest message that is not automatic (its sender kind and time: two
// probes of the (conversation_id, sent_at, id) index that stop at the
// first such message, so a thread costs a few index reads, not a scan of
// its transcript). Its argument is the user of ThreadsMine, then the
// filter's.
const threadRows = `SELECT COALESCE(c.id, 0) AS client_id, CASE WHEN c.id IS NULL THEN cv.id ELSE 0 END AS lone_id,
		COALESCE(cv.last_message_at, cv.created_at) AS last_at,
		CASE WHEN ` + openConv + ` THEN 1 ELSE 0 END AS open,
		CASE WHEN ` + openConv + ` AND cv.assigned_user_id = ? THEN 1 ELSE 0 END AS mine,
		(SELECT m.sender_kind FROM messages m WHERE m.conversation_id = cv.id AND m.account_id = cv.account_id AND m.sender_kind <> 'business_app'
			ORDER BY m.sent_at DESC, m.id DESC LIMIT 1) AS said_by,
		(SELECT m.sent_at FROM messages m WHERE m.conversation_id = cv.id AND m.account_id = cv.account_id AND m.sender_kind <> 'business_app'
			ORDER BY m.sent_at DESC, m.id DESC LIMIT 1) AS said_at
	FROM conversations cv
	LEFT JOIN clients c ON c.account_id = cv.account_id AND c.phone_national = cv.phone_national`

// unansweredAgg holds for a thread (grouped threadRows) whose newest
// patient message of an open conversation, among the conversations' last
// words, is later than every last word of the team or an AI agent.
const unansweredAgg = `MAX(CASE WHEN open = 1 AND said_by = 'client' THEN said_at END) IS NOT NULL
	AND (MAX(CASE WHEN said_by IN ('user', 'ai_agent') THEN said_at END) IS NULL
		OR MAX(CASE WHEN open = 1 AND said_by = 'client' THEN said_at END) > MAX(CASE WHEN said_by IN ('user', 'ai_agent') THEN said_at END))`

// threadQuery is the grouped query of the threads in f's view, with its
// arguments.
func threadQuery(acct account.Account, f ThreadFilter) (string, []any) {
	where, args, _ := Filter{Search: f.Search}.where(acct)
	args = append([]any{f.UserID}, args...)
	having := ""
	switch f.Show {
	case ThreadsNew:
		having = " HAVING " + unansweredAgg
	case ThreadsMine:
		having = " HAVING MAX(mine) = 1"
	case ThreadsResolved:
		having = " HAVING MAX(open) = 0"
	}
	return `SELECT client_id, lone_id, MAX(last_at) AS last_at, CASE WHEN ` + unansweredAgg + ` THEN 1 ELSE 0 END AS unanswered
		FROM (` + threadRows + ` WHERE ` + where + `) r GROUP BY client_id, lone_id` + having, args
}

// CountThreads is how many threads f's view holds.
func CountThreads(ctx context.Context, q db.Querier, acct account.Account, f ThreadFilter) (int, error) {
	grouped, args := threadQuery(acct, f)
	var n int
	err := q.QueryRow(ctx, `SELECT COUNT(*) FROM (`+grouped+`) t`, args...).Scan(&n)
	return n, err
}

// Threads returns one page of the account's threads in a view, newest
// activity first, and the number of all matches. A page is five queries
// whatever its size.
func Threads(ctx context.Context, q db.Querier, acct account.Account, f ThreadFilter) ([]Thread, int, error) {
	grouped, args := threadQuery(acct, f)
	var total int
	if err := q.QueryRow(ctx, `SELECT COUNT(*) FROM (`+grouped+`) t`, args...).Scan(&total); err != nil {
		return nil, 0, fmt.Errorf("count threads: %w", err)
	}
	if total <= f.Offset {
		return []Thread{}, total, nil
	}
	rows, err := q.Query(ctx, `SELECT client_id, lone_id, unanswered FROM (`+grouped+`) t
		ORDER BY last_at DESC, client_id DESC, lone_id DESC LIMIT ? OFFSET ?`, append(args, f.Limit, f.Offset)...)
	if err != nil {
		return nil, 0, fmt.Errorf("threads: %w", err)
	}
	var out []Thread
	for rows.Next() {
		var (
			t          Thread
			lone       int64
			unanswered int
		)
		if err := rows.Scan(&t.ClientID, &lone, &unanswered); err != nil {
			rows.Close()
			return nil, 0, err
		}
		t.SessionID, t.Unanswered = lone, unanswered == 1
		out = append(out, t)
	}
	rows.Close()
	if err := rows.Err(); err != nil {
		return nil, 0, err
	}
	if err := threadDetails(ctx, q, acct, out); err != nil {
		return nil, 0, err
	}
	return out, total, nil
}

// threadDetails fills a page's names, numbers, newest conversations,
// statuses, assignees, unread counts and previews: three queries.
func threadDetails(ctx context.Context, q db.Querier, acct account.Account, page []Thread) error {
	var clients, lone []int64
	byClient, byLone := map[int64]int{}, map[int64]int{}
	for i, t := range page {
		if t.ClientID != 0 {
			clients, byClient[t.ClientID] = append(clients, t.ClientID), i
		} else {
			lone, byLone[t.SessionID] = append(lone, t.SessionID), i
		}
	}
	var conds []string
	args := []any{acct.ID}
	if len(clients) > 0 {
		in, inArgs := db.In(clients)
		conds, args = append(conds, "c.id IN "+in), append(args, inArgs...)
	}
	if len(lone) > 0 {
		in, inArgs := db.In(lone)
		conds, args = append(conds, "(c.id IS NULL AND cv.id IN "+in+")"), append(args, inArgs...)
	}
	if len(conds) == 0 {
		return nil
	}
	rows, err := q.Query(ctx, `SELECT cv.id, COALESCE(c.id, 0), cv.status, cv.customer_phone_number, COALESCE(cv.last_message_at, cv.created_at),
			COALESCE(c.first_name, ''), COALESCE(c.last_name, ''), u.id, u.name, u.email
		FROM conversations cv
		LEFT JOIN clients c ON c.account_id = cv.account_id AND c.phone_national = cv.phone_national
		LEFT JOIN users u ON u.account_id = cv.account_id AND u.id = cv.assigned_user_id
		WHERE cv.account_id = ? AND (`+strings.Join(conds, " OR ")+`)
		ORDER BY COALESCE(cv.last_message_at, cv.created_at), cv.id`, args...)
	if err != nil {
		return fmt.Errorf("thread conversations: %w", err)
	}
	newest := map[int]int64{} // thread → newest conversation id
	open := map[int64]int{}   // open conversation → thread
	for rows.Next() {
		var (
			id, client, last int64
			status, phoneNo  string
			first, lastName  string
			uID              sql.NullInt64
			uName, uMail     sql.NullString
		)
		if err := rows.Scan(&id, &client, &status, &phoneNo, &last, &first, &lastName, &uID, &uName, &uMail); err != nil {
			rows.Close()
			return err
		}
		i, ok := byClient[client]
		if client == 0 {
			i, ok = byLone[id]
		}
		if !ok {
			continue
		}
		t := &page[i]
		// Oldest first: the newest conversation, and the newest open one,
		// are the last written.
		t.SessionID, t.Phone, newest[i] = id, phoneNo, id
		t.Name = contact.DisplayName(first, lastName)
		at := db.Time(last)
		t.LastAt = &at
		if status != "resolved" && status != "expired" {
			open[id] = i
			t.Status, t.Assignee = status, nil
			if uID.Valid {
				t.Assignee = &User{ID: uID.Int64, Name: uName.String, Email: strOrNil(uMail.String)}
			}
		}
	}
	rows.Close()
	if err := rows.Err(); err != nil {
		return err
	}
	for i := range page {
		if page[i].Status == "" {
			page[i].Status = "resolved"
		}
	}
	if err := threadUnread(ctx, q, acct, page, open); err != nil {
		return err
	}
	return threadPreviews(ctx, q, acct, page, newest)
}

// threadUnread counts the client messages of the page's open
// conversations created after the team last read them (as UnreadCount
// does), in one query.
func threadUnread(ctx context.Context, q db.Querier, acct account.Account, page []Thread, open map[int64]int) error {
	if len(open) == 0 {
		return nil
	}
	ids := make([]int64, 0, len(open))
	for id := range open {
		ids = append(ids, id)
	}
	in, inArgs := db.In(ids)
	rows, err := q.Query(ctx, `SELECT m.conversation_id, COUNT(*) FROM messages m
		JOIN conversations cv ON cv.account_id = m.account_id AND cv.id = m.conversation_id
		WHERE m.account_id = ? AND m.conversation_id IN `+in+` AND m.sender_kind = 'client' AND m.created_at > COALESCE(cv.read_at, 0)
		GROUP BY m.conversation_id`, append([]any{acct.ID}, inArgs...)...)
	if err != nil {
		return fmt.Errorf("thread unread: %w", err)
	}
	defer rows.Close()
	for rows.Next() {
		var conv int64
		var n int
		if err := rows.Scan(&conv, &n); err != nil {
			return err
		}
		page[open[conv]].Unread += n
	}
	return rows.Err()
}

// threadPreviews sets each thread's preview from the last message of its
// newest conversation, in one query.
func threadPreviews(ctx context.Context, q db.Querier, acct account.Account, page []Thread, newest map[int]int64) error {
	if len(newest) == 0 {
		return nil
	}
	ids := make([]int64, 0, len(newest))
	at := map[int64]int{}
	for i, id := range newest {
		ids, at[id] = append(ids, id), i
	}
	in, inArgs := db.In(ids)
	rows, err := q.Query(ctx, `SELECT m.conversation_id, m.sender_kind, m.content, m.message_type FROM messages m
		WHERE m.account_id = ? AND m.conversation_id IN `+in+` AND NOT EXISTS (SELECT 1 FROM messages n
			WHERE n.account_id = m.account_id AND n.conversation_id = m.conversation_id
				AND (n.sent_at > m.sent_at OR n.sent_at = m.sent_at AND n.id > m.id))`, append([]any{acct.ID}, inArgs...)...)
	if err != nil {
		return fmt.Errorf("thread previews: %w", err)
	}
	defer rows.Close()
	for rows.Next() {
		var (
			conv            int64
			kind, text, typ string
		)
		if err := rows.Scan(&conv, &kind, &text, &typ); err != nil {
			return err
		}
		t := &page[at[conv]]
		t.PreviewFrom, t.Preview = kind, Truncate(text, PreviewLength)
		if t.Preview == "" && typ != "text" {
			t.Preview = "[" + typ + "]"
		}
	}
	return rows.Err()
}

// Truncate cuts s (spaces folded) to at most n characters, ending in "…"
// when it was cut.
func Truncate(s string, n int) string {
	s = strings.Join(strings.Fields(s), " ")
	if utf8.RuneCountInString(s) <= n {
		return s
	}
	r := []rune(s)
	return strings.TrimSpace(string(r[:n-1])) + "…"
}
