package mcp

import (
	"encoding/json"
	"unicode/utf8"

	"github.com/frontdesk/frontdesk/internal/chat"
	"github.com/frontdesk/frontdesk/internal/errs"
	"github.com/frontdesk/frontdesk/internal/valid"
)

// MaxResultBytes bounds the structured content of one tool result
// (README.md, "AI agents (MCP)"; docs/api-notes.md): more than an agent's
// context holds, and a bound on what one request makes the server encode.
// The arguments' caps keep most answers far below it; a transcript page
// stops early (has_more, next_offset), and a read whose answer is still
// larger is refused with PAYLOAD_TOO_LARGE.
const MaxResultBytes = 1 << 20

// cutMarker ends the content of a message cut to fit in one result.
const cutMarker = " […] (cut: this message is longer than one tool result carries)"

// pager is an answer paged by offset: page fills its has_more and
// next_offset from what it holds, and cut drops what goes past max bytes of
// JSON, so that the agent continues at next_offset.
type pager interface {
	page()
	cut(max int)
}

// fit renders out for a tool result: its JSON, paged and cut to
// MaxResultBytes when it is a pager.
func fit(out any) ([]byte, error) {
	p, paged := out.(pager)
	if paged {
		p.page()
	}
	b, err := json.Marshal(out)
	if err != nil || len(b) <= MaxResultBytes || !paged {
		return b, err
	}
	p.cut(MaxResultBytes)
	p.page()
	return json.Marshal(out)
}

// tooLarge refuses a read whose answer is over MaxResultBytes after cutting.
func tooLarge(tool string, n int) error {
	return errs.WithDetails(errs.PayloadTooLarge, map[string]any{"max_result_bytes": MaxResultBytes, "result_bytes": n},
		"The answer of %s would be %s, more than the %s one tool result carries: ask for less (a lower limit, fewer days, a narrower filter) or page with offset.",
		tool, byteSize(int64(n)), byteSize(MaxResultBytes))
}

// size is the length of v's JSON.
func size(v any) int {
	b, _ := json.Marshal(v)
	return len(b)
}

// nextPage is the offset after n items from offset, and whether count has
// more.
func nextPage(offset, n, count int) (bool, *int) {
	next := offset + n
	if next >= count {
		return false, nil
	}
	return true, &next
}

// page implements pager.
func (o *ConversationMessagesOut) page() {
	o.HasMore, o.NextOffset = nextPage(o.Offset, len(o.Messages), o.Count)
}

// cut keeps the messages that fit in max bytes, at least one: a single
// message larger than a result keeps the start of its content.
func (o *ConversationMessagesOut) cut(max int) {
	msgs := o.Messages
	o.Messages = []chat.Message{}
	used := sizeWithNext(o, &o.HasMore, &o.NextOffset)
	keep := fitting(msgs, max-used)
	if keep == 0 && len(msgs) > 0 {
		m := msgs[0]
		cutContent(&m, max-used)
		msgs, keep = []chat.Message{m}, 1
	}
	o.Messages = msgs[:keep]
}

// page implements pager.
func (o *SearchConversationsOut) page() {
	o.HasMore, o.NextOffset = nextPage(o.Offset, len(o.Conversations), o.Count)
}

// cut keeps the conversations whose metadata fits in max bytes, and of their
// embedded messages those that still fit, in order; a conversation whose
// messages were cut has has_more_messages true (get_conversation_messages
// pages its transcript). When not even the first conversation fits, nothing
// is cut and the answer is refused.
func (o *SearchConversationsOut) cut(max int) {
	convs := o.Conversations
	o.Conversations = []chat.Conversation{}
	used := sizeWithNext(o, &o.HasMore, &o.NextOffset)
	kept := 0
	for i := range convs {
		c := &convs[i]
		msgs := c.Messages
		if msgs != nil {
			c.Messages = []chat.Message{}
		}
		meta := size(c) + comma(i)
		if used+meta > max {
			c.Messages = msgs
			break
		}
		used += meta
		if msgs != nil {
			n := fitting(msgs, max-used)
			used += sizeOf(msgs[:n])
			c.Messages = msgs[:n]
			c.HasMoreMessages = c.HasMoreMessages || n < len(msgs)
		}
		kept++
	}
	if kept == 0 {
		o.Conversations = convs
		return
	}
	o.Conversations = convs[:kept]
}

// sizeWithNext is v's size with its paging fields at their longest (has_more
// true, next_offset of the most digits).
func sizeWithNext(v any, hasMore *bool, next **int) int {
	longest := valid.MaxOffset
	*hasMore, *next = true, &longest
	n := size(v)
	*hasMore, *next = false, nil
	return n
}

// fitting is how many of msgs, from the first, fit in budget bytes as the
// items of a JSON list.
func fitting(msgs []chat.Message, budget int) int {
	used := 0
	for i, m := range msgs {
		used += size(m) + comma(i)
		if used > budget {
			return i
		}
	}
	return len(msgs)
}

// sizeOf is the bytes msgs add inside a JSON list.
func sizeOf(msgs []chat.Message) int {
	n := 0
	for i, m := range msgs {
		n += size(m) + comma(i)
	}
	return n
}

func comma(i int) int {
	if i > 0 {
		return 1
	}
	return 0
}

// cutContent shortens m's content, at a character boundary and followed by
// cutMarker, until m's JSON fits in budget bytes (or the content is empty).
func cutContent(m *chat.Message, budget int) {
	full := m.Content
	keep := len(full)
	for {
		m.Content = full[:keep] + cutMarker
		over := size(*m) - budget
		if over <= 0 || keep == 0 {
			return
		}
		// Escaping only lengthens: dropping over bytes of text shortens the
		// JSON by at least over.
		keep = max(keep-over, 0)
		for keep > 0 && !utf8.RuneStart(full[keep]) {
			keep--
		}
	}
}
