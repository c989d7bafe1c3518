package mcp_test

import (
	"context"
	"encoding/json"
	"strings"
	"testing"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/frontdesk/frontdesk/internal/calendar"
	"github.com/frontdesk/frontdesk/internal/chat"
	"github.com/frontdesk/frontdesk/internal/mcp"
	"github.com/frontdesk/frontdesk/internal/mcp/mcptest"
	"github.com/frontdesk/frontdesk/internal/pipeline"
	"github.com/frontdesk/frontdesk/internal/waitlist"
)

// big answers every tool with what its fields hold: the answers of a large
// account, without a store.
type big struct {
	messages []chat.Message // the conversation's transcript
	convs    []chat.Conversation
	slots    int
	rows     int
}

func (b *big) ListServices(context.Context, mcp.ListServicesIn) (mcp.ListServicesOut, error) {
	return mcp.ListServicesOut{Services: []calendar.Service{}}, nil
}

func (b *big) FindSlots(context.Context, mcp.FindSlotsIn) (calendar.SlotList, error) {
	l := calendar.SlotList{Slots: make([]calendar.OpenSlot, b.slots)}
	for i := range l.Slots {
		l.Slots[i].StartAt = strings.Repeat("x", 200)
	}
	return l, nil
}

func (b *big) BookAppointment(context.Context, mcp.BookAppointmentIn) (mcp.BookAppointmentOut, error) {
	return mcp.BookAppointmentOut{}, nil
}

func (b *big) AddToWaitlist(context.Context, mcp.AddToWaitlistIn) (waitlist.AddResult, error) {
	return waitlist.AddResult{}, nil
}

func (b *big) WaitlistSummary(context.Context, mcp.WaitlistSummaryIn) (waitlist.SummaryResult, error) {
	return waitlist.SummaryResult{}, nil
}

func (b *big) ListPipelines(context.Context, mcp.ListPipelinesIn) (mcp.ListPipelinesOut, error) {
	return mcp.ListPipelinesOut{Pipelines: []mcp.PipelineWithStages{}}, nil
}

func (b *big) IngestLeads(context.Context, mcp.IngestLeadsIn) (pipeline.IngestResult, error) {
	res := pipeline.IngestResult{Results: make([]pipeline.RowResult, b.rows)}
	for i := range res.Results {
		res.Results[i].ExternalID = strings.Repeat("e", 10000)
	}
	return res, nil
}

func (b *big) MoveClient(context.Context, mcp.MoveClientIn) (pipeline.Result, error) {
	return pipeline.Result{}, nil
}

func (b *big) SearchConversations(_ context.Context, in mcp.SearchConversationsIn) (mcp.SearchConversationsOut, error) {
	out := mcp.SearchConversationsOut{Count: len(b.convs) + in.Offset, Offset: in.Offset, Limit: 50}
	out.Conversations = append(out.Conversations, b.convs...)
	return out, nil
}

func (b *big) GetConversationMessages(_ context.Context, in mcp.GetConversationMessagesIn) (mcp.ConversationMessagesOut, error) {
	limit := in.Limit
	if limit == 0 {
		limit = 100
	}
	page := b.messages[min(in.Offset, len(b.messages)):min(in.Offset+limit, len(b.messages))]
	return mcp.ConversationMessagesOut{Messages: page, Count: len(b.messages), Limit: limit, Offset: in.Offset}, nil
}

// connect serves b in memory to the SDK's client.
func connect(t *testing.T, b mcp.Backend) *sdk.ClientSession {
	t.Helper()
	st, ct := sdk.NewInMemoryTransports()
	ctx := context.Background()
	if _, err := mcp.NewServer(b, mcp.Options{}).Connect(ctx, st, nil); err != nil {
		t.Fatal(err)
	}
	cs, err := sdk.NewClient(&sdk.Implementation{Name: "t", Version: "1"}, nil).Connect(ctx, ct, nil)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { cs.Close() })
	return cs
}

func messages(n, size int) []chat.Message {
	out := make([]chat.Message, n)
	for i := range out {
		out[i] = chat.Message{ID: int64(i + 1), SenderType: "client", MessageType: "text", Content: strings.Repeat("é", size/2)}
	}
	return out
}

// encoded is a result body's JSON size.
func encoded(t *testing.T, r mcptest.Result) int {
	b, err := json.Marshal(r.Body)
	if err != nil {
		t.Fatal(err)
	}
	return len(b)
}

// TestResultBound: a transcript page stops before MaxResultBytes and tells
// where the next starts, so paging reads every message; one message larger
// than a result is cut; a read still too large is refused; a write's answer
// never is.
func TestResultBound(t *testing.T) {
	b := &big{messages: messages(100, 50_000)} // 5 MB of transcript
	cs := connect(t, b)

	t.Run("a transcript is read page by page", func(t *testing.T) {
		var seen []float64
		offset := 0
		for pages := 0; ; pages++ {
			if pages > 20 {
				t.Fatal("paging does not end")
			}
			r := mcptest.Call(t, cs, "get_conversation_messages", map[string]any{"session_id": 1, "offset": offset}).MustOK(t, "get_conversation_messages")
			if n := encoded(t, r); n > mcp.MaxResultBytes {
				t.Fatalf("page at %d: %d bytes", offset, n)
			}
			msgs := r.Body["messages"].([]any)
			for _, m := range msgs {
				seen = append(seen, m.(map[string]any)["id"].(float64))
			}
			if r.Body["has_more"] != true {
				if r.Body["next_offset"] != nil {
					t.Errorf("last page with next_offset %v", r.Body["next_offset"])
				}
				break
			}
			if len(msgs) == 0 || r.Body["next_offset"].(float64) != float64(offset+len(msgs)) {
				t.Fatalf("page at %d: %d messages, next_offset %v", offset, len(msgs), r.Body["next_offset"])
			}
			offset = int(r.Body["next_offset"].(float64))
		}
		if len(seen) != 100 || seen[0] != 1 || seen[99] != 100 {
			t.Errorf("paging read %d messages", len(seen))
		}
	})

	t.Run("a small page is whole", func(t *testing.T) {
		r := mcptest.Call(t, cs, "get_conversation_messages", map[string]any{"session_id": 1, "limit": 5}).MustOK(t, "get_conversation_messages")
		if len(r.Body["messages"].([]any)) != 5 || r.Body["has_more"] != true || r.Body["next_offset"].(float64) != 5 {
			t.Errorf("limit 5: %d messages, %v %v", len(r.Body["messages"].([]any)), r.Body["has_more"], r.Body["next_offset"])
		}
	})

	t.Run("one message larger than a result is cut", func(t *testing.T) {
		cs := connect(t, &big{messages: append(messages(1, 3<<20), messages(1, 10)...)})
		r := mcptest.Call(t, cs, "get_conversation_messages", map[string]any{"session_id": 1}).MustOK(t, "get_conversation_messages")
		msgs := r.Body["messages"].([]any)
		content := msgs[0].(map[string]any)["content"].(string)
		if len(msgs) != 1 || !strings.HasSuffix(content, "(cut: this message is longer than one tool result carries)") ||
			!strings.HasPrefix(content, "éé") || r.Body["next_offset"].(float64) != 1 {
			t.Errorf("%d messages, next_offset %v, content ends %q", len(msgs), r.Body["next_offset"], content[max(0, len(content)-80):])
		}
		if n := encoded(t, r); n > mcp.MaxResultBytes || n < mcp.MaxResultBytes-1000 {
			t.Errorf("cut page: %d bytes", n)
		}
	})

	t.Run("embedded messages are cut per conversation", func(t *testing.T) {
		convs := make([]chat.Conversation, 20)
		for i := range convs {
			convs[i] = chat.Conversation{SessionID: int64(i + 1), Messages: messages(20, 5_000), AssignedUsers: []chat.User{}}
		}
		cs := connect(t, &big{convs: convs}) // 2 MB of embedded messages
		r := mcptest.Call(t, cs, "search_conversations", map[string]any{"include_messages": true}).MustOK(t, "search_conversations")
		if n := encoded(t, r); n > mcp.MaxResultBytes {
			t.Fatalf("%d bytes", n)
		}
		got := r.Body["conversations"].([]any)
		first, last := got[0].(map[string]any), got[len(got)-1].(map[string]any)
		if len(first["messages"].([]any)) != 20 || first["has_more_messages"] != false {
			t.Errorf("the first conversation lost messages: %d", len(first["messages"].([]any)))
		}
		if last["has_more_messages"] != true || len(last["messages"].([]any)) == 20 {
			t.Errorf("the last kept conversation was not cut: %d messages", len(last["messages"].([]any)))
		}
		if hasMore := len(got) < 20; r.Body["has_more"] != hasMore || hasMore && r.Body["next_offset"].(float64) != float64(len(got)) {
			t.Errorf("%d conversations kept: has_more %v next_offset %v", len(got), r.Body["has_more"], r.Body["next_offset"])
		}
	})

	t.Run("a read still too large is refused", func(t *testing.T) {
		cs := connect(t, &big{slots: 10_000})
		r := mcptest.Call(t, cs, "find_slots", map[string]any{"service_id": 1})
		if !r.IsError || r.Code() != "PAYLOAD_TOO_LARGE" || r.Body["details"].(map[string]any)["max_result_bytes"].(float64) != mcp.MaxResultBytes {
			t.Errorf("find_slots of 10,000 slots: %v", r.Body)
		}
	})

	t.Run("a write's answer is never refused", func(t *testing.T) {
		cs := connect(t, &big{rows: 200}) // 2 MB of echoed external ids
		mcptest.Call(t, cs, "ingest_leads", map[string]any{"input_node_uuid": "0b7d6c52-5a52-4c1e-9a57-6f4a0f1f3a01",
			"clients": []any{map[string]any{"email": "a@example.com"}}}).MustOK(t, "ingest_leads")
	})

	t.Run("reads say so", func(t *testing.T) {
		tools, err := cs.ListTools(context.Background(), nil)
		if err != nil {
			t.Fatal(err)
		}
		for _, tool := range tools.Tools {
			read := tool.Annotations != nil && tool.Annotations.ReadOnlyHint
			if want := !strings.Contains("book_appointment add_to_waitlist ingest_leads move_client", tool.Name); read != want {
				t.Errorf("%s: readOnlyHint %v", tool.Name, read)
			}
		}
	})
}
