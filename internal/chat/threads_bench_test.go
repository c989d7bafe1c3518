package chat_test

import (
	"context"
	"testing"
	"time"

	"github.com/frontdesk/frontdesk/internal/chat"
	"github.com/frontdesk/frontdesk/internal/db"
	"github.com/frontdesk/frontdesk/internal/db/dbtest"
)

// BenchmarkThreads measures the inbox's first page of threads (all, and
// the New view, which must look at every thread) on an account with 2,000
// conversations of 100 messages. Run it with
//
//	FRONTDESK_TEST_POSTGRES=postgres://... go test ./internal/chat -run '^$' -bench Threads -benchtime 20x
func BenchmarkThreads(b *testing.B) {
	for _, e := range []db.Engine{db.SQLite, db.Postgres} {
		b.Run(string(e), func(b *testing.B) {
			store := dbtest.Open(b, e)
			h := loadHistory(b, store, 2_000, func(int) int { return 100 })
			for _, show := range []string{chat.ThreadsAll, chat.ThreadsNew} {
				b.Run("show_"+show, func(b *testing.B) {
					var took time.Duration
					for b.Loop() {
						start := time.Now()
						if _, _, err := chat.Threads(context.Background(), store, h.acct, chat.ThreadFilter{Show: show, Limit: 50}); err != nil {
							b.Fatal(err)
						}
						took += time.Since(start)
					}
					b.ReportMetric(float64(took.Milliseconds())/float64(b.N), "ms/page")
				})
			}
		})
	}
}
