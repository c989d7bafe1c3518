package contact_test

import (
	"strings"
	"testing"

	"github.com/frontdesk/frontdesk/internal/contact"
)

// The DNI/NIE rule (docs/patient-fields.md).
func TestNationalID(t *testing.T) {
	for _, test := range []struct {
		in, want string
		ok       bool
	}{
		{"", "", true},
		{"  ", "", true},
		{"12345678Z", "12345678Z", true},
		{"12345678z", "12345678Z", true},
		{" 12 345 678-z ", "12345678Z", true},
		{"1234.5678-Z", "12345678Z", true},
		{"00000000T", "00000000T", true},
		{"X1234567L", "X1234567L", true},
		{"x-1234567-l", "X1234567L", true},
		{"Y1234567X", "Y1234567X", true},
		{"12345678A", "", false},  // wrong letter
		{"X1234567T", "", false},  // wrong letter
		{"1234567Z", "", false},   // 7 digits
		{"123456789Z", "", false}, // 9 digits
		{"12345678", "", false},   // no letter
		{"A1234567L", "", false},  // not X, Y, Z
		{"X12345678L", "", false}, // NIE with 8 digits
		{"12345678Ñ", "", false},
		{"1234567ZZ", "", false},
	} {
		got, err := contact.NationalID(test.in)
		if (err == nil) != test.ok || got != test.want {
			t.Errorf("NationalID(%q) = %q, %v; want %q, ok %v", test.in, got, err, test.want, test.ok)
		}
	}
	if _, _, err := contact.Insurance(strings.Repeat("á", contact.MaxInsurerLen), strings.Repeat("9", contact.MaxPolicyLen)); err != nil {
		t.Errorf("the longest insurer and policy: %v", err)
	}
	if _, _, err := contact.Insurance(strings.Repeat("a", contact.MaxInsurerLen+1), ""); err == nil {
		t.Error("an insurer one character too long was accepted")
	}
	if _, _, err := contact.Insurance("", strings.Repeat("9", contact.MaxPolicyLen+1)); err == nil {
		t.Error("a policy number one character too long was accepted")
	}
}
