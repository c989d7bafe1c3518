package main

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"os"

	"github.com/frontdesk/frontdesk/internal/workspace"
)

// cmdChat runs `frontdesk chat import --account SLUG -f FILE.jsonl`: bulk
// chat history, one conversation per line in the workspace file's
// conversation shape, idempotent by key.
func cmdChat(ctx context.Context, args []string, env *Env) error {
	if _, err := subcommand(args, env, "usage: frontdesk chat import --account SLUG -f FILE.jsonl|-\n", "import"); err != nil {
		return err
	}
	f := newFlags("chat import", env)
	slug := f.String("account", "", "account slug")
	file := f.String("f", "", "JSONL file, one conversation per line; - reads stdin")
	if err := f.parse(args[1:]); err != nil {
		return err
	}
	if *slug == "" || *file == "" {
		fmt.Fprintln(env.Stderr, "chat import: --account SLUG and -f FILE are required")
		return errUsage
	}
	in, cleanup, err := openSeekable(*file, env.Stdin)
	if err != nil {
		return err
	}
	defer cleanup()

	store, acct, err := openAccount(ctx, *f.dsn, *slug)
	if err != nil {
		return err
	}
	defer store.Close()
	sum, err := workspace.ImportChat(ctx, store, acct, in, env.Clock.Now())
	if err != nil {
		return err
	}
	enc := json.NewEncoder(env.Stdout)
	enc.SetEscapeHTML(false)
	return enc.Encode(sum)
}

// openSeekable opens the import file. The import reads it twice (validate,
// then write), so stdin is first spooled to a temporary file: memory stays
// flat however large the history is.
func openSeekable(path string, stdin io.Reader) (io.ReadSeeker, func(), error) {
	if path != "-" {
		f, err := os.Open(path)
		if err != nil {
			return nil, nil, err
		}
		return f, func() { f.Close() }, nil
	}
	tmp, err := os.CreateTemp("", "frontdesk-chat-import-*.jsonl")
	if err != nil {
		return nil, nil, err
	}
	cleanup := func() { tmp.Close(); os.Remove(tmp.Name()) }
	if _, err := io.Copy(tmp, stdin); err != nil {
		cleanup()
		return nil, nil, fmt.Errorf("read stdin: %w", err)
	}
	if _, err := tmp.Seek(0, io.SeekStart); err != nil {
		cleanup()
		return nil, nil, err
	}
	return tmp, cleanup, nil
}
