// Command frontdesk is the Frontdesk server and its command line: serve the
// Public Integration API, provision workspaces, manage API keys and run
// migrations (README, "Commands").
package main

import (
	"bytes"
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"log/slog"
	"os"
	"os/signal"
	"runtime/debug"
	"syscall"
	"time"
	_ "time/tzdata" // IANA zones work on machines without /usr/share/zoneinfo

	"github.com/frontdesk/frontdesk/internal/account"
	"github.com/frontdesk/frontdesk/internal/clock"
	"github.com/frontdesk/frontdesk/internal/db"
)

// version is set at build time with -ldflags "-X main.version=…".
var version = "dev"

func main() {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	env := &Env{Getenv: os.Getenv, Stdin: os.Stdin, Stdout: os.Stdout, Stderr: os.Stderr, Clock: clock.System{}}
	os.Exit(run(ctx, os.Args[1:], env))
}

// Env is everything a command touches outside itself, so tests can run
// commands in-process.
type Env struct {
	Getenv func(string) string
	Stdin  io.Reader
	Stdout io.Writer
	Stderr io.Writer
	Clock  clock.Clock
	// Ready, when set, receives the listening address once serve accepts
	// connections (tests use it with --addr 127.0.0.1:0).
	Ready chan<- string
}

// errUsage is a command-line mistake: exit status 2.
var errUsage = errors.New("usage")

const usage = `frontdesk — the Frontdesk integration backend

Usage:
  frontdesk serve [--addr 127.0.0.1:8080] [--demo]   run the HTTP server
  frontdesk workspace apply -f FILE|-                create or update a workspace from a file
  frontdesk keys create --account SLUG [--name N] [--expires-at RFC3339]
  frontdesk keys list --account SLUG [--json]
  frontdesk keys revoke --account SLUG --name N
  frontdesk users set-password --account SLUG --email E   dashboard password (read from stdin)
  frontdesk worker [--poll 1s]                       run only the job worker
  frontdesk outbox list --account SLUG [--json]      messages and calls the automations produced
  frontdesk webhooks deliveries --account SLUG [--json]  outbound webhook deliveries and their attempts
  frontdesk retention run --account SLUG [--dry-run]  remove what is older than the account's retention now
  frontdesk chat import --account SLUG -f FILE.jsonl  load conversations (one per line, idempotent by key)
  frontdesk clients export --account SLUG --client ID  everything held about a client, as JSON (docs/data-rights.md)
  frontdesk clients erase --account SLUG --client ID [--yes]  erase a client's personal data for good
  frontdesk import pipeline|waitlist -f FILE.csv ...  CSV import through the public API (--node UUID | --waitlist ID)
  frontdesk bench [--db DSN] [--sizes 0,100k,1M] [--messages 10k,1M] [--out FILE]  measure against the raw floor
  frontdesk bench load --addr HOST:PORT [--duration 60s] [--pid PID]  load run against a running server
  frontdesk channels test --account SLUG --channel KEY --to NUMBER   send one real test message
  frontdesk mcp --base-url URL --key KEY             the MCP tools over stdio, for AI agents (through the public API)
  frontdesk migrate                                  bring the schema up to date
  frontdesk backup --out FILE [--force]              consistent copy of a running SQLite database (PostgreSQL: prints the pg_dump command)
  frontdesk restore --from FILE                      replace a stopped server's SQLite database with a backup
  frontdesk version

Every command takes --db (env FRONTDESK_DB): a postgres:// URL or a SQLite
file path (default ./frontdesk.db). "frontdesk COMMAND --help" (or
"frontdesk help COMMAND") shows a command's flags.
`

func run(ctx context.Context, args []string, env *Env) int {
	if len(args) == 0 {
		fmt.Fprint(env.Stderr, usage)
		return 2
	}
	if isHelp(args[0]) {
		if args[0] == "help" && len(args) > 1 {
			// "frontdesk help keys create" is "frontdesk keys create --help".
			return run(ctx, append(append([]string{}, args[1:]...), "--help"), env)
		}
		fmt.Fprint(env.Stdout, usage)
		return 0
	}
	var err error
	switch args[0] {
	case "serve":
		err = cmdServe(ctx, args[1:], env)
	case "workspace":
		err = cmdWorkspace(ctx, args[1:], env)
	case "keys":
		err = cmdKeys(ctx, args[1:], env)
	case "users":
		err = cmdUsers(ctx, args[1:], env)
	case "migrate":
		err = cmdMigrate(ctx, args[1:], env)
	case "worker":
		err = cmdWorker(ctx, args[1:], env)
	case "outbox":
		err = cmdOutbox(ctx, args[1:], env)
	case "chat":
		err = cmdChat(ctx, args[1:], env)
	case "clients":
		err = cmdClients(ctx, args[1:], env)
	case "import":
		err = cmdImport(ctx, args[1:], env)
	case "webhooks":
		err = cmdWebhooks(ctx, args[1:], env)
	case "retention":
		err = cmdRetention(ctx, args[1:], env)
	case "bench":
		err = cmdBench(ctx, args[1:], env)
	case "channels":
		err = cmdChannels(ctx, args[1:], env)
	case "backup":
		err = cmdBackup(ctx, args[1:], env)
	case "restore":
		err = cmdRestore(ctx, args[1:], env)
	case "mcp":
		err = cmdMcp(ctx, args[1:], env)
	case "version":
		fmt.Fprintln(env.Stdout, "frontdesk", buildVersion())
	default:
		fmt.Fprintf(env.Stderr, "frontdesk: unknown command %q\n\n%s", args[0], usage)
		return 2
	}
	switch {
	case err == nil, errors.Is(err, flag.ErrHelp):
		// Asking for help succeeds, as with flag.ExitOnError.
		return 0
	case errors.Is(err, errUsage):
		return 2
	default:
		fmt.Fprintln(env.Stderr, "frontdesk:", err)
		return 1
	}
}

func buildVersion() string {
	if version != "dev" {
		return version
	}
	if info, ok := debug.ReadBuildInfo(); ok && info.Main.Version != "" && info.Main.Version != "(devel)" {
		return info.Main.Version
	}
	return version
}

// isHelp reports whether arg asks for help rather than naming a command.
func isHelp(arg string) bool {
	return arg == "-h" || arg == "-help" || arg == "--help" || arg == "help"
}

// subcommand returns the subcommand args[0] names when it is one of names.
// "--help" (or -h, help) prints the group's usage to stdout and returns
// flag.ErrHelp (exit 0); anything else prints it to stderr (exit 2).
func subcommand(args []string, env *Env, usage string, names ...string) (string, error) {
	if len(args) > 0 {
		if isHelp(args[0]) {
			fmt.Fprint(env.Stdout, usage)
			return "", flag.ErrHelp
		}
		for _, n := range names {
			if args[0] == n {
				return n, nil
			}
		}
	}
	fmt.Fprint(env.Stderr, usage)
	return "", errUsage
}

// flags is a command's flag set with the options every command shares.
type flags struct {
	*flag.FlagSet
	dsn    *string
	stdout io.Writer // where --help prints the usage
}

func newFlags(name string, env *Env) *flags {
	fs := flag.NewFlagSet(name, flag.ContinueOnError)
	fs.SetOutput(env.Stderr)
	fs.Usage = func() {
		fmt.Fprintf(fs.Output(), "Usage: frontdesk %s [flags]\n\nFlags:\n", name)
		fs.PrintDefaults()
	}
	return &flags{FlagSet: fs, stdout: env.Stdout,
		dsn: fs.String("db", envOr(env, "FRONTDESK_DB", "./frontdesk.db"), "database: postgres:// URL or SQLite file path (env FRONTDESK_DB)")}
}

// parse parses args. The flag package writes the usage to the flag set's
// output (stderr) whatever the reason; parse holds it back and sends it to
// stdout when it was asked for with -h or --help (flag.ErrHelp: exit 0, as
// flag.ExitOnError does) and to stderr after a mistake (errUsage: exit 2).
func (f *flags) parse(args []string) error {
	var held bytes.Buffer
	out := f.Output()
	f.SetOutput(&held)
	err := f.Parse(args)
	f.SetOutput(out)
	if errors.Is(err, flag.ErrHelp) && f.stdout != nil {
		held.WriteTo(f.stdout)
		return flag.ErrHelp
	}
	held.WriteTo(out)
	if err != nil {
		return errUsage
	}
	if f.NArg() > 0 {
		fmt.Fprintf(f.Output(), "unexpected arguments: %v\n", f.Args())
		return errUsage
	}
	return nil
}

func envOr(env *Env, key, def string) string {
	if v := env.Getenv(key); v != "" {
		return v
	}
	return def
}

// envDuration fills *d from the environment variable key unless the flag
// was given on the command line; a value that is not a duration within r
// is a usage error rather than a silent fallback to the default.
func envDuration(f *flags, env *Env, flagName, key string, d *time.Duration, r clock.Range) error {
	v := env.Getenv(key)
	if v == "" {
		return nil
	}
	set := false
	f.Visit(func(fl *flag.Flag) { set = set || fl.Name == flagName })
	if set {
		return nil
	}
	parsed, err := time.ParseDuration(v)
	if err != nil || !r.Contains(parsed) {
		fmt.Fprintf(env.Stderr, "%s=%q is not a duration within %s, such as 500ms or 2s\n", key, v, r)
		return errUsage
	}
	*d = parsed
	return nil
}

func logger(env *Env) *slog.Logger {
	return slog.New(slog.NewJSONHandler(env.Stderr, &slog.HandlerOptions{Level: slog.LevelInfo}))
}

// openAccount opens the store and finds the account a command is about;
// the caller closes the store.
func openAccount(ctx context.Context, dsn, slug string) (*db.DB, account.Account, error) {
	store, err := openStore(ctx, dsn, nil)
	if err != nil {
		return nil, account.Account{}, err
	}
	acct, err := account.BySlug(ctx, store, slug)
	if err != nil {
		store.Close()
		return nil, account.Account{}, err
	}
	return store, acct, nil
}

// openStore opens and migrates the database named by the --db flag.
func openStore(ctx context.Context, dsn string, log *slog.Logger) (*db.DB, error) {
	return openStoreWith(ctx, dsn, log, db.Options{})
}

// openStoreWith is openStore with pool and logging options (serve, worker).
func openStoreWith(ctx context.Context, dsn string, log *slog.Logger, opt db.Options) (*db.DB, error) {
	store, err := db.Open(ctx, dsn, opt)
	if err != nil {
		return nil, err
	}
	if err := store.Migrate(ctx, log); err != nil {
		store.Close()
		return nil, err
	}
	return store, nil
}

func cmdMigrate(ctx context.Context, args []string, env *Env) error {
	f := newFlags("migrate", env)
	if err := f.parse(args); err != nil {
		return err
	}
	store, err := openStore(ctx, *f.dsn, logger(env))
	if err != nil {
		return err
	}
	defer store.Close()
	v, err := store.SchemaVersion(ctx)
	if err != nil {
		return err
	}
	fmt.Fprintf(env.Stdout, "schema at version %d (%s)\n", v, store.Engine())
	return nil
}
