package main

import (
	"flag"
	"fmt"
	"time"

	"github.com/frontdesk/frontdesk/internal/clock"
)

// shutdownRange bounds serve --shutdown-timeout: 0 (stop at once) to ten
// minutes (what a process supervisor waits, at most, before killing).
var shutdownRange = clock.Range{Min: 0, Max: 10 * time.Minute}

// durationIn is a duration flag that takes only values within its range,
// the one the area owning the duration declares (account.SessionIdle,
// pipeline.BatchWait, …): the flag package then refuses 1ns, a negative
// or a century as a usage error naming the flag.
type durationIn struct {
	d *time.Duration
	r clock.Range
}

func (v durationIn) String() string {
	if v.d == nil {
		return ""
	}
	return v.d.String()
}

func (v durationIn) Set(s string) error {
	d, err := time.ParseDuration(s)
	if err != nil {
		return fmt.Errorf("not a duration such as 500ms, 2s or 1h")
	}
	if !v.r.Contains(d) {
		return fmt.Errorf("%s is outside %s", s, v.r)
	}
	*v.d = d
	return nil
}

// DurationIn defines a duration flag that must lie within r; the usage
// states the range.
func (f *flags) DurationIn(name string, value time.Duration, r clock.Range, usage string) *time.Duration {
	d := value
	f.Var(durationIn{&d, r}, name, fmt.Sprintf("%s (a `duration` from %s)", usage, r))
	return &d
}

var _ flag.Value = durationIn{}
