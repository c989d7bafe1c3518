package chat_test

import (
	"fmt"
	"io"
	"log/slog"
	"net/http/httptest"
	"net/url"
	"slices"
	"testing"
	"time"

	"github.com/frontdesk/frontdesk/internal/chat"
	"github.com/frontdesk/frontdesk/internal/clock"
	"github.com/frontdesk/frontdesk/internal/db"
	"github.com/frontdesk/frontdesk/internal/db/dbtest"
	"github.com/frontdesk/frontdesk/internal/httpapi"
)

// BenchmarkChatHistory measures the conversation list through the whole HTTP
// stack (auth, validation, queries, JSON) on an account with 10,000
// conversations and 1,000,000 messages: 9,900 conversations of 80 messages
// and 100 of 2,080, so a page of 50 meets some transcripts that must be cut
// at 500. Loading takes a few minutes per engine; run it with
//
//	FRONTDESK_TEST_POSTGRES=postgres://... go test ./internal/chat -run '^$' -bench ChatHistory -benchtime 50x
//
// Besides Go's mean ns/op, each case reports the median latency (median-ms)
// and the messages it returned per page.
func BenchmarkChatHistory(b *testing.B) {
	for _, e := range []db.Engine{db.SQLite, db.Postgres} {
		b.Run(string(e), func(b *testing.B) {
			store := dbtest.Open(b, e)
			start := time.Now()
			h := loadHistory(b, store, 10_000, func(i int) int {
				if i%100 == 0 {
					return 2080
				}
				return 80
			})
			b.Logf("%s: loaded %d conversations and %d messages in %s", e, h.conversations, h.messages, time.Since(start).Round(time.Second))
			srv := httpapi.NewServer(httpapi.Config{DB: store, Clock: clock.System{}, Log: slog.New(slog.NewTextHandler(io.Discard, nil))})
			watermark := h.updatedAt(9_000).Format(time.RFC3339Nano)
			// A cursor 9,000 sessions deep (just before session 9,000's
			// updated_at): the same page as offset=9000, without the scan.
			deep := chat.Cursor{UpdatedAt: db.Micros(h.updatedAt(9_000)) - 1, SessionID: 1}.String()
			for _, c := range []struct{ name, query string }{
				// status=new and inbound: every tenth conversation, one in ten
				// of them with 2,080 messages (cut at 500).
				{"filtered_page_50_with_transcripts", "status=new&direction=inbound&created_after=2025-03-01T00:00:00Z&limit=50"},
				{"incremental_sync_page_50", "updated_after=" + url.QueryEscape(watermark) + "&sort_by=updated_at&limit=50&offset=100"},
				{"search_by_name_page_50", "search=" + url.QueryEscape("garcía") + "&sort_by=client_name&limit=50"},
				{"deep_offset_9000_without_messages_50", "sort_by=updated_at&include_messages=false&limit=50&offset=9000"},
				{"deep_cursor_9000_without_messages_50", "sort_by=updated_at&include_messages=false&limit=50&cursor=" + deep},
				{"browse_without_messages_50", fmt.Sprintf("disposition_tag_ids=%d&include_uncategorized=true&include_messages=false&limit=50&offset=2000", h.ids.DispositionTags["won"])},
			} {
				b.Run(c.name, func(b *testing.B) {
					path := "/api/v2/public/chat/conversations?" + c.query
					var times []time.Duration
					var size int
					b.ResetTimer()
					for b.Loop() {
						t0 := time.Now()
						req := httptest.NewRequest("GET", path, nil)
						req.Header.Set("Authorization", "Bearer "+historyKey)
						rec := httptest.NewRecorder()
						srv.ServeHTTP(rec, req)
						times = append(times, time.Since(t0))
						if rec.Code != 200 {
							b.Fatalf("status %d: %s", rec.Code, rec.Body.String())
						}
						size = rec.Body.Len()
					}
					slices.Sort(times)
					b.ReportMetric(float64(times[len(times)/2].Microseconds())/1000, "median-ms")
					b.ReportMetric(float64(size)/1e6, "MB/page")
				})
			}
		})
	}
}

// BenchmarkUnreadCount measures the inbox's unread count, which every
// dashboard page shows in its navigation, on an account with 10,000
// conversations of 20 messages (none read yet, then all read):
//
//	FRONTDESK_TEST_POSTGRES=postgres://... go test ./internal/chat -run '^$' -bench UnreadCount
func BenchmarkUnreadCount(b *testing.B) {
	for _, e := range []db.Engine{db.SQLite, db.Postgres} {
		b.Run(string(e), func(b *testing.B) {
			store := dbtest.Open(b, e)
			h := loadHistory(b, store, 10_000, func(int) int { return 20 })
			for _, state := range []string{"unread", "read"} {
				if state == "read" {
					if _, err := store.Exec(b.Context(), `UPDATE conversations SET read_at = ? WHERE account_id = ?`,
						db.Micros(time.Now().Add(time.Hour)), h.acct.ID); err != nil {
						b.Fatal(err)
					}
				}
				b.Run(state, func(b *testing.B) {
					for b.Loop() {
						if _, err := chat.UnreadCount(b.Context(), store, h.acct); err != nil {
							b.Fatal(err)
						}
					}
				})
			}
		})
	}
}
