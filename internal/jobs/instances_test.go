package jobs_test

import (
	"context"
	"fmt"
	"sync"
	"testing"
	"time"

	"github.com/frontdesk/frontdesk/internal/account"
	"github.com/frontdesk/frontdesk/internal/db"
	"github.com/frontdesk/frontdesk/internal/db/dbtest"
	"github.com/frontdesk/frontdesk/internal/jobs"
)

// senderFunc is a jobs.Sender made of a function.
type senderFunc func(ctx context.Context, acct account.Account, m jobs.Message, start jobs.Start) (jobs.SendResult, error)

func (f senderFunc) Send(ctx context.Context, acct account.Account, m jobs.Message, start jobs.Start) (jobs.SendResult, error) {
	return f(ctx, acct, m, start)
}

// sends counts the messages each worker handed to its provider.
type sends struct {
	mu sync.Mutex
	n  map[string]map[int64]int
}

func (s *sends) add(worker string, id int64) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.n[worker] == nil {
		s.n[worker] = map[int64]int{}
	}
	s.n[worker][id]++
}

func (s *sends) of(worker string) map[int64]int {
	s.mu.Lock()
	defer s.mu.Unlock()
	out := map[int64]int{}
	for id, n := range s.n[worker] {
		out[id] = n
	}
	return out
}

// A worker whose heartbeat goes stale is dead to the others: its claimed
// jobs are taken over at once, not after their 5-minute lease, while a
// live worker's jobs are never taken. The message its call was handing to
// the provider at that moment waits until that call has surely ended
// (the send timeout), and is then not sent again when its answer did come
// in. And if the "dead" worker was only stalled, it sends none of the jobs
// taken from it when it wakes: its Commit finds them no longer its own.
func TestHeartbeatTakeover(t *testing.T) {
	dbtest.Engines(t, func(t *testing.T, store *db.DB) {
		e := setup(t, store)
		ctx := context.Background()
		e.ingest(t, []string{"+34611000001", "+34611000002", "+34611000003"}, nil)
		if _, err := e.worker.RunOnce(ctx); err != nil { // the arrivals queue the messages
			t.Fatal(err)
		}
		// Only the three messages: their webhooks are not what this is about.
		store.Exec(ctx, `UPDATE jobs SET status = 'done' WHERE kind = ?`, jobs.KindWebhookDelivery)
		got := &sends{n: map[string]map[int64]int{}}
		started, release := make(chan int64, 1), make(chan struct{})
		stalled := senderFunc(func(ctx context.Context, _ account.Account, m jobs.Message, start jobs.Start) (jobs.SendResult, error) {
			if err := start(ctx, 0, false); err != nil {
				return jobs.SendResult{}, err
			}
			got.add("a", m.ID)
			if len(got.of("a")) == 1 {
				started <- m.ID
				<-release // the provider call hangs: the worker looks dead
			}
			return jobs.SendResult{Status: jobs.DeliverySent}, nil
		})
		failB := true
		other := senderFunc(func(ctx context.Context, _ account.Account, m jobs.Message, start jobs.Start) (jobs.SendResult, error) {
			if err := start(ctx, 0, false); err != nil {
				return jobs.SendResult{}, err
			}
			if failB {
				return jobs.SendResult{}, fmt.Errorf("provider busy")
			}
			got.add("b", m.ID)
			return jobs.SendResult{Status: jobs.DeliverySent}, nil
		})
		newWorker := func(name string, s jobs.Sender) *jobs.Worker {
			fx := &jobs.Effects{Clock: e.clock, Sender: s}
			return &jobs.Worker{DB: store, Clock: e.clock, Handlers: fx.Handlers(), BatchHandlers: fx.BatchHandlers(), Calls: fx.Calls(),
				Concurrency: 1, Instance: name, Backoff: func(int) time.Duration { return time.Second }}
		}
		a, b := newWorker("a", stalled), newWorker("b", other)
		if err := a.Beat(ctx); err != nil {
			t.Fatal(err)
		}
		done := make(chan error, 1)
		go func() { _, err := a.RunOnce(ctx); done <- err }()
		first := <-started

		// Both alive: b takes nothing of a's.
		if err := b.Beat(ctx); err != nil {
			t.Fatal(err)
		}
		if n, err := b.RunOnce(ctx); err != nil || n != 0 {
			t.Fatalf("b claimed %d jobs of a live worker (%v)", n, err)
		}

		// a's beat is 16 s old: b takes its three jobs over, well before
		// their lease runs out. The message a is sending waits; b's own
		// attempts at the other two fail for now.
		e.clock.Advance(16 * time.Second)
		b.Beat(ctx)
		if n, err := b.RunOnce(ctx); err != nil || n != 3 {
			t.Fatalf("b claimed %d of the dead worker's jobs, want 3 (%v)", n, err)
		}
		var waiting int
		store.QueryRow(ctx, `SELECT COUNT(*) FROM jobs j JOIN outbox o ON o.account_id = j.account_id AND o.id = j.outbox_id
			WHERE o.id = ? AND j.status = 'pending' AND j.run_at = ?`, first, db.Micros(e.clock.Now().Add(4*time.Second))).Scan(&waiting)
		if waiting != 1 {
			t.Errorf("the message in doubt is not waiting for the send timeout (20 s after its start): %s", jobStates(t, store))
		}

		// a wakes up: its call ends, and it sends none of the jobs b took.
		close(release)
		if err := <-done; err != nil {
			t.Fatal(err)
		}
		if sent := got.of("a"); len(sent) != 1 || sent[first] != 1 {
			t.Fatalf("the stalled worker sent %v, want only the message it had started (%d)", sent, first)
		}

		// b finishes: everything sent once in all.
		failB = false
		e.clock.Advance(30 * time.Second)
		b.Beat(ctx)
		for i := 0; i < 5; i++ {
			if _, err := b.RunOnce(ctx); err != nil {
				t.Fatal(err)
			}
		}
		var ids []int64
		rows, _ := store.Query(ctx, `SELECT id FROM outbox WHERE kind = ?`, jobs.MsgAutomation)
		ids, _ = db.Int64s(rows)
		for _, id := range ids {
			if n := got.of("a")[id] + got.of("b")[id]; n != 1 {
				t.Errorf("message %d sent %d times", id, n)
			}
		}
		if n, _ := jobs.Usage(ctx, store, e.acct, "messages_sent", "2026-11"); n != 3 {
			t.Errorf("billed messages = %d, want 3", n)
		}
		var notDone int
		store.QueryRow(ctx, `SELECT COUNT(*) FROM jobs WHERE status <> 'done' AND run_at <= ?`, db.Micros(e.clock.Now())).Scan(&notDone)
		if notDone != 0 {
			t.Errorf("due jobs left: %s", jobStates(t, store))
		}
	})
}

func jobStates(t *testing.T, store *db.DB) string {
	rows, err := store.Query(context.Background(), `SELECT id, status, COALESCE(claimed_by, ''), run_at FROM jobs ORDER BY id`)
	if err != nil {
		t.Fatal(err)
	}
	defer rows.Close()
	out := ""
	for rows.Next() {
		var id, runAt int64
		var status, by string
		rows.Scan(&id, &status, &by, &runAt)
		out += fmt.Sprintf("[%d %s by %q at %s] ", id, status, by, db.Time(runAt).Format(time.TimeOnly))
	}
	return out
}

// Run beats while it runs and retires its instance when it stops.
func TestRunBeatsAndRetires(t *testing.T) {
	dbtest.Engines(t, func(t *testing.T, store *db.DB) {
		e := setup(t, store)
		ctx, cancel := context.WithCancel(context.Background())
		e.worker.Instance, e.worker.Heartbeat, e.worker.Poll = "runner", 10*time.Millisecond, 10*time.Millisecond
		done := make(chan struct{})
		go func() { e.worker.Run(ctx); close(done) }()
		count := func() (n int) {
			store.QueryRow(context.Background(), `SELECT COUNT(*) FROM worker_instances WHERE id = 'runner' AND beat_at = ?`, db.Micros(e.clock.Now())).Scan(&n)
			return n
		}
		deadline := time.Now().Add(5 * time.Second)
		for count() == 0 && time.Now().Before(deadline) {
			time.Sleep(10 * time.Millisecond)
		}
		e.clock.Advance(time.Minute) // the next beat says "now" again
		for count() == 0 && time.Now().Before(deadline) {
			time.Sleep(10 * time.Millisecond)
		}
		if count() != 1 {
			t.Fatal("the running worker does not beat")
		}
		cancel()
		<-done
		var left int
		store.QueryRow(context.Background(), `SELECT COUNT(*) FROM worker_instances`).Scan(&left)
		if left != 0 {
			t.Errorf("%d instances left after the worker stopped", left)
		}
	})
}
