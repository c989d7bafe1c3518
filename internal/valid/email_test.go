package valid_test

import (
	"strings"
	"testing"

	"github.com/frontdesk/frontdesk/internal/valid"
)

func TestEmail(t *testing.T) {
	for _, test := range []struct {
		in, want string
		ok       bool
	}{
		{"nora@example.com", "nora@example.com", true},
		{"  Nora@Example.COM \n", "Nora@Example.COM", true},
		{"nora@localhost", "nora@localhost", true},
		{"", "", false},
		{"<nora@example.com>", "<nora@example.com>", false},
		{"Nora <nora@example.com>", "Nora <nora@example.com>", false},
		{"a,b@example.com", "a,b@example.com", false},
		{"a@example.com, b@example.com", "a@example.com, b@example.com", false},
		{"no ra@example.com", "no ra@example.com", false},
		{"nora@exa mple.com", "nora@exa mple.com", false},
		{"nora", "nora", false},
		{"nora@", "nora@", false},
		{"@example.com", "@example.com", false},
		{"nora@example.com (Nora)", "nora@example.com (Nora)", false},
		{strings.Repeat("a", 243) + "@example.com", strings.Repeat("a", 243) + "@example.com", true},
		{strings.Repeat("a", 244) + "@example.com", strings.Repeat("a", 244) + "@example.com", false},
	} {
		t.Run(test.in, func(t *testing.T) {
			got, ok := valid.Email(test.in)
			if got != test.want || ok != test.ok {
				t.Errorf("Email(%q) = %q, %v; want %q, %v", test.in, got, ok, test.want, test.ok)
			}
		})
	}
}
