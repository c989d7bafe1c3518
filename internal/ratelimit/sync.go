package ratelimit

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"fmt"
	"log/slog"
	"math"
	"sync"
	"time"

	"github.com/frontdesk/frontdesk/internal/clock"
	"github.com/frontdesk/frontdesk/internal/db"
)

// Sharing one limit between instances (PostgreSQL).
//
// Every instance keeps a local bucket per key that stands for the one global
// bucket. Every sync (Run, every ~200 ms) an instance adds the requests it
// admitted since the last sync to its own row of rate_usage — (bucket,
// instance, window) — and reads the other instances' rows of the current and
// previous window; whatever they grew by since its last read it takes from
// its local bucket, as if those requests had been served here. Each local
// bucket therefore sees every request of every instance, at most one sync
// late. The bucket may go into debt (down to minus one burst) so that
// requests admitted elsewhere are paid back by refusing here.
//
// Tolerance: the only requests admitted beyond the global bucket are those
// the instances admit between two syncs without yet knowing of each other,
// at most (instances - 1) × (burst + rate × sync interval) at a moment when
// every bucket is full, and (instances - 1) × rate × sync interval under a
// sustained flood; the debt pays them back within about a second. With the
// defaults (100/s, burst 200, 200 ms) and two instances: a first burst of up
// to 400 instead of 200, then 100/s plus at most 20 over any second.

type sharedState struct {
	mu        sync.Mutex // one Sync at a time
	seen      map[usageKey]int64
	lastSweep time.Time
	failing   bool
}

type usageKey struct {
	bucket, instance string
	window           int64
}

func randomInstance() string {
	var b [8]byte
	rand.Read(b[:])
	return hex.EncodeToString(b[:])
}

// SyncEvery bounds how often instances share their usage (serve
// --rate-sync): from 10 ms (a statement per key at that pace) to a minute
// (beyond, instances overshoot a shared limit for that long).
var SyncEvery = clock.Range{Min: 10 * time.Millisecond, Max: time.Minute}

// Run syncs every interval until ctx ends. It does nothing without a Store.
func (l *Limiter) Run(ctx context.Context, every time.Duration, log *slog.Logger) {
	if l.opts.Store == nil {
		return
	}
	if every <= 0 {
		every = 200 * time.Millisecond
	}
	if log == nil {
		log = slog.Default()
	}
	t := time.NewTicker(every)
	defer t.Stop()
	for {
		select {
		case <-ctx.Done():
			return
		case <-t.C:
		}
		err := l.Sync(ctx)
		switch {
		case err != nil && ctx.Err() == nil && !l.shared.failing:
			l.shared.failing = true
			log.Warn("rate limit sync failing; instances limit on their own until it recovers", "err", err)
		case err == nil && l.shared.failing:
			l.shared.failing = false
			log.Info("rate limit sync recovered")
		}
	}
}

// Sync pushes this instance's usage since the last sync and takes the other
// instances' new usage from the local buckets. It does nothing without a
// Store. Tests call it directly, on a fake clock.
func (l *Limiter) Sync(ctx context.Context) error {
	if l.opts.Store == nil {
		return nil
	}
	l.shared.mu.Lock()
	defer l.shared.mu.Unlock()
	now := l.clock.Now()
	win := l.windowOf(now)
	if err := l.push(ctx, now, win); err != nil {
		return err
	}
	if err := l.pull(ctx, now, win); err != nil {
		return err
	}
	if now.Sub(l.shared.lastSweep) >= l.opts.Window || now.Before(l.shared.lastSweep) {
		if _, err := l.opts.Store.Exec(ctx, `DELETE FROM rate_usage WHERE window_start < ?`,
			win-2*l.opts.Window.Microseconds()); err != nil {
			return fmt.Errorf("rate usage sweep: %w", err)
		}
		l.shared.lastSweep = now
	}
	return nil
}

func (l *Limiter) windowOf(t time.Time) int64 {
	w := l.opts.Window.Microseconds()
	return t.UnixMicro() / w * w
}

type pushed struct {
	b *bucket
	n int64
}

// push adds each bucket's requests admitted since the last push to this
// instance's row of the window; on failure the counts are kept for the next.
func (l *Limiter) push(ctx context.Context, now time.Time, win int64) error {
	l.mu.Lock()
	names := make([]string, 0, len(l.buckets))
	buckets := make([]*bucket, 0, len(l.buckets))
	for name, b := range l.buckets {
		names = append(names, name)
		buckets = append(buckets, b)
	}
	l.mu.Unlock()
	var (
		rows [][]any
		done []pushed
	)
	for i, b := range buckets {
		b.mu.Lock()
		n, lim := b.pending, b.limit
		b.pending = 0
		b.mu.Unlock()
		if n > 0 {
			rows = append(rows, []any{names[i], l.opts.Instance, win, n, lim.PerSecond, int64(lim.Burst), now.UnixMicro()})
			done = append(done, pushed{b, n})
		}
	}
	if len(rows) == 0 {
		return nil
	}
	err := l.opts.Store.Transact(ctx, func(tx *db.Tx) error {
		return db.InsertMany(ctx, tx, `INSERT INTO rate_usage (bucket, instance, window_start, used, per_second, burst, updated_at)`, rows,
			`ON CONFLICT (bucket, instance, window_start) DO UPDATE SET used = rate_usage.used + excluded.used,
				per_second = excluded.per_second, burst = excluded.burst, updated_at = excluded.updated_at`)
	})
	if err != nil {
		for _, p := range done {
			p.b.mu.Lock()
			p.b.pending += p.n
			p.b.mu.Unlock()
		}
		return fmt.Errorf("rate usage push: %w", err)
	}
	return nil
}

// pull reads the other instances' rows of the current and previous window
// and debits what each grew by since the last read.
func (l *Limiter) pull(ctx context.Context, now time.Time, win int64) error {
	since := win - l.opts.Window.Microseconds()
	rows, err := l.opts.Store.Query(ctx, `SELECT bucket, instance, window_start, used, per_second, burst, updated_at
		FROM rate_usage WHERE window_start >= ? AND instance <> ?`, since, l.opts.Instance)
	if err != nil {
		return fmt.Errorf("rate usage pull: %w", err)
	}
	defer rows.Close()
	if l.shared.seen == nil {
		l.shared.seen = map[usageKey]int64{}
	}
	type debit struct {
		name string
		lim  Limit
		n    int64
	}
	var debits []debit
	for rows.Next() {
		var (
			k         usageKey
			used      int64
			lim       Limit
			burst     int64
			updatedAt int64
		)
		if err := rows.Scan(&k.bucket, &k.instance, &k.window, &used, &lim.PerSecond, &burst, &updatedAt); err != nil {
			return fmt.Errorf("rate usage pull: %w", err)
		}
		lim.Burst = int(burst)
		prev, known := l.shared.seen[k]
		l.shared.seen[k] = used
		if lim.Unlimited() || used <= prev {
			continue
		}
		if !known {
			// A row never read before counts only when it was written
			// within the time its bucket takes to refill: older requests
			// are paid for already (this instance has just started).
			refill := time.Duration(float64(lim.Burst) / lim.PerSecond * float64(time.Second))
			if now.Sub(time.UnixMicro(updatedAt)) > refill {
				continue
			}
		}
		debits = append(debits, debit{k.bucket, normal(lim), used - prev})
	}
	if err := rows.Err(); err != nil {
		return fmt.Errorf("rate usage pull: %w", err)
	}
	for k := range l.shared.seen {
		if k.window < since {
			delete(l.shared.seen, k)
		}
	}
	for _, d := range debits {
		l.debit(d.name, d.lim, d.n, now)
	}
	return nil
}

// debit takes n tokens from name's bucket (created under lim when this
// instance has not served it), down to a debt of one burst.
func (l *Limiter) debit(name string, lim Limit, n int64, now time.Time) {
	for {
		l.mu.Lock()
		b := l.buckets[name]
		l.mu.Unlock()
		if b == nil {
			if l.Len() >= l.opts.MaxBuckets {
				return
			}
			b = l.bucket(name, lim, now, true)
		}
		b.mu.Lock()
		if b.evicted {
			b.mu.Unlock()
			continue
		}
		burst := b.limit.Burst
		room := math.Floor(b.lim.TokensAt(now) + float64(burst))
		take := min(float64(n), room)
		for take >= 1 {
			c := min(take, float64(burst))
			b.lim.ReserveN(now, int(c))
			take -= c
		}
		b.mu.Unlock()
		return
	}
}
