package jobs

import (
	"context"
	"encoding/json"
	"sync"

	"github.com/frontdesk/frontdesk/internal/db"
)

// A round of Calls reads, per job, its outbox message and, per message, the
// account's messaging settings and channel: with Concurrency Calls at a time
// those were one round trip each, per job, and the worker completed fewer
// jobs per second than the mixed load created. The round
// therefore loads the messages of all its delivery jobs in one statement per
// account before its Calls start, and keeps what stays the same for the
// whole round (an account's settings and channels) in a memo its Calls
// share.

type roundKey struct{}

// round is what one round of Calls shares.
type round struct {
	messages map[int64]Message // outbox id -> message, as the round began
	mu       sync.Mutex
	memo     map[any]*memoEntry
}

type memoEntry struct {
	once sync.Once
	val  any
	err  error
}

// Memo returns fn's answer for key, computing it once per round of Calls;
// outside a round (a request, a test) it calls fn every time. The key must
// name the account (what is memoised is per account).
func Memo[T any](ctx context.Context, key any, fn func() (T, error)) (T, error) {
	r, _ := ctx.Value(roundKey{}).(*round)
	if r == nil {
		return fn()
	}
	r.mu.Lock()
	e, ok := r.memo[key]
	if !ok {
		e = &memoEntry{}
		r.memo[key] = e
	}
	r.mu.Unlock()
	e.once.Do(func() { e.val, e.err = fn() })
	if e.err != nil {
		var zero T
		return zero, e.err
	}
	return e.val.(T), nil
}

// prefetched returns the message id as the round loaded it.
func prefetched(ctx context.Context, id int64) (Message, bool) {
	r, _ := ctx.Value(roundKey{}).(*round)
	if r == nil {
		return Message{}, false
	}
	m, ok := r.messages[id]
	return m, ok
}

// startRound loads the outbox messages of jobs (one statement per account)
// and returns ctx carrying them and the round's memo. A failed load only
// means the Calls read their messages one by one.
func (w *Worker) startRound(ctx context.Context, jobs []Job) context.Context {
	r := &round{messages: map[int64]Message{}, memo: map[any]*memoEntry{}}
	for _, group := range byAccount(jobs) {
		var ids []int64
		for _, j := range group {
			var p delivery
			if json.Unmarshal(j.Payload, &p) == nil && p.OutboxID != 0 {
				ids = append(ids, p.OutboxID)
			}
		}
		if len(ids) == 0 {
			continue
		}
		in, args := db.In(ids)
		rows, err := w.DB.Query(ctx, selectMessage+` FROM outbox WHERE account_id = ? AND id IN `+in, append([]any{group[0].AccountID}, args...)...)
		if err != nil {
			continue
		}
		for rows.Next() {
			m, err := scanMessage(rows)
			if err != nil {
				break
			}
			r.messages[m.ID] = m
		}
		rows.Close()
	}
	return context.WithValue(ctx, roundKey{}, r)
}
