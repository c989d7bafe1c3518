package main

import (
	"context"
	"encoding/json"
	"fmt"
	"log/slog"
	"text/tabwriter"
	"time"

	"github.com/frontdesk/frontdesk/internal/clock"
	"github.com/frontdesk/frontdesk/internal/db"
	"github.com/frontdesk/frontdesk/internal/jobs"
	"github.com/frontdesk/frontdesk/internal/managelink"
	"github.com/frontdesk/frontdesk/internal/offers"
	"github.com/frontdesk/frontdesk/internal/outbound"
	"github.com/frontdesk/frontdesk/internal/retention"
	"github.com/frontdesk/frontdesk/internal/secrets"
)

// workerFlags are the job worker's settings, the same for serve and worker.
type workerFlags struct {
	poll        *time.Duration
	concurrency *int
	perReceiver *int
	batch       *int
	heartbeat   *time.Duration
	stale       *time.Duration
	sendTimeout *time.Duration
}

func addWorkerFlags(f *flags) workerFlags {
	return workerFlags{
		poll:        f.DurationIn("poll", time.Second, jobs.PollEvery, "job worker: pause between polls when no job is due"),
		concurrency: f.Int("worker-concurrency", jobs.DefaultConcurrency, "job worker: external calls (message sends, webhooks) run at once by this process, over all receivers"),
		perReceiver: f.Int("worker-per-receiver", jobs.DefaultPerReceiver,
			"job worker: of those, the most run at once to one receiver (a channel's provider, a webhook's host)"),
		batch:     f.Int("worker-batch", 1000, "job worker: jobs claimed per poll"),
		heartbeat: f.DurationIn("worker-heartbeat", jobs.DefaultHeartbeat, jobs.HeartbeatEvery, "job worker: how often this process says it is alive (worker_instances)"),
		stale: f.DurationIn("worker-stale", jobs.DefaultStale, jobs.StaleAfter,
			"job worker: a worker silent this long is dead, and other workers take over the jobs it claimed (at least twice --worker-heartbeat)"),
		sendTimeout: f.DurationIn("send-timeout", jobs.DefaultSendTimeout, jobs.SendTimeouts,
			"job worker: the longest one provider call may take; a message whose call a crash cut off is checked or resent only after this"),
	}
}

// slots bounds the calls to one receiver (--worker-per-receiver).
func (wf workerFlags) slots() *jobs.Slots { return &jobs.Slots{Per: *wf.perReceiver} }

// check refuses settings under which live workers could look dead.
func (wf workerFlags) check(env *Env) error {
	switch {
	case *wf.heartbeat <= 0 || *wf.stale <= 0 || *wf.sendTimeout <= 0:
		fmt.Fprintln(env.Stderr, "--worker-heartbeat, --worker-stale and --send-timeout must be positive")
	case *wf.concurrency < 1 || *wf.perReceiver < 1:
		fmt.Fprintln(env.Stderr, "--worker-concurrency and --worker-per-receiver must be at least 1")
	case *wf.stale < 2**wf.heartbeat:
		fmt.Fprintf(env.Stderr, "--worker-stale (%s) must be at least twice --worker-heartbeat (%s): a worker whose beat is a little late would look dead\n",
			*wf.stale, *wf.heartbeat)
	default:
		return nil
	}
	return errUsage
}

// jobWorker is the job worker with the retention rounds it starts beside
// its polls; Run ends them before it returns, so none outlives the store.
type jobWorker struct {
	*jobs.Worker
	retention *retention.Scheduler
}

// Run runs the worker until ctx ends, then stops a retention round under way.
func (w jobWorker) Run(ctx context.Context) error {
	err := w.Worker.Run(ctx)
	w.retention.Stop()
	return err
}

// newWorker builds the job worker every process runs the same way.
func newWorker(store *db.DB, clk clock.Clock, log *slog.Logger, wf workerFlags, box *secrets.Box, sender jobs.Sender, targets outbound.Policy) jobWorker {
	fx := &jobs.Effects{Clock: clk, Secrets: box, Sender: sender, SendTimeout: *wf.sendTimeout, Targets: targets,
		WebhookSlots: wf.slots()}
	seatOffers := func(ctx context.Context, now time.Time) error {
		_, err := offers.RunDue(ctx, store, now)
		return err
	}
	// Retention runs once a day per account (docs/retention.md).
	cleanup := &retention.Scheduler{DB: store, Log: log}
	return jobWorker{Worker: &jobs.Worker{DB: store, Clock: clk, Log: log, Handlers: fx.Handlers(), BatchHandlers: fx.BatchHandlers(), Calls: fx.Calls(),
		Poll: *wf.poll, Concurrency: *wf.concurrency, Batch: *wf.batch, Heartbeat: *wf.heartbeat, Stale: *wf.stale,
		Periodic: []func(context.Context, time.Time) error{seatOffers, cleanup.Tick}}, retention: cleanup}
}

// cmdWorker runs only the job worker, for deployments that separate it from
// the HTTP servers.
func cmdWorker(ctx context.Context, args []string, env *Env) error {
	f := newFlags("worker", env)
	wf := addWorkerFlags(f)
	slowQuery := f.DurationIn("slow-query", 500*time.Millisecond, db.SlowQuery, "log statements slower than this (0: never; env FRONTDESK_SLOW_QUERY)")
	publicURL := f.String("public-url", "", "the base URL message providers call back (env FRONTDESK_PUBLIC_URL)")
	if err := f.parse(args); err != nil {
		return err
	}
	if err := envDuration(f, env, "slow-query", "FRONTDESK_SLOW_QUERY", slowQuery, db.SlowQuery); err != nil {
		return err
	}
	if err := wf.check(env); err != nil {
		return err
	}
	box, err := secretBox(env)
	if err != nil {
		return err
	}
	log := logger(env)
	store, err := openStoreWith(ctx, *f.dsn, log, db.Options{Log: log, SlowQuery: *slowQuery})
	if err != nil {
		return err
	}
	defer store.Close()
	log.Info("worker started", "database", store.Engine())
	msg, err := newMessaging(env, store, log, box, publicURLFrom(*publicURL, env), nil, wf)
	if err != nil {
		return err
	}
	links := managelink.Config{PublicURL: publicURLFrom(*publicURL, env), Secrets: box}
	return newWorker(store, env.Clock, log, wf, box, msg.sender, targets(env)).Run(managelink.WithConfig(ctx, links))
}

// cmdOutbox lists what an account's automations and notifications produced.
func cmdOutbox(ctx context.Context, args []string, env *Env) error {
	if _, err := subcommand(args, env, "usage: frontdesk outbox list --account SLUG [--json] [--limit N]\n", "list"); err != nil {
		return err
	}
	f := newFlags("outbox list", env)
	slug := f.String("account", "", "account slug")
	asJSON := f.Bool("json", false, "print a JSON array")
	limit := f.Int("limit", 200, "most recent messages to show")
	if err := f.parse(args[1:]); err != nil {
		return err
	}
	if *slug == "" {
		fmt.Fprintln(env.Stderr, "outbox list: --account SLUG is required")
		return errUsage
	}
	store, acct, err := openAccount(ctx, *f.dsn, *slug)
	if err != nil {
		return err
	}
	defer store.Close()
	msgs, err := jobs.ListOutbox(ctx, store, acct, *limit)
	if err != nil {
		return err
	}
	if *asJSON {
		enc := json.NewEncoder(env.Stdout)
		enc.SetEscapeHTML(false)
		return enc.Encode(msgs)
	}
	tw := tabwriter.NewWriter(env.Stdout, 2, 4, 2, ' ', 0)
	fmt.Fprintln(tw, "ID\tKIND\tTO\tSTATUS\tSCHEDULED\tBODY")
	for _, m := range msgs {
		body := []rune(m.Body)
		if len(body) > 60 {
			body = append(body[:57], []rune("...")...)
		}
		status := m.Status
		if m.PossibleDuplicate {
			status += " (possible duplicate)"
		}
		fmt.Fprintf(tw, "%d\t%s\t%s\t%s\t%s\t%s\n", m.ID, m.Kind, m.Recipient, status, clock.Format(m.ScheduledAt), string(body))
	}
	return tw.Flush()
}

// cmdWebhooks lists an account's outbound webhook deliveries and attempts.
func cmdWebhooks(ctx context.Context, args []string, env *Env) error {
	if _, err := subcommand(args, env, "usage: frontdesk webhooks deliveries --account SLUG [--json] [--limit N]\n", "deliveries"); err != nil {
		return err
	}
	f := newFlags("webhooks deliveries", env)
	slug := f.String("account", "", "account slug")
	asJSON := f.Bool("json", false, "print a JSON array")
	limit := f.Int("limit", 100, "most recent deliveries to show")
	if err := f.parse(args[1:]); err != nil {
		return err
	}
	if *slug == "" {
		fmt.Fprintln(env.Stderr, "webhooks deliveries: --account SLUG is required")
		return errUsage
	}
	store, acct, err := openAccount(ctx, *f.dsn, *slug)
	if err != nil {
		return err
	}
	defer store.Close()
	list, err := jobs.ListDeliveries(ctx, store, acct, *limit)
	if err != nil {
		return err
	}
	if *asJSON {
		return json.NewEncoder(env.Stdout).Encode(list)
	}
	tw := tabwriter.NewWriter(env.Stdout, 2, 4, 2, ' ', 0)
	fmt.Fprintln(tw, "ID\tEVENT\tURL\tSTATUS\tATTEMPTS\tLAST ERROR")
	for _, d := range list {
		last := ""
		if n := len(d.Attempts); n > 0 && d.Attempts[n-1].Error != nil {
			last = *d.Attempts[n-1].Error
		}
		fmt.Fprintf(tw, "%d\t%s\t%s\t%s\t%d\t%s\n", d.ID, d.Event, d.URL, d.Status, len(d.Attempts), last)
	}
	return tw.Flush()
}
