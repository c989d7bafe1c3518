// Package clock is the one source of time in Frontdesk. Every schedule, TTL
// and timestamp reads it, so tests can move time instead of sleeping.
package clock

import (
	"fmt"
	"strconv"
	"strings"
	"sync"
	"time"
)

// Clock tells the current time.
type Clock interface {
	Now() time.Time
}

// System is the wall clock.
type System struct{}

// Now returns the current UTC time truncated to microseconds, the precision
// both storage engines keep.
func (System) Now() time.Time { return time.Now().UTC().Truncate(time.Microsecond) }

// Fake is a settable clock for tests. The zero value starts at the Unix epoch.
type Fake struct {
	mu  sync.Mutex
	now time.Time
}

// NewFake returns a fake clock set to t.
func NewFake(t time.Time) *Fake { return &Fake{now: t.UTC().Truncate(time.Microsecond)} }

// Now returns the fake time.
func (f *Fake) Now() time.Time {
	f.mu.Lock()
	defer f.mu.Unlock()
	return f.now
}

// Set moves the clock to t.
func (f *Fake) Set(t time.Time) {
	f.mu.Lock()
	f.now = t.UTC().Truncate(time.Microsecond)
	f.mu.Unlock()
}

// Advance moves the clock forward by d.
func (f *Fake) Advance(d time.Duration) {
	f.mu.Lock()
	f.now = f.now.Add(d)
	f.mu.Unlock()
}

// Format renders an instant the way every response does: UTC, RFC 3339,
// at most microseconds, ending in Z.
func Format(t time.Time) string {
	return t.UTC().Truncate(time.Microsecond).Format(time.RFC3339Nano)
}

// maxDays is the most days a time.Duration holds (about 292 years): more
// would wrap around.
const maxDays = int(1<<63-1) / int(24*time.Hour)

// ParseDuration reads "15m", "2h", "1h30m" and also whole days ("1d"), as
// workspace files and stored settings (reminders, sequence steps) write
// them. Negative durations are refused.
func ParseDuration(s string) (time.Duration, error) {
	s = strings.TrimSpace(s)
	if d, ok := strings.CutSuffix(s, "d"); ok {
		n, err := strconv.Atoi(d)
		if err != nil || n < 0 || n > maxDays {
			return 0, fmt.Errorf("invalid duration %q", s)
		}
		return time.Duration(n) * 24 * time.Hour, nil
	}
	d, err := time.ParseDuration(s)
	if err != nil || d < 0 {
		return 0, fmt.Errorf("invalid duration %q", s)
	}
	return d, nil
}
