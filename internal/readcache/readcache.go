// Package readcache keeps per-account, in-memory snapshots of the small
// catalogue reads (the bookable services; the pipelines, their stages and
// input nodes), so the most-read endpoints answer without a database round
// trip. The areas own what goes in a snapshot and how it is loaded; this
// package owns when a snapshot may be reused.
//
// A snapshot is at most MaxAge old, the bound the API-key cache keeps
// (account.Authenticator): a write through another instance, or another
// process such as `frontdesk workspace apply`, shows within it. A write
// through this process shows at once: the area that writes calls Changed
// with its transaction, which forgets the account's snapshots of that part
// now and again when the transaction commits, and a load that overlapped a
// write is never kept. A write whose effect is known (cards placed: the
// counts grow by as many) calls Adjusted instead, and the snapshots take
// the change in at the commit rather than being read again.
//
// Snapshots are keyed by account id (and the part and a name within it),
// never by anything a caller sends, so one account's snapshot can never
// answer another's request. They live on the database handle (db.DB.Local),
// bounded to maxEntries in all; the areas bound each snapshot's size.
package readcache

import (
	"context"
	"sync"
	"time"

	"github.com/frontdesk/frontdesk/internal/db"
)

// MaxAge is how old a snapshot may be when it answers.
const MaxAge = time.Second

// Part is a group of snapshots a write invalidates together.
type Part uint8

const (
	// Calendar: the bookable services with their professionals and event
	// types.
	Calendar Part = iota + 1
	// Pipelines: pipelines, stages and input nodes, with their client
	// counts (so every card write changes it).
	Pipelines
)

const (
	// maxEntries bounds the snapshots one handle keeps; beyond it a random
	// one makes room.
	maxEntries = 4096
	// slots is the number of write counters; an account's part maps to one.
	// Two parts sharing a slot only cost a reload.
	slots = 1024
)

type key struct {
	part    Part
	account int64
	name    string
}

type entry struct {
	snap     any // *Snapshot[T]
	gen      uint64
	loadedAt time.Time
}

// cache is one handle's snapshots.
type cache struct {
	mu      sync.Mutex
	entries map[key]entry
	// gens counts the writes to each (part, account) slot: a snapshot
	// loaded under an older count is stale.
	gens [slots]uint64
}

type localKey struct{}

func cacheOf(store *db.DB) *cache {
	return store.Local(localKey{}, func() any { return &cache{entries: map[key]entry{}} }).(*cache)
}

func slot(part Part, account int64) int {
	h := uint64(account)*0x9E3779B97F4A7C15 ^ uint64(part)*0xBF58476D1CE4E5B9
	h ^= h >> 31
	return int(h % slots)
}

// Snapshot is a loaded value shared by every request that reuses it: its
// Value must never be modified.
type Snapshot[T any] struct {
	Value T

	mu      sync.Mutex
	encoded map[string][]byte
}

// Encoded returns what enc makes of the value, made once per snapshot and
// name: a front door keeps its encoded answer beside the value, so it lives
// and dies with it.
func (s *Snapshot[T]) Encoded(name string, enc func(T) ([]byte, error)) ([]byte, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if b, ok := s.encoded[name]; ok {
		return b, nil
	}
	b, err := enc(s.Value)
	if err != nil {
		return nil, err
	}
	if s.encoded == nil {
		s.encoded = map[string][]byte{}
	}
	s.encoded[name] = b
	return b, nil
}

// Get returns the account's snapshot named name in part, loading it with
// load when there is none younger than MaxAge at now, or a write through
// this process came after it. A failed load is not kept.
func Get[T any](ctx context.Context, store *db.DB, part Part, account int64, name string, now time.Time,
	load func(context.Context) (T, error)) (*Snapshot[T], error) {
	c := cacheOf(store)
	k := key{part, account, name}
	i := slot(part, account)
	c.mu.Lock()
	e, ok := c.entries[k]
	gen := c.gens[i]
	c.mu.Unlock()
	if ok && e.gen == gen && now.Sub(e.loadedAt) < MaxAge && !now.Before(e.loadedAt) {
		if s, ok := e.snap.(*Snapshot[T]); ok {
			return s, nil
		}
	}
	v, err := load(ctx)
	if err != nil {
		return nil, err
	}
	s := &Snapshot[T]{Value: v}
	c.mu.Lock()
	if c.gens[i] == gen { // no write came while loading
		if _, ok := c.entries[k]; !ok && len(c.entries) >= maxEntries {
			for old := range c.entries {
				delete(c.entries, old)
				break
			}
		}
		c.entries[k] = entry{snap: s, gen: gen, loadedAt: now}
	}
	c.mu.Unlock()
	return s, nil
}

// Changed records a write to the account's part through q: its snapshots
// are forgotten now and, when q is a transaction, again once it commits (a
// load between the two saw the old rows).
func Changed(q db.Querier, part Part, account int64) {
	var store *db.DB
	switch q := q.(type) {
	case *db.DB:
		store = q
	case *db.Tx:
		store = q.Handle()
		c := cacheOf(store)
		q.AfterCommit(func() { c.bump(part, account) })
	default:
		return
	}
	cacheOf(store).bump(part, account)
}

func (c *cache) bump(part Part, account int64) {
	c.mu.Lock()
	c.gens[slot(part, account)]++
	c.mu.Unlock()
}

// Adjusted records a write to the account's part through tx whose effect on
// the snapshots is known, such as cards placed on a stage (their counts
// grow by as many). When tx commits, each of the part's snapshots loaded
// before the commit becomes what adjust makes of it, instead of being
// forgotten and read again: adjust gets the snapshot's name and the
// snapshot (*Snapshot[T]; Rewrite makes the new one) and returns the new
// snapshot, or false to forget it; it runs under the cache's lock, so it
// must not call back into this package. The snapshots stay as they are
// while tx runs (its rows are not there for anyone else yet).
//
// A load that overlaps the commit is never kept: the moment before COMMIT
// counts as a write, so such a load, which may or may not have seen tx's
// rows, is not adjusted. If any other write to the slot came between that
// moment and the commit's end (another transaction, or Changed in this
// one), the snapshots are forgotten as Changed forgets them.
func Adjusted(tx *db.Tx, part Part, account int64, adjust func(name string, snap any) (any, bool)) {
	c := cacheOf(tx.Handle())
	i := slot(part, account)
	var pre uint64
	tx.BeforeCommit(func() {
		c.mu.Lock()
		pre = c.gens[i]
		c.gens[i]++
		c.mu.Unlock()
	})
	tx.AfterCommit(func() {
		c.mu.Lock()
		defer c.mu.Unlock()
		if c.gens[i] != pre+1 {
			c.gens[i]++
			return
		}
		next := pre + 2
		for k, e := range c.entries {
			if e.gen != pre || slot(k.part, k.account) != i {
				continue // stale already, or another slot
			}
			if k.part != part || k.account != account {
				e.gen = next // shares the slot, untouched by the write
				c.entries[k] = e
				continue
			}
			if snap, ok := adjust(k.name, e.snap); ok {
				c.entries[k] = entry{snap: snap, gen: next, loadedAt: e.loadedAt}
			} else {
				delete(c.entries, k)
			}
		}
		c.gens[i] = next
	})
}

// Rewrite returns a new snapshot holding what fn makes of snap's value,
// when snap holds a T. fn must not modify the value it is given (a copy
// it changes is the new value).
func Rewrite[T any](snap any, fn func(T) T) (any, bool) {
	s, ok := snap.(*Snapshot[T])
	if !ok {
		return nil, false
	}
	return &Snapshot[T]{Value: fn(s.Value)}, true
}
