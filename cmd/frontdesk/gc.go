package main

import "runtime/debug"

// Garbage-collector settings of serve (docs/performance.md, "Memory and the
// garbage collector"): a batch makes a few megabytes of short-lived garbage
// over a live heap of a few tens, so Go's default (collect when the heap
// doubles) spent an eighth of a busy server's CPU marking. Collecting at
// five times the live heap, under a soft limit that keeps the process well
// below 150 MB, trades idle memory for that CPU. GOGC and GOMEMLIMIT, when
// set, win.
const (
	serveGCPercent   = 400
	serveMemoryLimit = 112 << 20
)

func tuneGC(env *Env) {
	if env.Getenv("GOGC") == "" {
		debug.SetGCPercent(serveGCPercent)
	}
	if env.Getenv("GOMEMLIMIT") == "" {
		debug.SetMemoryLimit(serveMemoryLimit)
	}
}
