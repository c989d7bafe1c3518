package chat_test

import (
	"testing"

	"github.com/frontdesk/frontdesk/internal/chat"
)

func TestTruncate(t *testing.T) {
	for _, test := range []struct {
		name, in string
		n        int
		want     string
	}{
		{"short", "Hola", 10, "Hola"},
		{"exact", "0123456789", 10, "0123456789"},
		{"cut", "0123456789ab", 10, "012345678…"},
		{"spaces folded", "  Hola\n\n  qué   tal  ", 20, "Hola qué tal"},
		{"characters, not bytes", "ñññññññññññ", 5, "ññññ…"},
		{"no space before the ellipsis", "abcd efgh", 6, "abcd…"},
	} {
		t.Run(test.name, func(t *testing.T) {
			if got := chat.Truncate(test.in, test.n); got != test.want {
				t.Errorf("Truncate(%q, %d) = %q, want %q", test.in, test.n, got, test.want)
			}
		})
	}
}
