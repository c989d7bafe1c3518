package contact

import (
	"fmt"
	"hash/fnv"
	"strconv"
	"testing"

	"github.com/frontdesk/frontdesk/internal/account"
)

// TestLockKeyFormula holds lockKey to the formula every instance shares:
// two instances of different versions must lock the same key for the same
// phone, e-mail or id.
func TestLockKeyFormula(t *testing.T) {
	tests := []struct {
		acct      int64
		kind, val string
	}{
		{1, "p", "612345678"},
		{42, "e", "maria.garcia@example.com"},
		{9_223_372_036_854_775_807, "i", strconv.FormatInt(123456, 10)},
		{-3, "e", "josé@ejemplo.es"},
		{7, "p", ""},
	}
	for _, tt := range tests {
		h := fnv.New64a()
		fmt.Fprintf(h, "clients/%d/%s/%s", tt.acct, tt.kind, tt.val)
		if got, want := lockKey(account.Account{ID: tt.acct}, tt.kind, tt.val), int64(h.Sum64()); got != want {
			t.Errorf("lockKey(%d, %q, %q) = %d, want %d", tt.acct, tt.kind, tt.val, got, want)
		}
	}
}

func BenchmarkLockKey(b *testing.B) {
	acct := account.Account{ID: 12}
	for b.Loop() {
		lockKey(acct, "e", "maria.garcia@example.com")
	}
}
