package privacy_test

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/frontdesk/frontdesk/internal/db"
	"github.com/frontdesk/frontdesk/internal/db/dbtest"
	"github.com/frontdesk/frontdesk/internal/privacy"
	pt "github.com/frontdesk/frontdesk/internal/privacy/privacytest"
)

// countingWriter records how the document reaches the writer.
type countingWriter struct {
	writes, bytes int
	body          strings.Builder
}

func (w *countingWriter) Write(p []byte) (int, error) {
	w.writes++
	w.bytes += len(p)
	w.body.Write(p)
	return len(p), nil
}

// TestExportStreams: a conversation of many messages reaches the writer
// in many writes while it is read, not as one document built in memory,
// and the document is still one valid JSON object holding every message.
func TestExportStreams(t *testing.T) {
	const messages = 20000
	dbtest.Engines(t, func(t *testing.T, store *db.DB) {
		ctx := context.Background()
		f := newFixture(t, store)
		rows := make([][]any, messages)
		us := db.Micros(pt.Now)
		for i := range rows {
			rows[i] = []any{f.acme.ID, f.erasable.Conversation, "client", fmt.Sprintf("message %d of a long thread, %s", i, strings.Repeat("x", 100)), us + int64(i), us}
		}
		if err := store.Transact(ctx, func(tx *db.Tx) error {
			return db.InsertMany(ctx, tx, `INSERT INTO messages (account_id, conversation_id, sender_kind, content, sent_at, created_at)`, rows, "")
		}); err != nil {
			t.Fatal(err)
		}
		var w countingWriter
		start := time.Now()
		if err := privacy.Export(ctx, store, f.acme, f.erasable.ClientID, &w, pt.Now); err != nil {
			t.Fatal(err)
		}
		t.Logf("%d messages: %d bytes in %d writes, %v", messages, w.bytes, w.writes, time.Since(start))
		if w.writes < w.bytes/(128<<10) || w.writes < 10 {
			t.Fatalf("%d bytes arrived in %d writes: the export is not streamed", w.bytes, w.writes)
		}
		var doc struct {
			Conversations []struct {
				Messages []json.RawMessage `json:"messages"`
			} `json:"conversations"`
		}
		if err := json.Unmarshal([]byte(w.body.String()), &doc); err != nil || len(doc.Conversations) != 1 || len(doc.Conversations[0].Messages) != messages+3 {
			t.Fatalf("document: %v, %d conversations", err, len(doc.Conversations))
		}
	})
}
