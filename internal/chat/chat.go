// Package chat is the read side of chat history (docs/contract.md,
// Conversations, Messages and senders): conversations (sessions) with their embedded
// transcripts, participants and assignees, the messages of one conversation,
// and the writes a messaging channel makes (append a message, change status,
// disposition, sentiment or summary) plus the bulk JSONL import.
//
// A conversation is tied to a client only through the phone: it stores the
// customer's national digits, and its client is whichever client of the same
// account holds those digits when the conversation is read. A client created
// after the conversation therefore still shows up on it.
//
// Reading a page is a constant number of queries whatever its size: one for
// the count, one for the page, one for every embedded message of the page,
// one for the participants of the page and one for the assignees. Internal
// message columns (model, tokens, cost, storage_key) are never selected.
package chat

import (
	"github.com/frontdesk/frontdesk/internal/contact"
	"github.com/frontdesk/frontdesk/internal/valid"
)

// Enumerations of the contract.
var (
	Statuses   = []string{"new", "ai_handling", "human_handling", "resolved", "expired"}
	Directions = []string{"inbound", "outbound"}
	Sentiments = []string{"positive", "neutral", "negative"}
	// SortFields are the sort_by values; "-" in front sorts descending.
	SortFields = []string{"created_at", "updated_at", "last_message_at", "client_name"}
	// SenderKinds are the values of a message's `from` (the workspace file's
	// shape) and of sender.type, except that a client is "client" in both.
	SenderKinds = []string{"client", "ai_agent", "user", "business_app"}
)

// Limits of the contract (docs/contract.md, Pagination).
const (
	DefaultLimit         = 20
	MaxLimit             = 50
	DefaultMaxMessages   = 500
	MaxMaxMessages       = 2000
	DefaultMessagesLimit = 100
	MaxMessagesLimit     = 500
	// MaxDispositionTags is the most distinct disposition tags one listing
	// filters on.
	MaxDispositionTags = valid.MaxQueryIDs
	// MaxSearchLen bounds the free-text search of a listing.
	MaxSearchLen = 255
)

// Conversation is a chat session as listed.
type Conversation struct {
	SessionID           int64            `json:"session_id"`
	Status              string           `json:"status"`
	Direction           string           `json:"direction"`
	CustomerPhoneNumber string           `json:"customer_phone_number"`
	Client              *contact.Summary `json:"client,omitzero"`
	Disposition         *Disposition     `json:"disposition"`
	Sentiment           *string          `json:"sentiment"`
	Summary             string           `json:"summary"`
	MessageCount        int              `json:"message_count"`
	HasMoreMessages     bool             `json:"has_more_messages"`
	CreatedAt           string           `json:"created_at"`
	UpdatedAt           string           `json:"updated_at"`
	LastMessageAt       *string          `json:"last_message_at"`
	// Messages is nil (and the key omitted) for a metadata-only browse, and
	// an empty list for a conversation without messages.
	Messages      []Message    `json:"messages,omitzero"`
	AssignedUsers []User       `json:"assigned_users"`
	Participants  Participants `json:"participants"`

	// customer is the sender of the customer's messages (the matched
	// client, or nobody).
	customer Sender
	clientID int64
	// updatedUS is updated_at as stored, for the page's next cursor.
	updatedUS int64
}

// Disposition is the disposition tag of a conversation.
type Disposition struct {
	ID    int64  `json:"id"`
	Name  string `json:"name"`
	Color string `json:"color"`
}

// User is a team member as embedded in assigned_users.
type User struct {
	ID    int64   `json:"id"`
	Name  string  `json:"name"`
	Email *string `json:"email"`
}

// Message is one message of a transcript. It deliberately has no field for
// the internal columns: they cannot leak through encoding.
type Message struct {
	ID          int64  `json:"id"`
	SenderType  string `json:"sender_type"`
	Sender      Sender `json:"sender"`
	MessageType string `json:"message_type"`
	Content     string `json:"content"`
	Timestamp   string `json:"timestamp"`
	Media       *Media `json:"media"`
	ReplyToID   *int64 `json:"reply_to_id"`
	conv        int64  // conversation id, for grouping a page's messages
	sentAt      int64  // stored timestamp, for ordering
}

// Sender is the specific sender of a message (docs/contract.md, Messages
// and senders).
type Sender struct {
	Type  string  `json:"type"`
	ID    *int64  `json:"id"`
	Name  *string `json:"name"`
	Email *string `json:"email"`
}

// Media is a message's media metadata; files are never served.
type Media struct {
	Kind     *string `json:"kind"`
	Mime     *string `json:"mime"`
	Filename *string `json:"filename"`
	Caption  *string `json:"caption"`
}

// Participants is everyone who sent at least one message of a conversation,
// over its whole history. Business-app messages count toward no one.
type Participants struct {
	AIAgents []AgentParticipant `json:"ai_agents"`
	Users    []UserParticipant  `json:"users"`
}

// AgentParticipant is an AI agent of participants.
type AgentParticipant struct {
	ID             int64  `json:"id"`
	Name           string `json:"name"`
	MessageCount   int    `json:"message_count"`
	FirstMessageAt string `json:"first_message_at"`
	LastMessageAt  string `json:"last_message_at"`
}

// UserParticipant is a team member of participants.
type UserParticipant struct {
	ID             int64   `json:"id"`
	Name           string  `json:"name"`
	Email          *string `json:"email"`
	MessageCount   int     `json:"message_count"`
	FirstMessageAt string  `json:"first_message_at"`
	LastMessageAt  string  `json:"last_message_at"`
}

func emptyParticipants() Participants {
	return Participants{AIAgents: []AgentParticipant{}, Users: []UserParticipant{}}
}

// senderType is the legacy sender_type of a stored sender_kind.
func senderType(kind string) string {
	switch kind {
	case "client":
		return "customer"
	case "ai_agent":
		return "ai"
	default: // user, business_app
		return "human"
	}
}

func strOrNil(s string) *string {
	if s == "" {
		return nil
	}
	return &s
}
