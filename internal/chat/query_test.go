package chat_test

import (
	"context"
	"database/sql"
	"testing"

	"github.com/frontdesk/frontdesk/internal/chat"
	"github.com/frontdesk/frontdesk/internal/db"
	"github.com/frontdesk/frontdesk/internal/db/dbtest"
)

// countingQuerier counts the statements a use case sends.
type countingQuerier struct {
	db.Querier
	n int
}

func (c *countingQuerier) Exec(ctx context.Context, q string, args ...any) (sql.Result, error) {
	c.n++
	return c.Querier.Exec(ctx, q, args...)
}

func (c *countingQuerier) Query(ctx context.Context, q string, args ...any) (*sql.Rows, error) {
	c.n++
	return c.Querier.Query(ctx, q, args...)
}

func (c *countingQuerier) QueryRow(ctx context.Context, q string, args ...any) *sql.Row {
	c.n++
	return c.Querier.QueryRow(ctx, q, args...)
}

// TestPageQueryCount pins the cost of a page: a constant number of queries
// whatever the page size or transcript length (issue item 6), and checks
// the page agrees with a per-conversation reading of the store.
func TestPageQueryCount(t *testing.T) {
	dbtest.Engines(t, func(t *testing.T, store *db.DB) {
		ctx := context.Background()
		h := loadHistory(t, store, 150, func(i int) int {
			if i%4 == 0 {
				return 0
			}
			return 3 + i%40
		})
		for _, tc := range []struct {
			name    string
			f       chat.Filter
			queries int
		}{
			{"page of 50 with transcripts", chat.Filter{SortBy: "created_at", Desc: true, Limit: 50, View: chat.View{IncludeMessages: true, MaxMessages: 20}}, 5},
			{"page of 10 with transcripts", chat.Filter{SortBy: "client_name", Limit: 10, View: chat.View{IncludeMessages: true, MaxMessages: 500}}, 5},
			{"metadata only", chat.Filter{SortBy: "updated_at", Limit: 50, Offset: 50}, 4},
			{"filtered and searched", chat.Filter{Search: "garc", Status: "resolved", Limit: 50, View: chat.DefaultView}, 5},
		} {
			t.Run(tc.name, func(t *testing.T) {
				cq := &countingQuerier{Querier: store}
				page, total, err := chat.List(ctx, cq, h.acct, tc.f)
				if err != nil {
					t.Fatal(err)
				}
				if len(page) == 0 || total < len(page) {
					t.Fatalf("page of %d, total %d", len(page), total)
				}
				if cq.n != tc.queries {
					t.Errorf("%d queries, want %d", cq.n, tc.queries)
				}
				for _, c := range page {
					want := c.MessageCount
					if tc.f.IncludeMessages {
						want = min(want, tc.f.MaxMessages)
						if len(c.Messages) != want || c.HasMoreMessages != (c.MessageCount > want) {
							t.Errorf("session %d: %d of %d messages embedded, has_more %v", c.SessionID, len(c.Messages), c.MessageCount, c.HasMoreMessages)
						}
					} else if c.Messages != nil || c.HasMoreMessages {
						t.Errorf("session %d has messages without include_messages", c.SessionID)
					}
					n := 0
					for _, p := range c.Participants.AIAgents {
						n += p.MessageCount
					}
					for _, p := range c.Participants.Users {
						n += p.MessageCount
					}
					var stored int
					store.QueryRow(ctx, `SELECT COUNT(*) FROM messages WHERE conversation_id = ? AND sender_kind IN ('ai_agent', 'user')`, c.SessionID).Scan(&stored)
					if n != stored {
						t.Errorf("session %d: participants count %d messages, store has %d", c.SessionID, n, stored)
					}
				}
			})
		}
		page, _, err := chat.List(ctx, store, h.acct, chat.Filter{SortBy: "created_at", Limit: 5, Offset: 1})
		if err != nil {
			t.Fatal(err)
		}
		cq := &countingQuerier{Querier: store}
		msgs, err := chat.ListMessages(ctx, cq, h.acct, page[0].SessionID, 10, 0, true)
		if err != nil {
			t.Fatal(err)
		}
		if cq.n != 3 || msgs.Count != page[0].MessageCount || len(msgs.Messages) != min(10, msgs.Count) {
			t.Errorf("messages: %d queries, count %d, %d returned", cq.n, msgs.Count, len(msgs.Messages))
		}
	})
}
