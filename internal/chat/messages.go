package chat

import (
	"cmp"
	"context"
	"database/sql"
	"encoding/json"
	"fmt"
	"slices"
	"strings"

	"github.com/frontdesk/frontdesk/internal/clock"

	"github.com/frontdesk/frontdesk/internal/account"
	"github.com/frontdesk/frontdesk/internal/db"
)

// messageColumns are the public columns of a message (alias m) with its AI
// agent (a) and user (u). The internal columns are never listed.
const messageColumns = `m.id, m.conversation_id, m.sender_kind, m.ai_agent_id, a.name, m.user_id, u.name, u.email,
	m.message_type, m.content, m.media, m.reply_to_id, m.sent_at`

const messageJoins = ` LEFT JOIN ai_agents a ON a.account_id = m.account_id AND a.id = m.ai_agent_id LEFT JOIN users u ON u.account_id = m.account_id AND u.id = m.user_id`

// embedMessages loads the oldest maxMessages messages of every conversation of the
// page in one statement. Conversations whose whole transcript fits are read
// with a plain IN over the (conversation_id, sent_at, id) index; each longer
// one gets its own ORDER BY … LIMIT branch of a UNION ALL, so a transcript of
// 100,000 messages costs maxMessages rows, not a window over all of them.
func embedMessages(ctx context.Context, q db.Querier, acct account.Account, page []Conversation, byID map[int64]*Conversation, maxMessages int) error {
	var (
		fits  []int64
		parts []string
		args  []any
	)
	for i := range page {
		page[i].Messages = []Message{}
		if page[i].MessageCount <= maxMessages {
			fits = append(fits, page[i].SessionID)
		}
	}
	if len(fits) > 0 {
		in, inArgs := db.In(fits)
		parts = append(parts, `SELECT `+messageColumns+` FROM messages m`+messageJoins+`
			WHERE m.account_id = ? AND m.conversation_id IN `+in)
		args = append(append(args, acct.ID), inArgs...)
	}
	for i := range page {
		if page[i].MessageCount > maxMessages {
			parts = append(parts, fmt.Sprintf(`SELECT * FROM (SELECT `+messageColumns+` FROM messages m`+messageJoins+`
				WHERE m.account_id = ? AND m.conversation_id = ? ORDER BY m.sent_at, m.id LIMIT ?) AS cut%d`, i))
			args = append(args, acct.ID, page[i].SessionID, maxMessages)
		}
	}
	msgs, err := scanMessages(ctx, q, byID, strings.Join(parts, " UNION ALL "), args...)
	if err != nil {
		return err
	}
	for _, m := range msgs {
		c := byID[m.conv]
		c.Messages = append(c.Messages, m)
	}
	for i := range page {
		c := &page[i]
		slices.SortFunc(c.Messages, func(a, b Message) int {
			return cmp.Or(cmp.Compare(a.sentAt, b.sentAt), cmp.Compare(a.ID, b.ID))
		})
		// A message appended since the page was read may have pushed a
		// transcript that fitted past maxMessages.
		if len(c.Messages) > maxMessages {
			c.Messages = c.Messages[:maxMessages]
		}
		c.HasMoreMessages = c.MessageCount > len(c.Messages)
	}
	return nil
}

// scanMessages reads rows selected with messageColumns; the customer sender
// comes from the message's conversation in byID.
func scanMessages(ctx context.Context, q db.Querier, byID map[int64]*Conversation, query string, args ...any) ([]Message, error) {
	rows, err := q.Query(ctx, query, args...)
	if err != nil {
		return nil, fmt.Errorf("list messages: %w", err)
	}
	defer rows.Close()
	var out []Message
	for rows.Next() {
		var (
			m                   Message
			kind                string
			agentID, userID     sql.NullInt64
			agentName, userName sql.NullString
			userEmail           sql.NullString
			media               sql.NullString
			replyTo             sql.NullInt64
			sent                int64
		)
		if err := rows.Scan(&m.ID, &m.conv, &kind, &agentID, &agentName, &userID, &userName, &userEmail,
			&m.MessageType, &m.Content, &media, &replyTo, &sent); err != nil {
			return nil, err
		}
		m.SenderType = senderType(kind)
		switch kind {
		case "client":
			if c := byID[m.conv]; c != nil {
				m.Sender = c.customer
			} else {
				m.Sender = Sender{Type: "client"}
			}
		case "ai_agent":
			m.Sender = Sender{Type: "ai_agent"}
			if agentID.Valid {
				m.Sender.ID, m.Sender.Name = &agentID.Int64, &agentName.String
			}
		case "user":
			m.Sender = Sender{Type: "user"}
			if userID.Valid {
				m.Sender.ID, m.Sender.Name, m.Sender.Email = &userID.Int64, &userName.String, strOrNil(userEmail.String)
			}
		default:
			m.Sender = Sender{Type: "business_app"}
		}
		m.sentAt = sent
		m.Timestamp = db.Time(sent)
		if media.Valid {
			m.Media = decodeMedia(media.String)
		}
		if replyTo.Valid {
			m.ReplyToID = &replyTo.Int64
		}
		out = append(out, m)
	}
	return out, rows.Err()
}

// decodeMedia keeps only the public metadata of stored media JSON: any other
// key a channel stored (a storage key, a URL) is dropped here.
func decodeMedia(s string) *Media {
	var m *Media
	if err := json.Unmarshal([]byte(s), &m); err != nil || m == nil {
		return nil
	}
	for _, f := range []**string{&m.Kind, &m.Mime, &m.Filename} {
		if *f != nil && **f == "" {
			*f = nil
		}
	}
	return m
}

// participants tallies who sent messages in each conversation, over the
// whole history: one grouped query for the page. Business-app messages (and
// agent or user messages without a known sender) count toward no one.
func participants(ctx context.Context, q db.Querier, acct account.Account, ids []int64) (map[int64]Participants, error) {
	in, inArgs := db.In(ids)
	rows, err := q.Query(ctx, `SELECT p.conversation_id, p.sender_kind, p.sender_id, p.n, p.first_at, p.last_at,
			COALESCE(a.name, u.name, ''), u.email
		FROM (SELECT account_id, conversation_id, sender_kind, COALESCE(ai_agent_id, user_id) AS sender_id,
				COUNT(*) AS n, MIN(sent_at) AS first_at, MAX(sent_at) AS last_at
			FROM messages
			WHERE account_id = ? AND conversation_id IN `+in+` AND sender_kind IN ('ai_agent', 'user')
				AND COALESCE(ai_agent_id, user_id) IS NOT NULL
			GROUP BY account_id, conversation_id, sender_kind, COALESCE(ai_agent_id, user_id)) p
		LEFT JOIN ai_agents a ON p.sender_kind = 'ai_agent' AND a.account_id = p.account_id AND a.id = p.sender_id
		LEFT JOIN users u ON p.sender_kind = 'user' AND u.account_id = p.account_id AND u.id = p.sender_id
		ORDER BY p.conversation_id, p.first_at, p.sender_id`, append([]any{acct.ID}, inArgs...)...)
	if err != nil {
		return nil, fmt.Errorf("participants: %w", err)
	}
	defer rows.Close()
	out := map[int64]Participants{}
	for rows.Next() {
		var (
			conv, id, first, last int64
			kind, name            string
			n                     int
			email                 sql.NullString
		)
		if err := rows.Scan(&conv, &kind, &id, &n, &first, &last, &name, &email); err != nil {
			return nil, err
		}
		p, ok := out[conv]
		if !ok {
			p = emptyParticipants()
		}
		if kind == "ai_agent" {
			p.AIAgents = append(p.AIAgents, AgentParticipant{ID: id, Name: name, MessageCount: n,
				FirstMessageAt: clock.Format(db.Time(first)), LastMessageAt: clock.Format(db.Time(last))})
		} else {
			p.Users = append(p.Users, UserParticipant{ID: id, Name: name, Email: strOrNil(email.String), MessageCount: n,
				FirstMessageAt: clock.Format(db.Time(first)), LastMessageAt: clock.Format(db.Time(last))})
		}
		out[conv] = p
	}
	return out, rows.Err()
}

// assignees fills assigned_users: the distinct users assigned to the active
// pipeline cards of each conversation's client, in one query for the page.
func assignees(ctx context.Context, q db.Querier, acct account.Account, page []Conversation) error {
	var clientIDs []int64
	seen := map[int64]bool{}
	for _, c := range page {
		if c.clientID != 0 && !seen[c.clientID] {
			seen[c.clientID] = true
			clientIDs = append(clientIDs, c.clientID)
		}
	}
	if len(clientIDs) == 0 {
		return nil
	}
	in, inArgs := db.In(clientIDs)
	rows, err := q.Query(ctx, `SELECT DISTINCT k.client_id, u.id, u.name, u.email
		FROM cards k JOIN users u ON u.account_id = k.account_id AND u.id = k.assigned_user_id
		WHERE k.account_id = ? AND k.status = 'active' AND k.client_id IN `+in+`
		ORDER BY k.client_id, u.id`, append([]any{acct.ID}, inArgs...)...)
	if err != nil {
		return fmt.Errorf("assigned users: %w", err)
	}
	defer rows.Close()
	byClient := map[int64][]User{}
	for rows.Next() {
		var (
			client int64
			u      User
			email  string
		)
		if err := rows.Scan(&client, &u.ID, &u.Name, &email); err != nil {
			return err
		}
		u.Email = strOrNil(email)
		byClient[client] = append(byClient[client], u)
	}
	if err := rows.Err(); err != nil {
		return err
	}
	for i := range page {
		if us, ok := byClient[page[i].clientID]; ok {
			page[i].AssignedUsers = us
		}
	}
	return nil
}

// MessagePage is the answer of the messages endpoint.
type MessagePage struct {
	SessionID    int64
	Messages     []Message
	Count        int
	Participants Participants
}

// ListMessages pages the whole history of one conversation of the account,
// by timestamp then id (ascending unless desc), with its full participants.
func ListMessages(ctx context.Context, q db.Querier, acct account.Account, sessionID int64, limit, offset int, desc bool) (MessagePage, error) {
	conv, err := header(ctx, q, acct, sessionID)
	if err != nil {
		return MessagePage{}, err
	}
	dir := "ASC"
	if desc {
		dir = "DESC"
	}
	byID := map[int64]*Conversation{conv.SessionID: &conv}
	msgs, err := scanMessages(ctx, q, byID, `SELECT `+messageColumns+` FROM messages m`+messageJoins+`
		WHERE m.account_id = ? AND m.conversation_id = ?
		ORDER BY m.sent_at `+dir+`, m.id `+dir+` LIMIT ? OFFSET ?`, acct.ID, sessionID, limit, offset)
	if err != nil {
		return MessagePage{}, err
	}
	if msgs == nil {
		msgs = []Message{}
	}
	parts, err := participants(ctx, q, acct, []int64{sessionID})
	if err != nil {
		return MessagePage{}, err
	}
	p, ok := parts[sessionID]
	if !ok {
		p = emptyParticipants()
	}
	return MessagePage{SessionID: sessionID, Messages: msgs, Count: conv.MessageCount, Participants: p}, nil
}
