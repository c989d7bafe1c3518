package main

import (
	"context"
	"fmt"
	"io"
	"log/slog"
	"net/url"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/frontdesk/frontdesk/client"
	"github.com/frontdesk/frontdesk/internal/mcp"
)

// cmdMcp runs "frontdesk mcp": the MCP tools (docs/contract.md, MCP) over stdio
// (newline-delimited JSON-RPC on stdin/stdout) for a desktop agent, each
// tool a call of the public API through the Go client. Diagnostics go to
// stderr: stdout belongs to the protocol.
func cmdMcp(ctx context.Context, args []string, env *Env) error {
	f := newFlags("mcp", env)
	f.Usage = func() {
		fmt.Fprint(f.Output(), `Usage: frontdesk mcp --base-url URL --key KEY

Serves the MCP tools (list_services, find_slots, book_appointment,
add_to_waitlist, waitlist_summary, list_pipelines, ingest_leads, move_client,
search_conversations, get_conversation_messages) over stdio, calling a
running Frontdesk server's public API with the key. Configure it as the
command of an MCP host (see README, "AI agents (MCP)").

Flags:
`)
		f.PrintDefaults()
	}
	baseURL := f.String("base-url", envOr(env, "FRONTDESK_BASE_URL", "http://127.0.0.1:8080"), "server address (env FRONTDESK_BASE_URL)")
	key := f.String("key", env.Getenv("FRONTDESK_API_KEY"), "API key (env FRONTDESK_API_KEY)")
	if err := f.parse(args); err != nil {
		return err
	}
	if *key == "" {
		fmt.Fprintln(env.Stderr, "mcp: an API key is required: --key or FRONTDESK_API_KEY")
		return errUsage
	}
	if u, err := url.Parse(*baseURL); err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
		fmt.Fprintf(env.Stderr, "mcp: --base-url %q is not an http(s) URL\n", *baseURL)
		return errUsage
	}
	c := client.New(*baseURL, *key, client.WithUserAgent("frontdesk-mcp/"+buildVersion()))
	log := slog.New(slog.NewTextHandler(env.Stderr, nil))
	srv := mcp.NewServer(mcp.NewRemote(c), mcp.Options{Version: buildVersion(), Log: log})
	t := &sdk.IOTransport{Reader: io.NopCloser(env.Stdin), Writer: nopWriteCloser{env.Stdout}}
	if err := srv.Run(ctx, t); err != nil && ctx.Err() == nil && err != io.EOF {
		return fmt.Errorf("mcp: %w", err)
	}
	return nil
}

type nopWriteCloser struct{ io.Writer }

func (nopWriteCloser) Close() error { return nil }
