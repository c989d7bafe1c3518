// Package ratelimit holds Frontdesk's request rate limits (docs/contract.md,
// Rate limits): a token bucket per named bucket (an API key, a client address), each
// with its own limit, on an injectable clock. The local buckets are
// golang.org/x/time/rate limiters; Sync shares what each instance admitted
// through the database, so several instances on one PostgreSQL database hold
// one limit between them (sync.go). The request path never touches the
// database. The package knows nothing of HTTP: the front doors map a Decision
// onto their own answer (headers, a 429, a tool error).
package ratelimit

import (
	"math"
	"sync"
	"time"

	"golang.org/x/time/rate"

	"github.com/frontdesk/frontdesk/internal/clock"
	"github.com/frontdesk/frontdesk/internal/db"
)

// Limit is a token bucket: PerSecond tokens flow in, at most Burst are held,
// every request takes one. PerSecond 0 (or less) is unlimited.
type Limit struct {
	PerSecond float64
	Burst     int
}

// Unlimited reports whether the limit is off.
func (l Limit) Unlimited() bool { return l.PerSecond <= 0 }

// Decision is the answer for one request.
type Decision struct {
	Allowed bool
	// Limit is the bucket's size: the most requests admitted at once.
	Limit int
	// Remaining is how many more requests would be admitted right now.
	Remaining int
	// Reset is how long until the bucket is full again (0 when full).
	Reset time.Duration
	// RetryAfter is, for a refused request, how long until one request
	// would be admitted (0 when allowed).
	RetryAfter time.Duration
}

// Options configure a Limiter. The zero value is a local limiter on the
// system clock.
type Options struct {
	Clock clock.Clock
	// Idle is how long a bucket must go unused before it is evicted
	// (default 1 min); a bucket is only evicted once it would be full again,
	// so eviction never hands out tokens.
	Idle time.Duration
	// MaxBuckets bounds memory (default 100,000). Past it, new names share
	// one overflow bucket, so a flood of new addresses is throttled as one.
	MaxBuckets int

	// Store, when set, shares usage with the other instances on the same
	// database through Sync (sync.go). Leave it nil on SQLite, which has one
	// process.
	Store *db.DB
	// Instance names this process in the shared table (default random).
	Instance string
	// Window is the length of a usage row's window (default 10 s).
	Window time.Duration
}

// overflow is the bucket shared by names that arrive past MaxBuckets.
const overflow = "overflow" // key buckets are "key:N": no key can be named so

// Limiter holds the buckets. It is safe for concurrent use.
type Limiter struct {
	opts  Options
	clock clock.Clock

	mu        sync.Mutex
	buckets   map[string]*bucket
	lastSweep time.Time

	shared sharedState // sync.go
}

type bucket struct {
	mu       sync.Mutex
	lim      *rate.Limiter
	limit    Limit
	lastSeen time.Time
	pending  int64 // admitted since the last push to the shared table
	evicted  bool
}

// New returns a limiter.
func New(opts Options) *Limiter {
	if opts.Clock == nil {
		opts.Clock = clock.System{}
	}
	if opts.Idle <= 0 {
		opts.Idle = time.Minute
	}
	if opts.MaxBuckets <= 0 {
		opts.MaxBuckets = 100_000
	}
	if opts.Window <= 0 {
		opts.Window = 10 * time.Second
	}
	if opts.Instance == "" {
		opts.Instance = randomInstance()
	}
	return &Limiter{opts: opts, clock: opts.Clock, buckets: map[string]*bucket{}}
}

// Instance returns the name this limiter writes its usage under.
func (l *Limiter) Instance() string { return l.opts.Instance }

// Allow takes one token from name's bucket under lim. A change of lim
// applies from this call on, keeping the tokens the bucket holds.
func (l *Limiter) Allow(name string, lim Limit) Decision {
	if lim.Unlimited() {
		return unlimited(lim)
	}
	lim = normal(lim)
	now := l.clock.Now()
	for {
		b := l.bucket(name, lim, now, true)
		b.mu.Lock()
		if b.evicted { // swept between the lookup and the lock: look again
			b.mu.Unlock()
			continue
		}
		b.setLimit(lim, now)
		ok := b.lim.AllowN(now, 1)
		tokens := b.lim.TokensAt(now)
		b.lastSeen = now
		if ok && l.opts.Store != nil {
			b.pending++
		}
		b.mu.Unlock()
		return decide(ok, tokens, lim)
	}
}

// Peek reports name's bucket without taking a token.
func (l *Limiter) Peek(name string, lim Limit) Decision {
	if lim.Unlimited() {
		return unlimited(lim)
	}
	lim = normal(lim)
	now := l.clock.Now()
	l.mu.Lock()
	b := l.buckets[name]
	l.mu.Unlock()
	if b == nil {
		return decide(true, float64(lim.Burst), lim)
	}
	b.mu.Lock()
	defer b.mu.Unlock()
	return decide(true, b.lim.TokensAt(now), b.limit)
}

// unlimited is the decision for an unlimited bucket: the whole burst is
// always there.
func unlimited(lim Limit) Decision {
	n := max(lim.Burst, 1)
	return Decision{Allowed: true, Limit: n, Remaining: n}
}

func normal(lim Limit) Limit {
	lim.Burst = max(lim.Burst, 1)
	return lim
}

func decide(ok bool, tokens float64, lim Limit) Decision {
	d := Decision{Allowed: ok, Limit: lim.Burst}
	if tokens > 0 {
		d.Remaining = min(int(math.Floor(tokens)), lim.Burst)
	}
	if missing := float64(lim.Burst) - tokens; missing > 0 {
		d.Reset = seconds(missing / lim.PerSecond)
	}
	if !ok {
		d.RetryAfter = seconds((1 - tokens) / lim.PerSecond)
	}
	return d
}

func seconds(s float64) time.Duration { return time.Duration(math.Ceil(s * float64(time.Second))) }

// setLimit applies lim when it differs from the bucket's; b.mu is held.
func (b *bucket) setLimit(lim Limit, now time.Time) {
	if b.limit == lim {
		return
	}
	b.lim.SetLimitAt(now, rate.Limit(lim.PerSecond))
	b.lim.SetBurstAt(now, lim.Burst)
	b.limit = lim
}

// bucket returns name's bucket, creating it full under lim when create is
// set (nil otherwise), and sweeps idle buckets from time to time.
func (l *Limiter) bucket(name string, lim Limit, now time.Time, create bool) *bucket {
	l.mu.Lock()
	defer l.mu.Unlock()
	if now.Sub(l.lastSweep) >= l.opts.Idle || now.Before(l.lastSweep) {
		l.sweep(now)
	}
	if b := l.buckets[name]; b != nil || !create {
		return b
	}
	if len(l.buckets) >= l.opts.MaxBuckets {
		if b := l.buckets[overflow]; b != nil {
			return b
		}
		name = overflow
	}
	b := &bucket{lim: rate.NewLimiter(rate.Limit(lim.PerSecond), lim.Burst), limit: lim, lastSeen: now}
	l.buckets[name] = b
	return b
}

// sweep evicts the buckets unused for Idle that are full again (so a new
// bucket would be no different) and have nothing left to push; l.mu is held.
func (l *Limiter) sweep(now time.Time) {
	l.lastSweep = now
	for name, b := range l.buckets {
		b.mu.Lock()
		full := b.lim.TokensAt(now) >= float64(b.limit.Burst)
		if now.Sub(b.lastSeen) >= l.opts.Idle && full && b.pending == 0 {
			b.evicted = true
			delete(l.buckets, name)
		}
		b.mu.Unlock()
	}
}

// Len returns the number of buckets held (for tests and metrics).
func (l *Limiter) Len() int {
	l.mu.Lock()
	defer l.mu.Unlock()
	return len(l.buckets)
}
