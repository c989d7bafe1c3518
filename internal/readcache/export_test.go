package readcache

import "github.com/frontdesk/frontdesk/internal/db"

// Len is how many snapshots store's cache holds.
func Len(store *db.DB) int {
	c := cacheOf(store)
	c.mu.Lock()
	defer c.mu.Unlock()
	return len(c.entries)
}

const MaxEntries = maxEntries
