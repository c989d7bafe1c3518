package client

import (
	"context"
	"iter"
	"net/http"
	"net/url"
	"time"
)

// Conversation is a chat session.
type Conversation struct {
	SessionID           int64          `json:"session_id"`
	Status              string         `json:"status"`    // new, ai_handling, human_handling, resolved, expired
	Direction           string         `json:"direction"` // inbound, outbound
	CustomerPhoneNumber string         `json:"customer_phone_number"`
	Client              *ClientSummary `json:"client"` // nil when the number matches no client
	Disposition         *struct {
		ID    int64  `json:"id"`
		Name  string `json:"name"`
		Color string `json:"color"`
	} `json:"disposition"`
	Sentiment       *string    `json:"sentiment"` // positive, neutral, negative
	Summary         string     `json:"summary"`
	MessageCount    int        `json:"message_count"`
	HasMoreMessages bool       `json:"has_more_messages"`
	CreatedAt       time.Time  `json:"created_at"`
	UpdatedAt       time.Time  `json:"updated_at"`
	LastMessageAt   *time.Time `json:"last_message_at"`
	// Messages is nil when listed with IncludeMessages false.
	Messages      []Message    `json:"messages"`
	AssignedUsers []User       `json:"assigned_users"`
	Participants  Participants `json:"participants"`
}

// Message is a chat message.
type Message struct {
	ID         int64  `json:"id"`
	SenderType string `json:"sender_type"` // customer, ai, human
	Sender     struct {
		Type  string  `json:"type"` // client, ai_agent, user, business_app
		ID    *int64  `json:"id"`
		Name  *string `json:"name"`
		Email *string `json:"email"`
	} `json:"sender"`
	MessageType string    `json:"message_type"`
	Content     string    `json:"content"`
	Timestamp   time.Time `json:"timestamp"`
	Media       *struct {
		Kind     *string `json:"kind"`
		Mime     *string `json:"mime"`
		Filename *string `json:"filename"`
		Caption  *string `json:"caption"`
	} `json:"media"`
	ReplyToID *int64 `json:"reply_to_id"`
}

// Participants is everyone who sent a message, over the whole conversation.
type Participants struct {
	AIAgents []Participant `json:"ai_agents"`
	Users    []Participant `json:"users"`
}

// Participant is an AI agent or a team member of Participants (Email is
// nil for agents).
type Participant struct {
	ID             int64     `json:"id"`
	Name           string    `json:"name"`
	Email          *string   `json:"email"`
	MessageCount   int       `json:"message_count"`
	FirstMessageAt time.Time `json:"first_message_at"`
	LastMessageAt  time.Time `json:"last_message_at"`
}

// ConversationFilter narrows ListConversations; zero values are not sent.
type ConversationFilter struct {
	CreatedAfter, CreatedBefore, UpdatedAfter time.Time
	ClientID                                  int64
	Search                                    string
	DispositionTagIDs                         []int64
	IncludeUncategorized                      bool
	Status, Direction                         string
	// SortBy is created_at, updated_at, last_message_at or client_name,
	// "-" prefixed for descending (default -created_at).
	SortBy                string
	Limit, Offset         int   // limit 1..50, default 20
	IncludeMessages       *bool // default true
	MaxMessagesPerSession int   // 1..2000, default 500
	// Cursor continues an updated_at walk after the page whose NextCursor
	// it is (additive): pages cannot drift when conversations change
	// meanwhile. Use it with Offset 0 and the same filters.
	Cursor string
}

func (f ConversationFilter) query() url.Values {
	q := query(url.Values{})
	q.time("created_after", f.CreatedAfter)
	q.time("created_before", f.CreatedBefore)
	q.time("updated_after", f.UpdatedAfter)
	q.int("client_id", f.ClientID)
	q.str("search", f.Search)
	q.ints("disposition_tag_ids", f.DispositionTagIDs)
	if f.IncludeUncategorized {
		q.str("include_uncategorized", "true")
	}
	q.str("status", f.Status)
	q.str("direction", f.Direction)
	q.str("sort_by", f.SortBy)
	q.int("limit", int64(f.Limit))
	q.int("offset", int64(f.Offset))
	q.boolPtr("include_messages", f.IncludeMessages)
	q.int("max_messages_per_session", int64(f.MaxMessagesPerSession))
	q.str("cursor", f.Cursor)
	return url.Values(q)
}

// ConversationPage is one page of conversations.
type ConversationPage struct {
	Page[Conversation]
	// NextCursor is set in the updated_at orders (additive): pass it as
	// ConversationFilter.Cursor for the next page; nil on the last page.
	NextCursor *string `json:"next_cursor"`
}

// ListConversations lists one page of conversations.
func (c *Client) ListConversations(ctx context.Context, f ConversationFilter, opts ...CallOption) (*ConversationPage, error) {
	var out ConversationPage
	if err := c.do(ctx, request{method: http.MethodGet, path: "/chat/conversations", query: f.query()}, &out, opts); err != nil {
		return nil, err
	}
	return &out, nil
}

// Conversations iterates over every conversation matching f, page by page
// (f.Limit per page, default 50). In the updated_at orders it follows the
// server's next_cursor, so conversations updated during the walk are never
// skipped (one updated mid-walk comes again at the end of an ascending
// walk); in other orders it pages by offset from f.Offset. For incremental
// sync, set UpdatedAfter to the newest updated_at seen and SortBy
// "updated_at". The iteration stops at the first error, which it yields.
func (c *Client) Conversations(ctx context.Context, f ConversationFilter, opts ...CallOption) iter.Seq2[Conversation, error] {
	return func(yield func(Conversation, error) bool) {
		if f.Limit == 0 {
			f.Limit = 50
		}
		for {
			page, err := c.ListConversations(ctx, f, opts...)
			if err != nil {
				yield(Conversation{}, err)
				return
			}
			for _, conv := range page.Data {
				if !yield(conv, nil) {
					return
				}
			}
			if page.NextCursor != nil || f.Cursor != "" {
				if page.NextCursor == nil || len(page.Data) == 0 {
					return
				}
				f.Cursor, f.Offset = *page.NextCursor, 0
				continue
			}
			f.Offset += len(page.Data)
			if len(page.Data) == 0 || f.Offset >= page.Count {
				return
			}
		}
	}
}

// MessageFilter pages ListMessages.
type MessageFilter struct {
	Limit, Offset int    // limit 1..500, default 100
	Order         string // asc (default) or desc
}

// MessagePage is a page of a conversation's messages with its full roster.
type MessagePage struct {
	SessionID    int64        `json:"session_id"`
	Data         []Message    `json:"data"`
	Count        int          `json:"count"` // all messages of the session
	Limit        int          `json:"limit"`
	Offset       int          `json:"offset"`
	Participants Participants `json:"participants"`
}

// ListMessages pages a conversation's messages.
func (c *Client) ListMessages(ctx context.Context, sessionID int64, f MessageFilter, opts ...CallOption) (*MessagePage, error) {
	q := query(url.Values{})
	q.int("limit", int64(f.Limit))
	q.int("offset", int64(f.Offset))
	q.str("order", f.Order)
	var out MessagePage
	if err := c.do(ctx, request{method: http.MethodGet, path: "/chat/conversations/" + pathID(sessionID) + "/messages", query: url.Values(q)}, &out, opts); err != nil {
		return nil, err
	}
	return &out, nil
}
