package jobs_test

import (
	"context"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/frontdesk/frontdesk/internal/account"
	"github.com/frontdesk/frontdesk/internal/channels/channelstest"
	"github.com/frontdesk/frontdesk/internal/clock"
	"github.com/frontdesk/frontdesk/internal/db"
	"github.com/frontdesk/frontdesk/internal/db/dbtest"
	"github.com/frontdesk/frontdesk/internal/jobs"
	"github.com/frontdesk/frontdesk/internal/outbound"
	"github.com/frontdesk/frontdesk/internal/pipeline"
	"github.com/frontdesk/frontdesk/internal/secrets"
	"github.com/frontdesk/frontdesk/internal/workspace"
)

const webNode = "0b7d6c52-5a52-4c1e-9a57-6f4a0f1f3a01"

type env struct {
	store  *db.DB
	clock  *clock.Fake
	acct   account.Account
	worker *jobs.Worker
	hits   atomic.Int32
	fails  atomic.Int32 // the receiver fails this many times first
	sigs   chan string
	// delay is how long the receiver takes to answer (nanoseconds); load
	// counts the requests it answers at once.
	delay atomic.Int64
	load  channelstest.InFlight
}

// setup provisions the acme fixture with its webhook automation pointed at a
// loopback receiver.
func setup(t *testing.T, store *db.DB) *env {
	return setupWith(t, store, nil, nil)
}

// setupWith is setup with the server keys of the apply and of the worker
// (nil: none), and the crm webhook also pointed at the receiver.
func setupWith(t *testing.T, store *db.DB, applyKey, workerKey *secrets.Box) *env {
	e := &env{store: store, clock: clock.NewFake(time.Date(2026, 11, 23, 9, 0, 0, 0, time.UTC)), sigs: make(chan string, 100)}
	recv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		body, _ := io.ReadAll(r.Body)
		defer e.load.Enter()()
		time.Sleep(time.Duration(e.delay.Load()))
		e.hits.Add(1)
		if e.fails.Load() > 0 {
			e.fails.Add(-1)
			w.WriteHeader(500)
			return
		}
		e.sigs <- r.Header.Get("Frontdesk-Signature") + "|" + string(body)
	}))
	t.Cleanup(recv.Close)
	data, _ := os.ReadFile("../workspace/testdata/acme.yaml")
	data = []byte(strings.ReplaceAll(string(data), "https://example.test/new-lead", recv.URL))
	data = []byte(strings.ReplaceAll(string(data), "https://example.test/hooks", recv.URL+"/hooks"))
	if _, err := (&workspace.Applier{DB: store, Now: e.clock.Now, Secrets: applyKey, Targets: outbound.Policy{AllowPrivate: true}}).Apply(context.Background(), data); err != nil {
		t.Fatal(err)
	}
	e.acct, _ = account.BySlug(context.Background(), store, "acme")
	fx := &jobs.Effects{Targets: outbound.Policy{AllowPrivate: true}, Clock: e.clock, Secrets: workerKey}
	e.worker = &jobs.Worker{DB: store, Clock: e.clock, Handlers: fx.Handlers(), BatchHandlers: fx.BatchHandlers(), Calls: fx.Calls(),
		Backoff: func(int) time.Duration { return time.Second }}
	return e
}

func (e *env) ingest(t *testing.T, phones []string, opts func(*pipeline.IngestRequest)) *pipeline.IngestResult {
	t.Helper()
	req := pipeline.IngestRequest{NodeUUID: webNode, OnDuplicate: "update", TriggerAutomations: true}
	for i, p := range phones {
		req.Rows = append(req.Rows, pipeline.ParseRow(i, map[string]any{"phone_number": p, "first_name": fmt.Sprint("N", i)}, req.Defaults))
	}
	if opts != nil {
		opts(&req)
	}
	res, err := (&pipeline.Ingester{DB: e.store}).Ingest(context.Background(), e.acct, req, e.clock.Now())
	if err != nil && opts == nil {
		t.Fatal(err)
	}
	return res
}

// drain runs the worker until nothing is due.
func (e *env) drain(t *testing.T) {
	t.Helper()
	for i := 0; i < 50; i++ {
		n, err := e.worker.RunOnce(context.Background())
		if err != nil {
			t.Fatal(err)
		}
		if n == 0 {
			return
		}
	}
}

func (e *env) outbox(kind string) int {
	var n int
	e.store.QueryRow(context.Background(), `SELECT COUNT(*) FROM outbox WHERE kind = ?`, kind).Scan(&n)
	return n
}

func TestAutomationsRunOncePerPlacedRow(t *testing.T) {
	dbtest.Engines(t, func(t *testing.T, store *db.DB) {
		e := setup(t, store)
		// Two new rows placed; maria (already active from the fixture) is not.
		e.ingest(t, []string{"+34611000001", "+34611000002", "+34600111222"}, nil)
		// Nothing for dry runs, rolled-back batches or trigger_automations: false.
		e.ingest(t, []string{"+34611000003"}, func(r *pipeline.IngestRequest) { r.DryRun = true })
		e.ingest(t, []string{"+34611000004", "12"}, func(r *pipeline.IngestRequest) { r.AllOrNone = true })
		e.ingest(t, []string{"+34611000005"}, func(r *pipeline.IngestRequest) { r.TriggerAutomations = false })
		e.drain(t)
		if n := e.outbox(jobs.MsgAutomation); n != 2 {
			t.Fatalf("automation messages = %d, want 2", n)
		}
		var body, recipient, status string
		store.QueryRow(context.Background(), `SELECT body, recipient, status FROM outbox WHERE kind = ? ORDER BY id LIMIT 1`, jobs.MsgAutomation).Scan(&body, &recipient, &status)
		if body != "Hola N0" || recipient != "+34611000001" || status != "sent" {
			t.Errorf("message = %q to %q (%s)", body, recipient, status)
		}
		// Sequence steps wait for their delays.
		var pending int
		store.QueryRow(context.Background(), `SELECT COUNT(*) FROM outbox WHERE kind = ? AND status = 'pending'`, jobs.MsgSequence).Scan(&pending)
		if pending != 4 {
			t.Fatalf("pending sequence messages = %d, want 4", pending)
		}
		e.clock.Advance(time.Hour)
		e.drain(t)
		store.QueryRow(context.Background(), `SELECT COUNT(*) FROM outbox WHERE kind = ? AND status = 'sent'`, jobs.MsgSequence).Scan(&pending)
		if pending != 2 {
			t.Errorf("sequence messages sent after 1h = %d, want 2", pending)
		}
		// Signed webhook, once per placed row.
		if e.hits.Load() != 2 {
			t.Errorf("webhook hits = %d, want 2", e.hits.Load())
		}
		got := <-e.sigs
		sig, body2, _ := strings.Cut(got, "|")
		if sig != jobs.Sign("s3cret", []byte(body2), e.clock.Now().Add(-time.Hour)) {
			t.Errorf("bad signature %q", sig)
		}
		if n, _ := jobs.Usage(context.Background(), store, e.acct, "messages_sent", "2026-11"); n != 4 {
			t.Errorf("billed messages = %d, want 4", n)
		}
	})
}

// A receiver that fails twice then succeeds gets the call three times, and
// exactly once successfully.
func TestWebhookRetriesWithBackoff(t *testing.T) {
	dbtest.Engines(t, func(t *testing.T, store *db.DB) {
		e := setup(t, store)
		e.fails.Store(2)
		e.ingest(t, []string{"+34611000001"}, nil)
		e.drain(t)
		for i := 0; i < 3; i++ {
			e.clock.Advance(2 * time.Second)
			e.drain(t)
		}
		if e.hits.Load() != 3 || len(e.sigs) != 1 {
			t.Fatalf("hits = %d, successes = %d", e.hits.Load(), len(e.sigs))
		}
		var status string
		var attempts int
		store.QueryRow(context.Background(), `SELECT status, attempts FROM jobs WHERE kind = ?`, jobs.KindWebhookDelivery).Scan(&status, &attempts)
		if status != "done" || attempts != 3 {
			t.Errorf("job %s after %d attempts", status, attempts)
		}
	})
}

// A job claimed by a worker that died is taken over once its lease expires
// and runs to completion exactly once.
func TestInterruptedJobRunsAfterRestart(t *testing.T) {
	dbtest.Engines(t, func(t *testing.T, store *db.DB) {
		e := setup(t, store)
		e.ingest(t, []string{"+34611000001"}, nil)
		// Simulate a crash: the job is claimed (running, leased) but never finished.
		if _, err := store.Exec(context.Background(), `UPDATE jobs SET status = 'running', attempts = 1, locked_until = ? WHERE kind = ?`,
			db.Micros(e.clock.Now().Add(5*time.Minute)), jobs.KindStageArrival); err != nil {
			t.Fatal(err)
		}
		e.drain(t)
		if e.outbox(jobs.MsgAutomation) != 0 {
			t.Fatal("a leased job ran before its lease expired")
		}
		e.clock.Advance(6 * time.Minute)
		e.drain(t)
		e.drain(t)
		if n := e.outbox(jobs.MsgAutomation); n != 1 {
			t.Fatalf("automation messages = %d, want exactly 1", n)
		}
	})
}

// A worker told to stop while a backlog is queued finishes the jobs it has
// claimed and returns; it does not drain the queue first.
func TestWorkerStopsWithBacklog(t *testing.T) {
	dbtest.Engines(t, func(t *testing.T, store *db.DB) {
		e := setup(t, store)
		phones := make([]string, 200)
		for i := range phones {
			phones[i] = fmt.Sprintf("+3461100%04d", i)
		}
		e.ingest(t, phones, nil)
		ctx, cancel := context.WithCancel(context.Background())
		defer cancel()
		var ran atomic.Int32
		handlers := e.worker.Handlers
		wrapped := map[string]jobs.Handler{}
		for kind, h := range handlers {
			wrapped[kind] = func(ctx2 context.Context, tx *db.Tx, acct account.Account, j jobs.Job) error {
				if ran.Add(1) == 1 {
					cancel()
				}
				return h(ctx2, tx, acct, j)
			}
		}
		e.worker.Handlers, e.worker.Batch = wrapped, 5
		done := make(chan struct{})
		go func() { e.worker.Run(ctx); close(done) }()
		select {
		case <-done:
		case <-time.After(10 * time.Second):
			t.Fatal("worker still draining the queue 10 s after it was told to stop")
		}
		if n := ran.Load(); n > 5 {
			t.Errorf("ran %d jobs after the stop, want at most the claimed batch of 5", n)
		}
		var pending int
		store.QueryRow(context.Background(), `SELECT COUNT(*) FROM jobs WHERE status = 'pending'`).Scan(&pending)
		if pending == 0 {
			t.Error("no jobs left queued: the worker drained the backlog before stopping")
		}
	})
}

// Claimed jobs run in one transaction with a savepoint each: a job that
// fails leaves none of its writes behind and is retried, while the others
// of its batch complete.
func TestFailingJobRollsBackOnlyItself(t *testing.T) {
	dbtest.Engines(t, func(t *testing.T, store *db.DB) {
		e := setup(t, store)
		e.ingest(t, []string{"+34611000001", "+34611000002", "+34611000003"}, nil)
		var arrivals atomic.Int32
		arrive := e.worker.Handlers[jobs.KindStageArrival]
		handlers := map[string]jobs.Handler{}
		for kind, h := range e.worker.Handlers {
			handlers[kind] = h
		}
		handlers[jobs.KindStageArrival] = func(ctx context.Context, tx *db.Tx, acct account.Account, j jobs.Job) error {
			if err := arrive(ctx, tx, acct, j); err != nil {
				return err
			}
			if arrivals.Add(1) == 2 {
				return fmt.Errorf("injected failure after the job wrote its message")
			}
			return nil
		}
		e.worker.Handlers = handlers
		// The set-based handler of the batch fails after writing too: the
		// worker rolls it back and runs the jobs one by one.
		batches := map[string]jobs.BatchHandler{}
		for kind, h := range e.worker.BatchHandlers {
			batches[kind] = h
		}
		var batchFailures atomic.Int32
		arriveAll := batches[jobs.KindStageArrival]
		batches[jobs.KindStageArrival] = func(ctx context.Context, tx *db.Tx, acct account.Account, js []jobs.Job) error {
			if err := arriveAll(ctx, tx, acct, js); err != nil {
				return err
			}
			batchFailures.Add(1)
			return fmt.Errorf("injected failure of the whole batch")
		}
		e.worker.BatchHandlers = batches
		if _, err := e.worker.RunOnce(context.Background()); err != nil {
			t.Fatal(err)
		}
		if batchFailures.Load() != 1 {
			t.Fatalf("the set-based handler ran %d times, want once for the batch of three", batchFailures.Load())
		}
		if n := e.outbox(jobs.MsgAutomation); n != 2 {
			t.Fatalf("automation messages after the first batch = %d, want 2 (the failed job's message rolled back)", n)
		}
		var pending int
		store.QueryRow(context.Background(), `SELECT COUNT(*) FROM jobs WHERE kind = ? AND status = 'pending' AND last_error LIKE '%injected%'`, jobs.KindStageArrival).Scan(&pending)
		if pending != 1 {
			t.Fatalf("failed stage-arrival jobs waiting for a retry = %d, want 1", pending)
		}
		e.clock.Advance(2 * time.Second)
		e.drain(t)
		if n := e.outbox(jobs.MsgAutomation); n != 3 {
			t.Errorf("automation messages after the retry = %d, want exactly 3", n)
		}
		// Every attempt counts, and is recorded: the retried job ran twice,
		// the others once. Jobs completed in the transaction that claimed
		// them are written once, by their completion: never marked running
		// by a claimer (except on Citus, where the claim marks every job).
		rows, err := store.Query(context.Background(), `SELECT j.attempts, j.status, COUNT(*), COUNT(j.claimed_by) FROM jobs j
			JOIN job_attempts a ON a.account_id = j.account_id AND a.job_id = j.id
			WHERE j.kind = ? GROUP BY j.id, j.attempts, j.status ORDER BY j.attempts, j.id`, jobs.KindStageArrival)
		if err != nil {
			t.Fatal(err)
		}
		var got []string
		for rows.Next() {
			var attempts, recorded, claimed int
			var status string
			rows.Scan(&attempts, &status, &recorded, &claimed)
			if claimed > 0 != store.Dialect().Citus {
				t.Errorf("a stage-arrival job completed where it was claimed names a claimer (%d)", claimed)
			}
			got = append(got, fmt.Sprint(attempts, status, recorded))
		}
		rows.Close()
		if want := []string{"1done1", "1done1", "2done2"}; !slices.Equal(got, want) {
			t.Errorf("attempts, status and recorded attempts: %q, want %q", got, want)
		}
	})
}

// countingSender records which messages it was asked to send; its first
// Send can run something before answering (another worker, a clock jump).
type countingSender struct {
	mu      sync.Mutex
	sent    map[int64]int
	onFirst func()
}

func (s *countingSender) Send(ctx context.Context, acct account.Account, m jobs.Message, start jobs.Start) (jobs.SendResult, error) {
	if err := start(ctx, 0, false); err != nil {
		return jobs.SendResult{}, err
	}
	s.mu.Lock()
	first := len(s.sent) == 0
	s.sent[m.ID]++
	s.mu.Unlock()
	if first && s.onFirst != nil {
		s.onFirst()
	}
	return jobs.SendResult{Status: jobs.DeliverySent}, nil
}

// A worker whose batch of sends outlasts its leases leaves the jobs another
// worker took over meanwhile to that worker: before each send, when less
// than half a lease is left, it renews the leases of the jobs it has not
// started, and a job no longer its own is neither sent nor completed (nor
// billed) by it.
func TestReclaimedJobIsNotSentTwice(t *testing.T) {
	dbtest.Engines(t, func(t *testing.T, store *db.DB) {
		e := setup(t, store)
		e.ingest(t, []string{"+34611000001", "+34611000002", "+34611000003"}, nil)
		if _, err := e.worker.RunOnce(context.Background()); err != nil { // the arrivals queue the messages
			t.Fatal(err)
		}
		slowSender := &countingSender{sent: map[int64]int{}}
		otherSender := &countingSender{sent: map[int64]int{}}
		newWorker := func(s jobs.Sender) *jobs.Worker {
			fx := &jobs.Effects{Targets: outbound.Policy{AllowPrivate: true}, Clock: e.clock, Sender: s}
			return &jobs.Worker{DB: store, Clock: e.clock, Handlers: fx.Handlers(), BatchHandlers: fx.BatchHandlers(), Calls: fx.Calls(), Concurrency: 1}
		}
		slow, other := newWorker(slowSender), newWorker(otherSender)
		slowSender.onFirst = func() {
			// The first send takes longer than the lease, and another
			// worker takes over every job of the slow worker's batch (as
			// its claim does: it names itself the claimer) before sending
			// them.
			e.clock.Advance(6 * time.Minute)
			if _, err := store.Exec(context.Background(), `UPDATE jobs SET attempts = attempts + 1, locked_until = ?, claimed_by = 'another-instance' WHERE status = 'running'`,
				db.Micros(e.clock.Now().Add(5*time.Minute))); err != nil {
				t.Error(err)
			}
		}
		if _, err := slow.RunOnce(context.Background()); err != nil {
			t.Fatal(err)
		}
		if len(slowSender.sent) != 1 {
			t.Fatalf("the slow worker sent %d messages, want only the one it had started: %v", len(slowSender.sent), slowSender.sent)
		}
		if e.hits.Load() != 0 {
			t.Fatalf("the slow worker called %d webhooks of jobs it no longer owned", e.hits.Load())
		}
		// The leases of the worker that took over run out in turn (it
		// died): a third worker sends what is left.
		e.clock.Advance(6 * time.Minute)
		for i := 0; i < 5; i++ {
			other.RunOnce(context.Background())
		}
		for id, n := range otherSender.sent {
			if n+slowSender.sent[id] != 1 {
				t.Errorf("message %d sent %d times in all", id, n+slowSender.sent[id])
			}
		}
		if len(otherSender.sent) != 2 {
			t.Errorf("the last worker sent %d messages, want the 2 left", len(otherSender.sent))
		}
		if e.hits.Load() != 3 {
			t.Errorf("webhook hits = %d, want 3", e.hits.Load())
		}
		if n, _ := jobs.Usage(context.Background(), store, e.acct, "messages_sent", "2026-11"); n != 3 {
			t.Errorf("billed messages = %d, want 3", n)
		}
		var notDone int
		store.QueryRow(context.Background(), `SELECT COUNT(*) FROM jobs WHERE status <> 'done' AND run_at <= ?`, db.Micros(e.clock.Now())).Scan(&notDone)
		if notDone != 0 {
			t.Errorf("%d due jobs not done", notDone)
		}
	})
}

// blockingSender answers once n sends are under way at the same time.
type blockingSender struct {
	n       int
	mu      sync.Mutex
	started int
	all     chan struct{}
}

func (s *blockingSender) Send(ctx context.Context, acct account.Account, m jobs.Message, start jobs.Start) (jobs.SendResult, error) {
	if err := start(ctx, 0, false); err != nil {
		return jobs.SendResult{}, err
	}
	s.mu.Lock()
	s.started++
	if s.started == s.n {
		close(s.all)
	}
	s.mu.Unlock()
	select {
	case <-s.all:
	case <-time.After(30 * time.Second): // a deadlock guard, not a measurement
		return jobs.SendResult{}, fmt.Errorf("sends did not run concurrently")
	}
	return jobs.SendResult{Status: jobs.DeliverySent}, nil
}

// The worker runs the sends of a batch concurrently, Concurrency at a time,
// and completes each message once.
func TestCallsRunConcurrently(t *testing.T) {
	dbtest.Engines(t, func(t *testing.T, store *db.DB) {
		e := setup(t, store)
		phones := make([]string, 12)
		for i := range phones {
			phones[i] = fmt.Sprintf("+3461100%04d", i)
		}
		e.ingest(t, phones, nil)
		sender := &blockingSender{n: 4, all: make(chan struct{})}
		fx := &jobs.Effects{Targets: outbound.Policy{AllowPrivate: true}, Clock: e.clock, Sender: sender}
		e.worker = &jobs.Worker{DB: store, Clock: e.clock, Handlers: fx.Handlers(), BatchHandlers: fx.BatchHandlers(), Calls: fx.Calls(), Concurrency: 4}
		e.drain(t)
		var sent, attempts int
		store.QueryRow(context.Background(), `SELECT COUNT(*), COALESCE(SUM(attempts), 0) FROM outbox WHERE kind = ? AND status = 'sent'`, jobs.MsgAutomation).Scan(&sent, &attempts)
		if sent != 12 || attempts != 12 {
			t.Errorf("automation messages sent = %d in %d attempts, want 12 in 12", sent, attempts)
		}
		if n, _ := jobs.Usage(context.Background(), store, e.acct, "messages_sent", "2026-11"); n != 12 {
			t.Errorf("billed messages = %d, want 12", n)
		}
		if e.hits.Load() != 12 {
			t.Errorf("webhook hits = %d, want 12", e.hits.Load())
		}
	})
}
