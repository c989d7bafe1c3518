package main

import (
	"context"
	"io"
	"log/slog"
	"net/http/httptest"
	"os"
	"strings"
	"testing"
	"time"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/frontdesk/frontdesk/internal/clock"
	"github.com/frontdesk/frontdesk/internal/db"
	"github.com/frontdesk/frontdesk/internal/db/dbtest"
	"github.com/frontdesk/frontdesk/internal/httpapi"
	"github.com/frontdesk/frontdesk/internal/mcp/mcptest"
	"github.com/frontdesk/frontdesk/internal/workspace"
)

// TestMcpStdio runs "frontdesk mcp" in-process over a pipe pair with the
// SDK's client, against a running server: the same conversation as /mcp.
func TestMcpStdio(t *testing.T) {
	dbtest.Engines(t, func(t *testing.T, store *db.DB) {
		clk := clock.NewFake(time.Date(2026, 11, 23, 9, 0, 0, 0, time.UTC))
		data, err := os.ReadFile("../../internal/workspace/testdata/acme.yaml")
		if err != nil {
			t.Fatal(err)
		}
		if _, err := (&workspace.Applier{DB: store, Now: clk.Now}).Apply(context.Background(), data); err != nil {
			t.Fatal(err)
		}
		ts := httptest.NewServer(httpapi.NewServer(httpapi.Config{DB: store, Clock: clk, Log: slog.New(slog.NewTextHandler(io.Discard, nil))}))
		defer ts.Close()

		toServer, clientOut := io.Pipe()  // the client writes, the command reads (its stdin)
		clientIn, fromServer := io.Pipe() // the command writes (its stdout), the client reads
		ctx, cancel := context.WithCancel(context.Background())
		done := make(chan int, 1)
		env := &Env{Getenv: func(string) string { return "" }, Stdin: toServer, Stdout: fromServer, Stderr: io.Discard, Clock: clk}
		go func() {
			done <- run(ctx, []string{"mcp", "--base-url", ts.URL, "--key", "pk_test_acme_main"}, env)
			fromServer.Close()
		}()

		c := sdk.NewClient(&sdk.Implementation{Name: "desktop-agent", Version: "1"}, nil)
		cs, err := c.Connect(ctx, &sdk.IOTransport{Reader: clientIn, Writer: clientOut}, nil)
		if err != nil {
			t.Fatal(err)
		}
		mcptest.Conversation(t, cs)
		// A course through the client library: the same answer as /mcp's
		// (docs/series.md, Doors); a bad recurrence is the API's 422.
		mcptest.Series(t, cs, "+34600111399")
		bad := mcptest.Call(t, cs, "book_appointment", map[string]any{"client": map[string]any{"phone": "+34600111399"}, "service_id": 1,
			"start_at": "2026-12-01T10:00:00", "end_at": "2026-12-01T10:30:00", "timezone": "Europe/Madrid",
			"recurrence": map[string]any{"frequency": "weekly", "interval": 1, "count": 99}})
		if got := bad.Answer(); !bad.IsError || bad.Code() != "VALIDATION_ERROR" || !strings.Contains(got, `"recurrence","count"]`) ||
			!strings.Contains(got, "less_than_equal") {
			t.Errorf("count 99: %s", got)
		}

		// A refusal of the server reaches the agent with its code.
		r := mcptest.Call(t, cs, "get_conversation_messages", map[string]any{"session_id": 987654321})
		if !r.IsError || r.Code() != "NOT_FOUND" {
			t.Errorf("unknown conversation: %v", r)
		}

		cs.Close()
		clientOut.Close()
		cancel()
		select {
		case code := <-done:
			if code != 0 {
				t.Errorf("frontdesk mcp exited %d", code)
			}
		case <-time.After(5 * time.Second):
			t.Fatal("frontdesk mcp did not stop")
		}
	})
}
