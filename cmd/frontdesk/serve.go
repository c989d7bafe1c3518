package main

import (
	"context"
	"errors"
	"fmt"
	"net"
	"net/http"
	"time"
	"unicode/utf8"

	"github.com/frontdesk/frontdesk/internal/account"
	"github.com/frontdesk/frontdesk/internal/bookingpage"
	"github.com/frontdesk/frontdesk/internal/dashboard"
	"github.com/frontdesk/frontdesk/internal/db"
	"github.com/frontdesk/frontdesk/internal/errs"
	"github.com/frontdesk/frontdesk/internal/locale"
	"github.com/prometheus/client_golang/prometheus"

	"github.com/frontdesk/frontdesk/internal/httpapi"
	"github.com/frontdesk/frontdesk/internal/managelink"
	"github.com/frontdesk/frontdesk/internal/password"
	"github.com/frontdesk/frontdesk/internal/pipeline"
	"github.com/frontdesk/frontdesk/internal/ratelimit"
	"github.com/frontdesk/frontdesk/internal/secrets"
	"github.com/frontdesk/frontdesk/internal/workspace"
)

func cmdServe(ctx context.Context, args []string, env *Env) error {
	f := newFlags("serve", env)
	addr := f.String("addr", envOr(env, "FRONTDESK_ADDR", "127.0.0.1:8080"), "listen address (env FRONTDESK_ADDR)")
	demo := f.Bool("demo", false, "apply the built-in demo workspace if absent and print its key")
	shutdownWait := f.DurationIn("shutdown-timeout", 30*time.Second, shutdownRange, "how long in-flight requests may finish on shutdown")
	runWorker := f.Bool("worker", true, "run the job worker in this process (automations, notifications, webhooks)")
	wf := addWorkerFlags(f)
	batchWait := f.DurationIn("batch-wait", 30*time.Second, pipeline.BatchWait, "how long an ingest batch waits for another batch of the same input node")
	sessionIdle := f.DurationIn("session-idle", 12*time.Hour, account.SessionIdle, "dashboard: sign out after this long without activity")
	sessionMax := f.DurationIn("session-max", 7*24*time.Hour, account.SessionMax, "dashboard: sign out this long after signing in")
	publicURL := f.String("public-url", "", "the base URL message providers call back (env FRONTDESK_PUBLIC_URL); their signatures cover it")
	rateSync := f.DurationIn("rate-sync", 200*time.Millisecond, ratelimit.SyncEvery, "PostgreSQL: how often instances share their API rate-limit usage")
	slowQuery := f.DurationIn("slow-query", 500*time.Millisecond, db.SlowQuery, "log statements slower than this (0: never; env FRONTDESK_SLOW_QUERY)")
	statsEvery := f.DurationIn("analyze-every", 5*time.Second, db.AnalyzeEvery, "PostgreSQL: how often to look for tables that grew by half since their last ANALYZE")
	cpuProfile := f.String("cpuprofile", "", "write a CPU profile of the process until it stops to this file (go tool pprof)")
	if err := f.parse(args); err != nil {
		return err
	}
	if err := envDuration(f, env, "slow-query", "FRONTDESK_SLOW_QUERY", slowQuery, db.SlowQuery); err != nil {
		return err
	}
	if err := wf.check(env); err != nil {
		return err
	}
	tuneGC(env)
	stopProfile, err := startCPUProfile(*cpuProfile)
	if err != nil {
		return err
	}
	defer stopProfile()
	box, err := secretBox(env)
	if err != nil {
		return err
	}
	log := logger(env)
	if *demo && !box.HasKey() {
		if box, err = demoSecretBox(*f.dsn, log); err != nil {
			return err
		}
	}
	warnNoSecretKey(log, box)
	ln, err := net.Listen("tcp", *addr)
	if err != nil {
		return err
	}
	defer ln.Close()
	url := "http://" + ln.Addr().String()
	// A demo server's links (manage links in messages, the booking page's
	// address) point at itself unless a public URL is given.
	pub := publicURLFrom(*publicURL, env)
	if *demo && pub == "" {
		pub = url
	}
	// The language catalogue is read at its first use; a server reads it
	// now, so that its first page or refusal does not wait for it.
	locale.Catalogue()
	store, err := openStoreWith(ctx, *f.dsn, log, db.Options{Log: log, SlowQuery: *slowQuery})
	if err != nil {
		return err
	}
	defer store.Close()

	if *demo {
		if err := ensureDemo(ctx, store, env, box); err != nil {
			return fmt.Errorf("demo workspace: %w", err)
		}
	}

	dashProviders, err := newProviders(env, log)
	if err != nil {
		return err
	}
	dash, err := dashboard.New(dashboard.Config{DB: store, Clock: env.Clock, Log: log, IdleTimeout: *sessionIdle, MaxAge: *sessionMax,
		PublicURL: pub, Secrets: box, Providers: dashProviders, Targets: targets(env)})
	if err != nil {
		return err
	}
	patientPages, err := bookingpage.New(bookingpage.Config{DB: store, Clock: env.Clock, Log: log, Secrets: box})
	if err != nil {
		return err
	}
	// Instances on one PostgreSQL database share each key's rate limit
	// through it; SQLite has one process, so its limiter stays local.
	rateOpts := ratelimit.Options{Clock: env.Clock}
	if store.Engine() == db.Postgres {
		rateOpts.Store = store
	}
	keyLimits := ratelimit.New(rateOpts)
	rateCtx, stopRate := context.WithCancel(ctx)
	defer stopRate()
	go keyLimits.Run(rateCtx, *rateSync, log)
	// PostgreSQL: tables that grew by half since their last ANALYZE get a
	// VACUUM (ANALYZE) within seconds, not autovacuum's minute
	// (db.KeepStatistics).
	go store.KeepStatistics(rateCtx, *statsEvery, log)
	adminToken := adminTokenFrom(env)
	reg := prometheus.NewRegistry()
	msg, err := newMessaging(env, store, log, box, pub, reg, wf)
	if err != nil {
		return err
	}
	srv := httpapi.NewServer(httpapi.Config{
		DB: store, Clock: env.Clock, Log: log, AdminToken: adminToken, BatchWait: *batchWait,
		Dashboard: dash, BookingPage: patientPages, RateLimit: httpapi.RateLimit{Keys: keyLimits}, Secrets: box, Getenv: env.Getenv,
		MetricsToken: env.Getenv("FRONTDESK_METRICS_TOKEN"), // /metrics needs it as a bearer when set
		Registry:     reg, Hooks: msg.hooks, PublicURL: pub, Targets: targets(env),
	})
	workerDone := make(chan struct{})
	workerCtx, stopWorker := context.WithCancel(managelink.WithConfig(context.WithoutCancel(ctx),
		managelink.Config{PublicURL: pub, Secrets: box}))
	if *runWorker {
		go func() {
			defer close(workerDone)
			newWorker(store, env.Clock, log, wf, box, msg.sender, targets(env)).Run(workerCtx)
		}()
	} else {
		close(workerDone)
	}
	defer func() { stopWorker(); <-workerDone }()
	httpSrv := &http.Server{
		Handler:           srv,
		ReadHeaderTimeout: 10 * time.Second,
		ReadTimeout:       60 * time.Second,
		WriteTimeout:      120 * time.Second,
		IdleTimeout:       120 * time.Second,
	}
	fmt.Fprintf(env.Stdout, "Frontdesk listening on %s (database: %s)\n", url, store.Engine())
	if *demo {
		fmt.Fprintf(env.Stdout, "Demo API key: %s\nTry:\n  curl -H 'Authorization: Bearer %s' %s/api/v2/public/calendar/services\n",
			workspace.DemoKey, workspace.DemoKey, url)
		// The demo user and password are in internal/workspace/demo.yaml.
		fmt.Fprintf(env.Stdout, "Dashboard: %s/app/  (sign in as marta@sonrisa.test, the owner, or recepcion@sonrisa.test, staff; password demo-password)\n", url)
	}
	if env.Ready != nil {
		env.Ready <- ln.Addr().String()
	}
	errc := make(chan error, 1)
	go func() { errc <- httpSrv.Serve(ln) }()
	select {
	case err := <-errc:
		return err
	case <-ctx.Done():
	}
	log.Info("shutting down: finishing in-flight requests", "timeout", *shutdownWait)
	sctx, cancel := context.WithTimeout(context.Background(), *shutdownWait)
	defer cancel()
	if err := httpSrv.Shutdown(sctx); err != nil && !errors.Is(err, http.ErrServerClosed) {
		return err
	}
	return nil
}

// minAdminToken is the shortest FRONTDESK_ADMIN_TOKEN serve accepts: the
// token opens every account's workspace, so it must not be guessable
// (32 hex characters are 128 bits).
const minAdminToken = 32

// adminTokenFrom returns FRONTDESK_ADMIN_TOKEN, or "" (admin routes off)
// when it is too short to be safe, saying so on stderr without the token.
func adminTokenFrom(env *Env) string {
	token := env.Getenv("FRONTDESK_ADMIN_TOKEN")
	if token != "" && utf8.RuneCountInString(token) < minAdminToken {
		fmt.Fprintf(env.Stderr, "FRONTDESK_ADMIN_TOKEN is shorter than %d characters: admin routes are off; generate one with `openssl rand -hex 32`\n", minAdminToken)
		return ""
	}
	return token
}

// ensureDemo applies the demo workspace when its account does not exist yet,
// so a restart never resets what a user changed in it.
func ensureDemo(ctx context.Context, store *db.DB, env *Env, box *secrets.Box) error {
	if _, err := account.BySlug(ctx, store, workspace.DemoSlug); err == nil {
		return nil
	} else if !errs.Is(err, errs.NotFound) {
		return err
	}
	a := &workspace.Applier{DB: store, Now: env.Clock.Now, HashPassword: password.Hash, Secrets: box, Getenv: env.Getenv, Targets: targets(env)}
	if _, err := a.Apply(ctx, workspace.Demo()); err != nil {
		return err
	}
	acct, err := account.BySlug(ctx, store, workspace.DemoSlug)
	if err != nil {
		return err
	}
	return seedDemoWeek(ctx, store, acct, env.Clock.Now())
}
