package ratelimit_test

import (
	"context"
	"testing"
	"time"

	"github.com/frontdesk/frontdesk/internal/clock"
	"github.com/frontdesk/frontdesk/internal/db"
	"github.com/frontdesk/frontdesk/internal/db/dbtest"
	"github.com/frontdesk/frontdesk/internal/ratelimit"
)

var start = time.Date(2026, 11, 23, 9, 0, 0, 0, time.UTC)

func TestBucket(t *testing.T) {
	for _, test := range []struct {
		name  string
		lim   ratelimit.Limit
		burst int // requests admitted at once
		retry time.Duration
		reset time.Duration // once empty
	}{
		{"defaults", ratelimit.Limit{PerSecond: 100, Burst: 200}, 200, 10 * time.Millisecond, 2 * time.Second},
		{"slow", ratelimit.Limit{PerSecond: 0.5, Burst: 1}, 1, 2 * time.Second, 2 * time.Second},
		{"burst 0 is 1", ratelimit.Limit{PerSecond: 4, Burst: 0}, 1, 250 * time.Millisecond, 250 * time.Millisecond},
	} {
		t.Run(test.name, func(t *testing.T) {
			clk := clock.NewFake(start)
			l := ratelimit.New(ratelimit.Options{Clock: clk})
			for i := 0; i < test.burst; i++ {
				d := l.Allow("k", test.lim)
				if !d.Allowed || d.Remaining != test.burst-1-i || d.Limit != test.burst {
					t.Fatalf("request %d: %+v, want allowed with %d remaining of %d", i+1, d, test.burst-1-i, test.burst)
				}
			}
			d := l.Allow("k", test.lim)
			if d.Allowed || d.Remaining != 0 || d.RetryAfter != test.retry || d.Reset != test.reset {
				t.Fatalf("past the burst: %+v, want refused, retry after %v, reset %v", d, test.retry, test.reset)
			}
			clk.Advance(test.retry - time.Microsecond)
			if d := l.Allow("k", test.lim); d.Allowed {
				t.Fatalf("admitted before Retry-After: %+v", d)
			}
			clk.Advance(time.Microsecond)
			if d := l.Allow("k", test.lim); !d.Allowed {
				t.Fatalf("refused at Retry-After: %+v", d)
			}
			clk.Advance(time.Hour)
			if d := l.Peek("k", test.lim); d.Remaining != test.burst || d.Reset != 0 {
				t.Fatalf("after an hour: %+v, want full", d)
			}
		})
	}
}

func TestUnlimitedAndIndependent(t *testing.T) {
	clk := clock.NewFake(start)
	l := ratelimit.New(ratelimit.Options{Clock: clk})
	for i := 0; i < 1000; i++ {
		if d := l.Allow("free", ratelimit.Limit{PerSecond: 0, Burst: 50}); !d.Allowed || d.Remaining != 50 || d.Limit != 50 || d.Reset != 0 {
			t.Fatalf("unlimited: %+v", d)
		}
	}
	lim := ratelimit.Limit{PerSecond: 1, Burst: 2}
	l.Allow("a", lim)
	l.Allow("a", lim)
	if l.Allow("a", lim).Allowed {
		t.Fatal("a: admitted past its burst")
	}
	if d := l.Allow("b", lim); !d.Allowed || d.Remaining != 1 {
		t.Fatalf("b shares a's bucket: %+v", d)
	}
	if l.Len() != 2 {
		t.Fatalf("%d buckets, want 2 (unlimited takes none)", l.Len())
	}
}

func TestLimitChangeKeepsTokens(t *testing.T) {
	clk := clock.NewFake(start)
	l := ratelimit.New(ratelimit.Options{Clock: clk})
	for i := 0; i < 10; i++ {
		l.Allow("k", ratelimit.Limit{PerSecond: 10, Burst: 10})
	}
	d := l.Allow("k", ratelimit.Limit{PerSecond: 1000, Burst: 2000})
	if d.Allowed || d.Limit != 2000 {
		t.Fatalf("raised limit: %+v, want the empty bucket kept under the new limit", d)
	}
	clk.Advance(time.Second)
	if d := l.Allow("k", ratelimit.Limit{PerSecond: 1000, Burst: 2000}); !d.Allowed || d.Remaining != 999 {
		t.Fatalf("a second later: %+v, want 1000 refilled at the new rate", d)
	}
}

func TestEviction(t *testing.T) {
	clk := clock.NewFake(start)
	l := ratelimit.New(ratelimit.Options{Clock: clk, Idle: time.Minute, MaxBuckets: 3})
	slow := ratelimit.Limit{PerSecond: 0.01, Burst: 2} // 200 s to refill
	fast := ratelimit.Limit{PerSecond: 100, Burst: 200}
	l.Allow("slow", slow)
	l.Allow("fast", fast)
	clk.Advance(61 * time.Second)
	l.Allow("other", fast) // sweeps
	if l.Len() != 2 {
		t.Fatalf("%d buckets after a minute, want 2 (fast evicted, slow not yet full)", l.Len())
	}
	if d := l.Allow("slow", slow); d.Remaining != 0 {
		t.Fatalf("slow lost its state: %+v", d)
	}
	// Past MaxBuckets new names share one overflow bucket.
	l.Allow("n1", slow)
	d1 := l.Allow("n2", slow)
	l.Allow("n3", slow)
	d2 := l.Allow("n4", slow)
	if l.Len() != 4 || !d1.Allowed || d2.Allowed {
		t.Fatalf("overflow: %d buckets, %+v, %+v; want 4 buckets and n2, n3, n4 sharing a burst of 2", l.Len(), d1, d2)
	}
}

// TestSharedAcrossInstances runs two limiters on one database, each offered
// three times the limit, on a fake clock with a sync every 200 ms. Together
// they must admit what one bucket would (rate × time + burst) within the
// tolerance sync.go documents: (instances - 1) × (burst + rate × interval)
// more at the start, at most (instances - 1) × rate × interval per second
// of flood after.
func TestSharedAcrossInstances(t *testing.T) {
	dbtest.Engines(t, func(t *testing.T, store *db.DB) {
		ctx := context.Background()
		clk := clock.NewFake(start)
		lim := ratelimit.Limit{PerSecond: 100, Burst: 200}
		a := ratelimit.New(ratelimit.Options{Clock: clk, Store: store, Instance: "a"})
		b := ratelimit.New(ratelimit.Options{Clock: clk, Store: store, Instance: "b"})
		const (
			step     = time.Millisecond
			interval = 200 * time.Millisecond
			total    = 10 * time.Second
		)
		admitted := map[bool]int{} // by "after the first two seconds"
		for el := time.Duration(0); el < total; el += step {
			// 300 requests per second to each instance.
			for _, l := range []*ratelimit.Limiter{a, b} {
				if int(el/step)%10 < 3 {
					if l.Allow("key:1", lim).Allowed {
						admitted[el >= 2*time.Second]++
					}
				}
			}
			clk.Advance(step)
			if el%interval == interval-step {
				for _, l := range []*ratelimit.Limiter{a, b} {
					if err := l.Sync(ctx); err != nil {
						t.Fatal(err)
					}
				}
			}
		}
		first, rest := admitted[false], admitted[true]
		// One bucket: 200 + 2 s × 100 in the first two seconds, 800 after.
		t.Logf("admitted %d in the first 2 s (one bucket: 400), %d in the next 8 s (one bucket: 800)", first, rest)
		if first < 360 || first > 400+220 {
			t.Errorf("first 2 s: %d admitted, want 400 within [-40, +220]", first)
		}
		if rest < 720 || rest > 800+8*20 {
			t.Errorf("next 8 s: %d admitted, want 800 within [-80, +160]", rest)
		}
	})
}

// TestSharedFirstSight: an instance that never served a key takes the other
// instance's recent use at its first sync, and old use not at all.
func TestSharedFirstSight(t *testing.T) {
	dbtest.Engines(t, func(t *testing.T, store *db.DB) {
		ctx := context.Background()
		clk := clock.NewFake(start)
		lim := ratelimit.Limit{PerSecond: 10, Burst: 20}
		a := ratelimit.New(ratelimit.Options{Clock: clk, Store: store, Instance: "a"})
		for i := 0; i < 20; i++ {
			a.Allow("key:7", lim)
		}
		if err := a.Sync(ctx); err != nil {
			t.Fatal(err)
		}
		b := ratelimit.New(ratelimit.Options{Clock: clk, Store: store, Instance: "b"})
		if err := b.Sync(ctx); err != nil {
			t.Fatal(err)
		}
		if d := b.Allow("key:7", lim); d.Allowed {
			t.Fatalf("b admitted a key whose burst a had just used: %+v", d)
		}
		// A third instance starting 3 s later (the bucket refills in 2 s)
		// owes nothing.
		clk.Advance(3 * time.Second)
		c := ratelimit.New(ratelimit.Options{Clock: clk, Store: store, Instance: "c"})
		if err := c.Sync(ctx); err != nil {
			t.Fatal(err)
		}
		if d := c.Allow("key:7", lim); !d.Allowed || d.Remaining != 19 {
			t.Fatalf("c debited for old use: %+v", d)
		}
		// Rows older than two windows are swept.
		clk.Advance(time.Minute)
		for _, l := range []*ratelimit.Limiter{a, c} {
			if err := l.Sync(ctx); err != nil {
				t.Fatal(err)
			}
		}
		var n int
		if err := store.QueryRow(ctx, `SELECT COUNT(*) FROM rate_usage WHERE window_start < ?`, clk.Now().Add(-30*time.Second).UnixMicro()).Scan(&n); err != nil {
			t.Fatal(err)
		}
		if n != 0 {
			t.Fatalf("%d old rows left", n)
		}
	})
}

// Without a store Sync is a no-op: instances limit on their own.
func TestLocalOnly(t *testing.T) {
	l := ratelimit.New(ratelimit.Options{Clock: clock.NewFake(start)})
	if err := l.Sync(context.Background()); err != nil {
		t.Fatal(err)
	}
	if l.Instance() == "" {
		t.Fatal("no instance name")
	}
}

func BenchmarkAllow(b *testing.B) {
	l := ratelimit.New(ratelimit.Options{})
	lim := ratelimit.Limit{PerSecond: 1e9, Burst: 1 << 30}
	b.ReportAllocs()
	b.RunParallel(func(pb *testing.PB) {
		for pb.Next() {
			l.Allow("key:1", lim)
		}
	})
}
