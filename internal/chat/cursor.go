package chat

import (
	"bytes"
	"encoding/base64"
	"encoding/json"
	"errors"
	"strings"
)

// Cursor is a position in the updated_at order of an account's
// conversations: the (updated_at, session_id) of the last conversation a
// page showed, and the direction the walk goes. A page "after" it holds the
// conversations strictly beyond that position, so rows that change while a
// client pages cannot shift the pages still to come (as offsets do): a
// conversation updated mid-walk moves to the end of an ascending walk,
// where the walk meets it again. It goes beyond the contract (additive
// `cursor` parameter and `next_cursor` field).
type Cursor struct {
	UpdatedAt int64 // stored microseconds
	SessionID int64
	Desc      bool // the walk is sort_by=-updated_at
}

// cursorDoc is the encoded form. The fields are short because the cursor
// travels in every URL; "o" carries the order so that a cursor is never
// read in the other direction.
type cursorDoc struct {
	Order     string `json:"o"`
	UpdatedAt int64  `json:"u"`
	SessionID int64  `json:"s"`
}

// ErrBadCursor is a cursor this server did not issue (or that was altered).
var ErrBadCursor = errors.New("cursor is not a next_cursor returned by this endpoint")

// String encodes the cursor: base64url (unpadded) of a small JSON document.
// Clients must treat it as opaque.
func (c Cursor) String() string {
	d := cursorDoc{Order: c.Order(), UpdatedAt: c.UpdatedAt, SessionID: c.SessionID}
	b, _ := json.Marshal(d)
	return base64.RawURLEncoding.EncodeToString(b)
}

// Order is the sort_by spelling of the cursor's walk.
func (c Cursor) Order() string {
	if c.Desc {
		return "-updated_at"
	}
	return "updated_at"
}

// ParseCursor decodes a cursor made by String. Padding is tolerated (some
// clients re-encode base64); anything else that does not decode to exactly
// the document String writes is ErrBadCursor.
func ParseCursor(s string) (Cursor, error) {
	raw, err := base64.RawURLEncoding.DecodeString(strings.TrimRight(s, "="))
	if err != nil || len(raw) == 0 {
		return Cursor{}, ErrBadCursor
	}
	dec := json.NewDecoder(bytes.NewReader(raw))
	dec.DisallowUnknownFields()
	var d struct {
		Order     *string `json:"o"`
		UpdatedAt *int64  `json:"u"`
		SessionID *int64  `json:"s"`
	}
	if dec.Decode(&d) != nil || dec.More() || d.Order == nil || d.UpdatedAt == nil || d.SessionID == nil || *d.SessionID < 1 {
		return Cursor{}, ErrBadCursor
	}
	switch *d.Order {
	case "updated_at", "-updated_at":
	default:
		return Cursor{}, ErrBadCursor
	}
	return Cursor{UpdatedAt: *d.UpdatedAt, SessionID: *d.SessionID, Desc: *d.Order == "-updated_at"}, nil
}

// cursorOf is the position of a listed conversation.
func cursorOf(c Conversation, desc bool) Cursor {
	return Cursor{UpdatedAt: c.updatedUS, SessionID: c.SessionID, Desc: desc}
}

// after is the keyset condition "strictly after c in c's order". It is
// written as a bound on updated_at AND the tie-break, which equals
// updated_at > u OR (updated_at = u AND id > s) but plans better: with the
// OR alone both engines seek the (account_id, updated_at, id) index on
// account_id only and filter every row before the cursor, so a page would
// cost the depth of the walk (measured at 19,000 rows deep: 1.2 ms against
// 0.13 ms on SQLite, 3.3 ms against 0.56 ms on PostgreSQL). The leading
// range seeks straight to the cursor and reads the index in order until
// LIMIT, at any depth.
func (c Cursor) after() (string, []any) {
	if c.Desc {
		return "cv.updated_at <= ? AND (cv.updated_at < ? OR cv.id < ?)", []any{c.UpdatedAt, c.UpdatedAt, c.SessionID}
	}
	return "cv.updated_at >= ? AND (cv.updated_at > ? OR cv.id > ?)", []any{c.UpdatedAt, c.UpdatedAt, c.SessionID}
}
