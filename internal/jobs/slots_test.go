package jobs_test

import (
	"context"
	"errors"
	"fmt"
	"testing"
	"time"

	"github.com/frontdesk/frontdesk/internal/db"
	"github.com/frontdesk/frontdesk/internal/db/dbtest"
	"github.com/frontdesk/frontdesk/internal/jobs"
	"github.com/frontdesk/frontdesk/internal/outbound"
)

// Slots give each receiver Per at once, receivers apart; a waiter gives up
// when its context ends, and a release counts once however often it runs.
func TestSlots(t *testing.T) {
	ctx := context.Background()
	s := &jobs.Slots{Per: 2}
	a1, err1 := s.Acquire(ctx, "a")
	a2, err2 := s.Acquire(ctx, "a")
	b1, err3 := s.Acquire(ctx, "b")
	if err := errors.Join(err1, err2, err3); err != nil {
		t.Fatal(err)
	}
	short, cancel := context.WithTimeout(ctx, 20*time.Millisecond)
	defer cancel()
	if _, err := s.Acquire(short, "a"); !errors.Is(err, context.DeadlineExceeded) {
		t.Fatalf("a third slot of a receiver with 2: %v, want the context's end", err)
	}
	a1()
	a1() // once only: a second release must not free a2's slot
	a3, err := s.Acquire(ctx, "a")
	if err != nil {
		t.Fatal(err)
	}
	short, cancel = context.WithTimeout(ctx, 20*time.Millisecond)
	defer cancel()
	if _, err := s.Acquire(short, "a"); err == nil {
		t.Fatal("a repeated release freed a slot it did not hold")
	}
	a2()
	a3()
	b1()
	zero := &jobs.Slots{}
	for i := range jobs.DefaultPerReceiver {
		if _, err := zero.Acquire(ctx, "z"); err != nil {
			t.Fatal(i, err)
		}
	}
	short, cancel = context.WithTimeout(ctx, 20*time.Millisecond)
	defer cancel()
	if _, err := zero.Acquire(short, "z"); err == nil {
		t.Fatalf("the zero Slots gave more than %d at once", jobs.DefaultPerReceiver)
	}
}

// The worker delivers webhooks many at once, but no more than WebhookSlots
// allow to one host.
func TestWebhooksPerHostAreBounded(t *testing.T) {
	dbtest.Engines(t, func(t *testing.T, store *db.DB) {
		e := setup(t, store)
		e.delay.Store(int64(30 * time.Millisecond))
		const per, n = 2, 10
		var phones []string
		for i := range n {
			phones = append(phones, fmt.Sprintf("+346110%05d", i))
		}
		e.ingest(t, phones, nil) // the stage's webhook automation, once per row
		fx := &jobs.Effects{Targets: outbound.Policy{AllowPrivate: true}, Clock: e.clock, WebhookSlots: &jobs.Slots{Per: per}}
		e.worker = &jobs.Worker{DB: store, Clock: e.clock, Handlers: fx.Handlers(), BatchHandlers: fx.BatchHandlers(), Calls: fx.Calls(), Concurrency: n}
		e.drain(t)
		if got := e.hits.Load(); got != n {
			t.Fatalf("%d deliveries, want %d", got, n)
		}
		if peak := e.load.Peak(); peak != per {
			t.Errorf("the receiver had %d deliveries at once, want %d", peak, per)
		}
	})
}
