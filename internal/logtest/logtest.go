// Package logtest holds what a test needs to read a log (or any output,
// such as an import's result file) while a server, a store or a run writes
// it from other goroutines.
package logtest

import (
	"bytes"
	"sync"
)

// Buffer is a bytes.Buffer safe for other goroutines to write while the
// test reads it.
type Buffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (s *Buffer) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.Write(p)
}

func (s *Buffer) String() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.String()
}
