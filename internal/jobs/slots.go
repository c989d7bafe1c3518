package jobs

import (
	"context"
	"sync"
)

// DefaultConcurrency is how many Calls a worker runs at once by default,
// over all receivers.
const DefaultConcurrency = 64

// DefaultPerReceiver is how many calls one receiver (a channel's provider,
// a webhook's host) gets at once by default.
const DefaultPerReceiver = 8

// Slots bounds the calls under way at once to each receiver: the worker
// runs up to Concurrency Calls in all, and no receiver gets more than Per
// of them, so many accounts' channels are served side by side while each
// channel's provider gets no more at once than when the worker's whole
// bound was the default Per (docs/performance.md, "Sending a round of
// messages"). The zero value allows
// DefaultPerReceiver per receiver; it is safe for concurrent use. It keeps
// an entry per receiver it has seen (channels and webhook hosts: a few per
// account).
type Slots struct {
	Per int

	mu   sync.Mutex
	held map[string]chan struct{}
}

// Acquire waits for a slot of receiver and returns its release, or ctx's
// error when ctx ends first.
func (s *Slots) Acquire(ctx context.Context, receiver string) (release func(), err error) {
	s.mu.Lock()
	if s.held == nil {
		s.held = map[string]chan struct{}{}
	}
	sem := s.held[receiver]
	if sem == nil {
		per := s.Per
		if per <= 0 {
			per = DefaultPerReceiver
		}
		sem = make(chan struct{}, per)
		s.held[receiver] = sem
	}
	s.mu.Unlock()
	select {
	case sem <- struct{}{}:
		var once sync.Once
		return func() { once.Do(func() { <-sem }) }, nil
	case <-ctx.Done():
		return func() {}, ctx.Err()
	}
}
