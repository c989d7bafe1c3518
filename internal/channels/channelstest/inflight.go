package channelstest

import (
	"net/http"
	"sync"
)

// InFlight counts the requests a fake (or several: Handler) answers at
// once, and the most it ever answered at once.
type InFlight struct {
	mu        sync.Mutex
	now, peak int
}

// Enter counts a request in; the function it returns counts it out.
func (c *InFlight) Enter() (leave func()) {
	c.mu.Lock()
	c.now++
	c.peak = max(c.peak, c.now)
	c.mu.Unlock()
	return func() {
		c.mu.Lock()
		c.now--
		c.mu.Unlock()
	}
}

// Handler counts the requests h answers.
func (c *InFlight) Handler(h http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		defer c.Enter()()
		h.ServeHTTP(w, r)
	})
}

// Peak is the most requests answered at once.
func (c *InFlight) Peak() int {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.peak
}
