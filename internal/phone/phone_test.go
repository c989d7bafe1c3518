package phone_test

import (
	"errors"
	"strings"
	"testing"

	"github.com/frontdesk/frontdesk/internal/phone"
)

var es = phone.Number{CountryCode: 34, National: "600111222"}

func TestParseIngest(t *testing.T) {
	tests := []struct {
		name     string
		raw      string
		areaCode string
		want     phone.Number
		wantErr  string // substring of the message; "" means success
	}{
		// Rule 1: "+" is authoritative E.164.
		{"e164 formatted", "+34 600 111 222", "", es, ""},
		{"e164 compact", "+34600111222", "", es, ""},
		{"e164 ignores area code", "+34600111222", "44", es, ""},
		{"e164 france", "+33600111222", "", phone.Number{CountryCode: 33, National: "600111222"}, ""},
		{"e164 us", "+1 (415) 555-2671", "", phone.Number{CountryCode: 1, National: "4155552671"}, ""},
		{"e164 parenthesised plus", "(+34) 600-111-222", "", es, ""},
		{"e164 dots and unicode space", "+34\u00a0600.111.222", "", es, ""},
		{"e164 unicode dash", "+34 600\u2013111\u2013222", "", es, ""},
		{"e164 uk with (0)", "+44 (0) 7911 123456", "", phone.Number{CountryCode: 44, National: "7911123456"}, ""},
		{"e164 italian leading zero", "+39 06 6982 1234", "", phone.Number{CountryCode: 39, National: "0669821234"}, ""},
		{"e164 non-geographic", "+800 1234 5678", "", phone.Number{CountryCode: 800, National: "12345678"}, ""},
		// POSSIBLE but not VALID: right length, unassigned range.
		{"e164 possible not valid", "+34 100 111 222", "", phone.Number{CountryCode: 34, National: "100111222"}, ""},
		{"e164 too short", "+34 600", "", phone.Number{}, "too short"},
		{"e164 too long", "+34 600 111 222 333 444 555", "", phone.Number{}, "too long"},
		{"e164 unknown country code", "+999 600111222", "", phone.Number{}, "unknown country code"},
		{"e164 local only", "+1 555 2671", "", phone.Number{}, "missing its area code"},
		{"plus alone", "+", "", phone.Number{}, "no digits"},
		{"plus with spaces", " + ", "34", phone.Number{}, "no digits"},
		{"misplaced plus", "600+111222", "34", phone.Number{}, "misplaced '+'"},
		{"double plus", "++34600111222", "", phone.Number{}, "misplaced '+'"},

		// Rule 2: "00" is the international prefix.
		{"00 prefix", "0034600111222", "", es, ""},
		{"00 prefix formatted", "00 34 600 111 222", "", es, ""},
		{"00 prefix wins over area code", "0034600111222", "44", es, ""},
		{"00 alone", "00", "", phone.Number{}, "no digits"},
		{"00 unknown country code", "00999600111222", "", phone.Number{}, "unknown country code"},

		// Rule 3: national digits with an area code.
		{"national with area code", "600111222", "34", es, ""},
		{"national with +area code", "600111222", "+34", es, ""},
		{"national with spaced area code", "600 111 222", " +34 ", es, ""},
		{"international digits with area code", "34600111222", "34", es, ""},
		{"uk trunk prefix stripped", "07911 123456", "44", phone.Number{CountryCode: 44, National: "7911123456"}, ""},
		{"french trunk prefix stripped", "06 00 11 12 22", "33", phone.Number{CountryCode: 33, National: "600111222"}, ""},
		{"us national", "(415) 555-2671", "1", phone.Number{CountryCode: 1, National: "4155552671"}, ""},
		{"national possible not valid", "100111222", "34", phone.Number{CountryCode: 34, National: "100111222"}, ""},
		{"non-geographic area code", "1234 5678", "800", phone.Number{CountryCode: 800, National: "12345678"}, ""},
		// "+"+digits belongs to another country: the area code decides.
		{"digits of other country with area code", "33600111222", "34", phone.Number{}, "too long"},
		{"national too short", "12", "34", phone.Number{}, "too short"},
		{"national local only", "555 2671", "1", phone.Number{}, "missing its area code"},

		// Rule 4: no area code.
		{"international digits without plus", "34600111222", "", es, ""},
		{"bare national never guessed", "600111222", "", phone.Number{}, "no country code"},
		{"bare national never guessed uk", "07911123456", "", phone.Number{}, "no country code"},
		{"possible but not valid without plus", "34100111222", "", phone.Number{}, "no country code"},

		// Bad area codes, even when the number would not need one.
		{"unknown area code", "600111222", "999", phone.Number{}, "not an assigned country calling code"},
		{"letters in area code", "600111222", "ES", phone.Number{}, "not a country calling code"},
		{"area code with 00", "600111222", "0034", phone.Number{}, "not a country calling code"},
		{"bad area code with e164", "+34600111222", "x", phone.Number{}, "not a country calling code"},

		// Characters that are not layout.
		{"empty", "", "", phone.Number{}, "empty"},
		{"empty with area code", "   ", "34", phone.Number{}, "empty"},
		{"only punctuation", "--()", "34", phone.Number{}, "no digits"},
		{"letters", "600 ABC 222", "34", phone.Number{}, "letters"},
		{"vanity number", "+1 800 FLOWERS", "", phone.Number{}, "letters"},
		{"extension", "+34 600 111 222 ext 5", "", phone.Number{}, "letters"},
		{"slash", "600/111222", "34", phone.Number{}, "contains '/'"},
		{"tel uri", "tel:+34600111222", "", phone.Number{}, "letters"},
		{"invalid utf8", "+34 600\xff111222", "", phone.Number{}, "UTF-8"},
		{"arabic-indic digits", "+٣٤٦٠٠١١١٢٢٢", "", phone.Number{}, "contains"},
		// Each parse of the E.164 form strips another "trunk" zero.
		{"unstable e164", "+386 0000001", "", phone.Number{}, "different number"},
		{"unstable e164 via 00", "003860000001", "", phone.Number{}, "different number"},
		{"unstable national", "0120000010000", "55", phone.Number{}, "different number"},
		// Valid in Canada, yet the +1 length check only knows US lengths.
		{"valid but not possible per library", "+1 310 0000", "", phone.Number{CountryCode: 1, National: "3100000"}, ""},
		{"valid but not possible national", "310 0000", "1", phone.Number{CountryCode: 1, National: "3100000"}, ""},
		{"huge input", "+34" + strings.Repeat(" ", 500) + "600111222", "", phone.Number{}, "too long"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := phone.ParseIngest(tt.raw, tt.areaCode)
			check(t, got, err, tt.want, tt.wantErr)
		})
	}
}

func TestParseWithRegion(t *testing.T) {
	tests := []struct {
		name    string
		raw     string
		region  string
		want    phone.Number
		wantErr string
	}{
		{"national", "600111222", "ES", es, ""},
		{"national formatted", "600 11 12 22", "ES", es, ""},
		{"region lower case", "600111222", "es", es, ""},
		{"region padded", "600111222", " ES ", es, ""},
		{"uk trunk prefix", "07911 123456", "GB", phone.Number{CountryCode: 44, National: "7911123456"}, ""},
		{"national digits with country code", "34600111222", "ES", es, ""},
		{"region idd", "011 34 600 111 222", "US", es, ""},
		{"possible not valid", "100111222", "ES", phone.Number{CountryCode: 34, National: "100111222"}, ""},
		{"e164 no region", "+1 415 555 2671", "", phone.Number{CountryCode: 1, National: "4155552671"}, ""},
		{"e164 ignores region", "+34600111222", "FR", es, ""},
		{"00 no region", "0034600111222", "", es, ""},
		{"00 in region with other idd", "0034600111222", "US", es, ""},
		{"e164 possible not valid", "+34100111222", "", phone.Number{CountryCode: 34, National: "100111222"}, ""},

		{"no region", "600111222", "", phone.Number{}, "no default region"},
		{"unknown region", "600111222", "XX", phone.Number{}, "unknown region"},
		{"non-geographic pseudo region", "12345678", "001", phone.Number{}, "unknown region"},
		{"unknown region with e164", "+34600111222", "XX", phone.Number{}, "unknown region"},
		{"too short", "6001", "ES", phone.Number{}, "too short"},
		{"too long", "600111222333", "ES", phone.Number{}, "too long"},
		{"local only", "555 2671", "US", phone.Number{}, "missing its area code"},
		{"plus alone", "+", "ES", phone.Number{}, "no digits"},
		{"empty", "", "ES", phone.Number{}, "empty"},
		{"letters", "6OO111222", "ES", phone.Number{}, "letters"},
		{"unstable e164", "003860000001", "", phone.Number{}, "different number"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := phone.ParseWithRegion(tt.raw, tt.region)
			check(t, got, err, tt.want, tt.wantErr)
		})
	}
}

// TestSameClient pins the promise the contact store relies on: every way the
// brief lists of writing one line yields one Number.
func TestSameClient(t *testing.T) {
	inputs := []struct{ raw, areaCode string }{
		{"+34 600 111 222", ""},
		{"+34600111222", ""},
		{"0034600111222", ""},
		{"34600111222", "34"},
		{"600111222", "34"},
		{"600111222", "+34"},
	}
	for _, in := range inputs {
		got, err := phone.ParseIngest(in.raw, in.areaCode)
		if err != nil || got != es {
			t.Errorf("ParseIngest(%q, %q) = %+v, %v; want %+v", in.raw, in.areaCode, got, err, es)
		}
	}
	if got, err := phone.ParseWithRegion("600111222", "ES"); err != nil || got != es {
		t.Errorf("ParseWithRegion = %+v, %v; want %+v", got, err, es)
	}
}

func check(t *testing.T, got phone.Number, err error, want phone.Number, wantErr string) {
	t.Helper()
	if wantErr == "" {
		if err != nil {
			t.Fatalf("unexpected error: %v", err)
		}
		if got != want {
			t.Fatalf("got %+v, want %+v", got, want)
		}
		return
	}
	if err == nil {
		t.Fatalf("got %+v, want error containing %q", got, wantErr)
	}
	if !errors.Is(err, phone.ErrInvalid) {
		t.Errorf("error %q does not wrap ErrInvalid", err)
	}
	if !strings.Contains(err.Error(), wantErr) {
		t.Errorf("error %q does not mention %q", err, wantErr)
	}
	if !got.IsZero() {
		t.Errorf("got %+v alongside an error, want zero Number", got)
	}
}

func TestNoCountryCodeMessage(t *testing.T) {
	_, err := phone.ParseIngest("600111222", "")
	const want = "phone number has no country code; send it in E.164 (+34600111222) or give area_code"
	if err == nil || err.Error() != want {
		t.Fatalf("got %v, want %q", err, want)
	}
}

func TestNumber(t *testing.T) {
	tests := []struct {
		n    phone.Number
		e164 string
		zero bool
	}{
		{es, "+34600111222", false},
		{phone.Number{CountryCode: 39, National: "0669821234"}, "+390669821234", false},
		{phone.Number{CountryCode: 1, National: "4155552671"}, "+14155552671", false},
		{phone.Number{}, "", true},
	}
	for _, tt := range tests {
		if got := tt.n.E164(); got != tt.e164 {
			t.Errorf("%+v.E164() = %q, want %q", tt.n, got, tt.e164)
		}
		if got := tt.n.IsZero(); got != tt.zero {
			t.Errorf("%+v.IsZero() = %v, want %v", tt.n, got, tt.zero)
		}
	}
}

func TestParseCallingCode(t *testing.T) {
	tests := []struct {
		in   string
		want int
		ok   bool
	}{
		{"34", 34, true},
		{"+34", 34, true},
		{" 34 ", 34, true},
		{"\t+34\n", 34, true},
		{"+ 34", 34, true},
		{"1", 1, true},
		{"44", 44, true},
		{"800", 800, true},
		{"", 0, false},
		{"+", 0, false},
		{"0", 0, false},
		{"034", 0, false},
		{"0034", 0, false},
		{"999", 0, false},
		{"3 4", 0, false},
		{"++34", 0, false},
		{"34a", 0, false},
		{"ES", 0, false},
		{"-34", 0, false},
		{"1234", 0, false},
		{"３４", 0, false},
	}
	for _, tt := range tests {
		got, err := phone.ParseCallingCode(tt.in)
		if tt.ok {
			if err != nil || got != tt.want {
				t.Errorf("ParseCallingCode(%q) = %d, %v; want %d", tt.in, got, err, tt.want)
			}
			continue
		}
		if err == nil || !errors.Is(err, phone.ErrInvalid) {
			t.Errorf("ParseCallingCode(%q) = %d, %v; want ErrInvalid", tt.in, got, err)
		}
	}
}

func TestValidRegion(t *testing.T) {
	tests := []struct {
		in   string
		want bool
	}{
		{"ES", true},
		{"es", true},
		{"Gb", true},
		{" US ", true},
		{"", false},
		{"XX", false},
		{"ZZ", false},
		{"001", false},
		{"ESP", false},
		{"E", false},
	}
	for _, tt := range tests {
		if got := phone.ValidRegion(tt.in); got != tt.want {
			t.Errorf("ValidRegion(%q) = %v, want %v", tt.in, got, tt.want)
		}
	}
}

func TestDigits(t *testing.T) {
	tests := []struct{ in, want string }{
		{"", ""},
		{"600111222", "600111222"},
		{"+34 600-111.222", "34600111222"},
		{"(600) 11", "60011"},
		{"abc", ""},
		{"６００", ""},      // fullwidth digits are not ASCII
		{"6\xff0", "60"}, // invalid UTF-8 is just skipped
	}
	for _, tt := range tests {
		if got := phone.Digits(tt.in); got != tt.want {
			t.Errorf("Digits(%q) = %q, want %q", tt.in, got, tt.want)
		}
	}
}
