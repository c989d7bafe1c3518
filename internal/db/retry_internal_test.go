package db

import (
	"testing"
	"time"
)

// Retries of a failed transaction wait a random time under a ceiling that
// doubles from 5 ms and stops at 200 ms.
func TestRetryPause(t *testing.T) {
	for _, test := range []struct {
		retry   int
		ceiling time.Duration
	}{{1, 5 * time.Millisecond}, {2, 10 * time.Millisecond}, {3, 20 * time.Millisecond}, {7, 200 * time.Millisecond}, {80, 200 * time.Millisecond}} {
		if got := retryPause(test.retry, 0); got != 0 {
			t.Errorf("retry %d, u=0: %v", test.retry, got)
		}
		if got := retryPause(test.retry, 0.999999); got >= test.ceiling || got < test.ceiling*99/100 {
			t.Errorf("retry %d, u→1: %v, want just under %v", test.retry, got, test.ceiling)
		}
		if got := retryPause(test.retry, 0.5); got != test.ceiling/2 {
			t.Errorf("retry %d, u=0.5: %v, want %v", test.retry, got, test.ceiling/2)
		}
	}
}
