package main

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/frontdesk/frontdesk/internal/account"
	"github.com/frontdesk/frontdesk/internal/chat"
	"github.com/frontdesk/frontdesk/internal/clock"
	"github.com/frontdesk/frontdesk/internal/db"
	"github.com/frontdesk/frontdesk/internal/db/dbtest"
	"github.com/frontdesk/frontdesk/internal/workspace"
)

// chatImport runs cmdChat in-process.
func chatImport(t *testing.T, dsn, stdin string, args ...string) (workspace.ChatImportSummary, string, error) {
	t.Helper()
	var out, errb bytes.Buffer
	env := &Env{
		Getenv: func(k string) string {
			if k == "FRONTDESK_DB" {
				return dsn
			}
			return ""
		},
		Stdin: strings.NewReader(stdin), Stdout: &out, Stderr: &errb,
		Clock: clock.NewFake(time.Date(2026, 11, 23, 9, 0, 0, 0, time.UTC)),
	}
	err := cmdChat(context.Background(), args, env)
	var sum workspace.ChatImportSummary
	if err == nil {
		dec := json.NewDecoder(&out)
		dec.DisallowUnknownFields()
		if derr := dec.Decode(&sum); derr != nil {
			t.Fatalf("summary is not JSON: %v (%q)", derr, out.String())
		}
	}
	return sum, errb.String(), err
}

func writeLines(t *testing.T, lines ...string) string {
	t.Helper()
	p := filepath.Join(t.TempDir(), "history.jsonl")
	if err := os.WriteFile(p, []byte(strings.Join(lines, "\n")+"\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	return p
}

func TestChatImportCommand(t *testing.T) {
	for _, e := range []db.Engine{db.SQLite, db.Postgres} {
		t.Run(string(e), func(t *testing.T) {
			dsn := dbtest.DSN(t, e)
			if code, _, stderr := runCmd(t, dsn, "", "workspace", "apply", "-f", "../../internal/workspace/testdata/acme.yaml"); code != 0 {
				t.Fatal(stderr)
			}
			ctx := context.Background()
			store, err := db.Open(ctx, dsn, db.Options{})
			if err != nil {
				t.Fatal(err)
			}
			defer store.Close()
			acct, err := account.BySlug(ctx, store, "acme")
			if err != nil {
				t.Fatal(err)
			}
			count := func(table string) int {
				t.Helper()
				var n int
				if err := store.QueryRow(ctx, `SELECT COUNT(*) FROM `+table+` WHERE account_id = ?`, acct.ID).Scan(&n); err != nil {
					t.Fatal(err)
				}
				return n
			}
			convs0, msgs0 := count("conversations"), count("messages")

			h1 := `{"key": "h1", "customer_phone_number": "+34600111222", "status": "resolved", "disposition": "won", "sentiment": "positive", "summary": "Imported", "created_at": "2025-01-01T10:00:00Z", "messages": [` +
				`{"from": "client", "content": "Hola", "timestamp": "2025-01-01T10:00:00Z"},` +
				`{"from": "ai_agent", "agent": "sofia", "content": "Hola, soy Sofia", "timestamp": "2025-01-01T10:00:10Z"},` +
				`{"from": "user", "user": "ana", "content": "Te llamo", "timestamp": "2025-01-01T10:05:00Z"}]}`
			h2 := `{"key": "h2", "customer_phone_number": "600999888", "direction": "outbound", "messages": [{"from": "business_app", "content": "Recordatorio", "timestamp": "2025-02-01T08:00:00Z", "message_type": "image", "media": {"kind": "image", "mime": "image/png", "filename": "r.png"}}]}`
			h3 := `{"key": "h3", "customer_phone_number": "+447700900123", "created_at": "2025-03-01T00:00:00Z"}`
			file := writeLines(t, h1, "", h2, "   ", h3)

			sum, _, err := chatImport(t, dsn, "", "import", "--account", "acme", "-f", file)
			if err != nil {
				t.Fatal(err)
			}
			if sum != (workspace.ChatImportSummary{Imported: 3, Conversations: 3, Messages: 4}) {
				t.Errorf("first import = %+v", sum)
			}
			if count("conversations") != convs0+3 || count("messages") != msgs0+4 {
				t.Errorf("stored %d conversations, %d messages", count("conversations"), count("messages"))
			}
			// The imported history reads like any other.
			var h1ID int64
			store.QueryRow(ctx, `SELECT id FROM conversations WHERE account_id = ? AND file_key = 'h1'`, acct.ID).Scan(&h1ID)
			c, err := chat.Get(ctx, store, acct, h1ID, chat.DefaultView)
			if err != nil {
				t.Fatal(err)
			}
			if c.MessageCount != 3 || c.Client == nil || c.Client.Name != "María García" || c.Disposition == nil || c.Disposition.Name != "Booked" ||
				!c.UpdatedAt.Equal(time.Date(2025, 1, 1, 10, 5, 0, 0, time.UTC)) || len(c.Participants.AIAgents) != 1 || len(c.Participants.Users) != 1 || c.Messages[1].SenderType != "ai" {
				t.Errorf("h1 = %+v", c)
			}

			// Again, from stdin: nothing new.
			data, _ := os.ReadFile(file)
			sum, _, err = chatImport(t, dsn, string(data), "import", "--account", "acme", "-f", "-")
			if err != nil {
				t.Fatal(err)
			}
			if sum != (workspace.ChatImportSummary{Imported: 3, Conversations: 0, Messages: 0}) {
				t.Errorf("re-import = %+v", sum)
			}
			if count("conversations") != convs0+3 || count("messages") != msgs0+4 {
				t.Errorf("re-import wrote: %d conversations, %d messages", count("conversations"), count("messages"))
			}

			// A grown file adds only what is new.
			h1b := strings.Replace(h1, `"timestamp": "2025-01-01T10:05:00Z"}]}`, `"timestamp": "2025-01-01T10:05:00Z"}, {"from": "client", "content": "Gracias", "timestamp": "2025-01-01T10:06:00Z"}]}`, 1)
			h4 := `{"key": "h4", "customer_phone_number": "+34600123123", "messages": [{"from": "client", "content": "?"}]}`
			sum, _, err = chatImport(t, dsn, "", "import", "--account", "acme", "-f", writeLines(t, h1b, h2, h3, h4))
			if err != nil {
				t.Fatal(err)
			}
			if sum != (workspace.ChatImportSummary{Imported: 4, Conversations: 1, Messages: 2}) {
				t.Errorf("grown import = %+v", sum)
			}
			c, _ = chat.Get(ctx, store, acct, h1ID, chat.DefaultView)
			if c.MessageCount != 4 || !c.UpdatedAt.Equal(time.Date(2025, 1, 1, 10, 6, 0, 0, time.UTC)) || !c.LastMessageAt.Equal(c.UpdatedAt) {
				t.Errorf("h1 after growth: count %d, updated %s", c.MessageCount, c.UpdatedAt)
			}

			// An invalid file: every problem with its line number, nothing written.
			convs1, msgs1 := count("conversations"), count("messages")
			bad := writeLines(t,
				`{"key": "ok1", "customer_phone_number": "+34600000001"}`,
				`{"key": "broken", `,
				`{"key": "b3", "customer_phone_number": "+34600000003", "messages": [{"from": "ai_agent", "agent": "nobody", "content": "x"}]}`,
				`{"key": "b4", "customer_phone_number": "+34600000004", "status": "open", "disposition": "nope"}`,
				`{"key": "ok1", "customer_phone_number": "+34600000005"}`,
				`{"customer_phone_number": "+34600000006", "messages": [{"from": "robot", "timestamp": "yesterday"}]}`,
				`{"key": "b7"}`,
				`{"key": "b8", "customer_phone_number": "+34600000008", "messages": {"from": "client"}}`,
				`{"key": "b9", "customer_phone_number": "+34 12"}`,
			)
			_, _, err = chatImport(t, dsn, "", "import", "--account", "acme", "-f", bad)
			if err == nil {
				t.Fatal("invalid file imported")
			}
			for _, want := range []string{
				"line 2: not a JSON conversation object",
				`line 3: messages[0].agent: unknown AI agent "nobody"`,
				`line 4: status: "open" is not one of`,
				`line 4: disposition: unknown disposition tag "nope"`,
				`line 5: key: duplicate key "ok1" (first on line 1)`,
				"line 6: key: is required",
				`line 6: messages[0].from: "robot" is not one of`,
				`line 6: messages[0].timestamp: "yesterday" is not an RFC 3339 timestamp`,
				"line 7: customer_phone_number: is required",
				"line 8: not a JSON conversation object",
				`line 9: customer_phone_number: "+34 12": phone number is too short`,
			} {
				if !strings.Contains(err.Error(), want) {
					t.Errorf("error lacks %q:\n%v", want, err)
				}
			}
			if strings.Contains(err.Error(), "line 1:") {
				t.Errorf("valid line reported: %v", err)
			}
			if count("conversations") != convs1 || count("messages") != msgs1 {
				t.Errorf("invalid file wrote something")
			}

			// Large files are written in batches.
			var many []string
			for i := 0; i < 2*workspace.ChatImportBatch+7; i++ {
				many = append(many, fmt.Sprintf(`{"key": "bulk-%d", "customer_phone_number": "+3461%07d", "created_at": "2025-04-01T00:00:00Z", "messages": [{"from": "client", "content": "m", "timestamp": "2025-04-01T00:00:00Z"}, {"from": "ai_agent", "agent": "sofia", "content": "r", "timestamp": "2025-04-01T00:00:01Z"}]}`, i, i))
			}
			sum, _, err = chatImport(t, dsn, "", "import", "--account", "acme", "-f", writeLines(t, many...))
			if err != nil {
				t.Fatal(err)
			}
			if n := 2*workspace.ChatImportBatch + 7; sum != (workspace.ChatImportSummary{Imported: n, Conversations: n, Messages: 2 * n}) {
				t.Errorf("bulk = %+v", sum)
			}

			// Command-line mistakes.
			if _, _, err := chatImport(t, dsn, "", "import", "--account", "nope", "-f", file); err == nil || !strings.Contains(err.Error(), "not found") {
				t.Errorf("unknown account: %v", err)
			}
			if _, _, err := chatImport(t, dsn, "", "import", "-f", file); !errors.Is(err, errUsage) {
				t.Errorf("no account: %v", err)
			}
			if _, _, err := chatImport(t, dsn, "", "import", "--account", "acme"); !errors.Is(err, errUsage) {
				t.Errorf("no file: %v", err)
			}
			if _, _, err := chatImport(t, dsn, "", "export"); !errors.Is(err, errUsage) {
				t.Errorf("unknown subcommand: %v", err)
			}
			if _, _, err := chatImport(t, dsn, "", "import", "--account", "acme", "-f", filepath.Join(t.TempDir(), "missing.jsonl")); err == nil {
				t.Errorf("missing file imported")
			}
			if _, _, err := chatImport(t, dsn, "\n\n", "import", "--account", "acme", "-f", "-"); err == nil || !strings.Contains(err.Error(), "no conversations") {
				t.Errorf("empty file: %v", err)
			}
		})
	}
}
