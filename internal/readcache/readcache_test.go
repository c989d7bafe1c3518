package readcache_test

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/frontdesk/frontdesk/internal/clock"
	"github.com/frontdesk/frontdesk/internal/db"
	"github.com/frontdesk/frontdesk/internal/db/dbtest"
	"github.com/frontdesk/frontdesk/internal/readcache"
)

// loader counts its loads and answers "<account>#<load>".
type loader struct{ n atomic.Int64 }

func (l *loader) get(t *testing.T, store *db.DB, part readcache.Part, acct int64, now time.Time) string {
	t.Helper()
	s, err := readcache.Get(context.Background(), store, part, acct, "list", now, func(context.Context) (string, error) {
		return fmt.Sprintf("%d#%d", acct, l.n.Add(1)), nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return s.Value
}

func TestStaleness(t *testing.T) {
	dbtest.Engines(t, func(t *testing.T, store *db.DB) {
		clk := clock.NewFake(time.Date(2026, 11, 24, 9, 0, 0, 0, time.UTC))
		var l loader
		if got := l.get(t, store, readcache.Calendar, 1, clk.Now()); got != "1#1" {
			t.Fatalf("first read %q", got)
		}
		clk.Advance(readcache.MaxAge - time.Microsecond)
		if got := l.get(t, store, readcache.Calendar, 1, clk.Now()); got != "1#1" {
			t.Errorf("within MaxAge: %q, want the snapshot", got)
		}
		clk.Advance(time.Microsecond)
		if got := l.get(t, store, readcache.Calendar, 1, clk.Now()); got != "1#2" {
			t.Errorf("at MaxAge: %q, want a reload", got)
		}
		// A clock that went back never makes a snapshot young again.
		if got := l.get(t, store, readcache.Calendar, 1, clk.Now().Add(-time.Hour)); got != "1#3" {
			t.Errorf("clock went back: %q, want a reload", got)
		}
	})
}

// One account's snapshot never answers another's read, whatever was read
// before, and a write to one account leaves the other's snapshot alone.
func TestTenancy(t *testing.T) {
	dbtest.Engines(t, func(t *testing.T, store *db.DB) {
		now := time.Date(2026, 11, 24, 9, 0, 0, 0, time.UTC)
		var l loader
		a := l.get(t, store, readcache.Calendar, 1, now)
		b := l.get(t, store, readcache.Calendar, 2, now)
		if a != "1#1" || b != "2#2" {
			t.Fatalf("A %q, B %q", a, b)
		}
		for i := 0; i < 3; i++ {
			if got := l.get(t, store, readcache.Calendar, 2, now); got != b {
				t.Errorf("B read %q, want its own %q", got, b)
			}
			if got := l.get(t, store, readcache.Calendar, 1, now); got != a {
				t.Errorf("A read %q, want its own %q", got, a)
			}
		}
		readcache.Changed(store, readcache.Calendar, 1)
		if got := l.get(t, store, readcache.Calendar, 2, now); got != b {
			t.Errorf("B after a write to A: %q, want its snapshot %q", got, b)
		}
		if got := l.get(t, store, readcache.Calendar, 1, now); got != "1#3" {
			t.Errorf("A after its write: %q, want a reload", got)
		}
		// Another part of the same account is kept apart too.
		if got := l.get(t, store, readcache.Pipelines, 1, now); got != "1#4" {
			t.Errorf("pipelines of A: %q, want its own load", got)
		}
	})
}

// A write through a transaction shows at once after the commit; a
// rolled-back one only costs a reload; a load that overlapped a write is
// not kept.
func TestChanged(t *testing.T) {
	dbtest.Engines(t, func(t *testing.T, store *db.DB) {
		ctx := context.Background()
		now := time.Date(2026, 11, 24, 9, 0, 0, 0, time.UTC)
		var l loader
		l.get(t, store, readcache.Pipelines, 7, now) // 7#1
		err := store.Transact(ctx, func(tx *db.Tx) error {
			readcache.Changed(tx, readcache.Pipelines, 7)
			// A read inside the write (the old rows) is not what is
			// answered after the commit.
			if got := l.get(t, store, readcache.Pipelines, 7, now); got != "7#2" {
				t.Errorf("during the write: %q", got)
			}
			return nil
		})
		if err != nil {
			t.Fatal(err)
		}
		if got := l.get(t, store, readcache.Pipelines, 7, now); got != "7#3" {
			t.Errorf("after the commit: %q, want a reload", got)
		}
		if got := l.get(t, store, readcache.Pipelines, 7, now); got != "7#3" {
			t.Errorf("then: %q, want the snapshot", got)
		}
		errRollback := errors.New("rollback")
		if err := store.Transact(ctx, func(tx *db.Tx) error {
			readcache.Changed(tx, readcache.Pipelines, 7)
			return errRollback
		}); err != errRollback {
			t.Fatal(err)
		}
		l.get(t, store, readcache.Pipelines, 7, now) // 7#4
		// A write that lands while a load runs: that load is answered
		// but not kept.
		s, err := readcache.Get(ctx, store, readcache.Pipelines, 7, "list", now.Add(2*time.Second), func(context.Context) (string, error) {
			readcache.Changed(store, readcache.Pipelines, 7)
			return "overlapped", nil
		})
		if err != nil || s.Value != "overlapped" {
			t.Fatalf("%v %v", s, err)
		}
		if got := l.get(t, store, readcache.Pipelines, 7, now.Add(2*time.Second)); got != "7#5" {
			t.Errorf("after an overlapped load: %q, want a reload", got)
		}
		// A failed load is not kept either.
		boom := errors.New("boom")
		if _, err := readcache.Get(ctx, store, readcache.Pipelines, 8, "list", now, func(context.Context) (string, error) { return "", boom }); err != boom {
			t.Errorf("failed load: %v", err)
		}
		if got := l.get(t, store, readcache.Pipelines, 8, now); got != "8#6" {
			t.Errorf("after a failed load: %q", got)
		}
	})
}

// Two handles never share snapshots, and one handle keeps a bounded number.
func TestBounded(t *testing.T) {
	store := dbtest.Open(t, db.SQLite)
	other := dbtest.Open(t, db.SQLite)
	now := time.Date(2026, 11, 24, 9, 0, 0, 0, time.UTC)
	var l loader
	for acct := int64(1); acct <= readcache.MaxEntries+100; acct++ {
		l.get(t, store, readcache.Calendar, acct, now)
	}
	if n := readcache.Len(store); n != readcache.MaxEntries {
		t.Errorf("%d snapshots kept, want at most %d", n, readcache.MaxEntries)
	}
	if n := readcache.Len(other); n != 0 {
		t.Errorf("another handle holds %d snapshots", n)
	}
}

// Readers and writers of many accounts at once (go test -race): every read
// answers its own account's value.
func TestConcurrent(t *testing.T) {
	store := dbtest.Open(t, db.SQLite)
	clk := clock.NewFake(time.Date(2026, 11, 24, 9, 0, 0, 0, time.UTC))
	var wg sync.WaitGroup
	for g := 0; g < 8; g++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := 0; i < 500; i++ {
				acct := int64(i%5 + 1)
				if i%7 == g {
					readcache.Changed(store, readcache.Calendar, acct)
				}
				if i%50 == 0 {
					clk.Advance(100 * time.Millisecond)
				}
				s, err := readcache.Get(context.Background(), store, readcache.Calendar, acct, "list", clk.Now(), func(context.Context) (int64, error) {
					return acct, nil
				})
				if err != nil {
					t.Error(err)
					return
				}
				if got, _ := s.Encoded("n", func(v int64) ([]byte, error) { return []byte(fmt.Sprint(v)), nil }); string(got) != fmt.Sprint(acct) || s.Value != acct {
					t.Errorf("account %d read %d (%s)", acct, s.Value, got)
					return
				}
			}
		}()
	}
	wg.Wait()
}

// Adjusted: the snapshot takes a committed write in without a reload, and
// stays as it was while the write runs or when it rolls back; a load that
// overlaps the commit is never kept, and another write in the same
// transaction makes the commit forget instead.
func TestAdjusted(t *testing.T) {
	dbtest.Engines(t, func(t *testing.T, store *db.DB) {
		ctx := context.Background()
		now := time.Date(2026, 11, 24, 9, 0, 0, 0, time.UTC)
		var l loader
		get := func() string { t.Helper(); return l.get(t, store, readcache.Pipelines, 1, now) }
		plus := func(name string, snap any) (any, bool) {
			if name != "list" {
				return nil, false
			}
			return readcache.Rewrite(snap, func(v string) string { return v + "+" })
		}
		rollback := errors.New("rollback")
		write := func(fn func(tx *db.Tx)) error {
			return store.Transact(ctx, func(tx *db.Tx) error {
				fn(tx)
				return nil
			})
		}
		other := l.get(t, store, readcache.Calendar, 2, now)
		if got := get(); got != "1#2" {
			t.Fatalf("first read %q", got)
		}
		if err := write(func(tx *db.Tx) {
			readcache.Adjusted(tx, readcache.Pipelines, 1, plus)
			if got := get(); got != "1#2" {
				t.Errorf("while the write runs: %q, want the snapshot as it was", got)
			}
		}); err != nil {
			t.Fatal(err)
		}
		if got := get(); got != "1#2+" {
			t.Errorf("after the commit: %q, want the snapshot adjusted, not reloaded", got)
		}
		if err := store.Transact(ctx, func(tx *db.Tx) error {
			readcache.Adjusted(tx, readcache.Pipelines, 1, plus)
			return rollback
		}); err != rollback {
			t.Fatal(err)
		}
		if got := get(); got != "1#2+" {
			t.Errorf("after a rollback: %q, want the snapshot unchanged", got)
		}

		// A load between the moment before COMMIT and the commit's end may
		// or may not have seen the write: it answers, and is not kept.
		var during string
		if err := write(func(tx *db.Tx) {
			readcache.Adjusted(tx, readcache.Pipelines, 1, plus)
			tx.BeforeCommit(func() { during = get() })
		}); err != nil {
			t.Fatal(err)
		}
		if during != "1#3" {
			t.Errorf("a read at the commit: %q, want a load", during)
		}
		if got := get(); got != "1#4" {
			t.Errorf("after a commit a load overlapped: %q, want a reload", got)
		}

		if err := write(func(tx *db.Tx) {
			readcache.Adjusted(tx, readcache.Pipelines, 1, plus)
			readcache.Changed(tx, readcache.Pipelines, 1)
		}); err != nil {
			t.Fatal(err)
		}
		if got := get(); got != "1#5" {
			t.Errorf("after a write with another change: %q, want a reload", got)
		}
		if got := l.get(t, store, readcache.Calendar, 2, now); got != other {
			t.Errorf("another account's snapshot: %q, want %q", got, other)
		}
	})
}
