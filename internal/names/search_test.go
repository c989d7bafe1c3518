package names

import (
	"strings"
	"testing"
)

// searchTextWords is SearchText as its comment defines it, built from
// Words: the reference the written-out version must match.
func searchTextWords(first, last, email, nationalID string) string {
	full := Words(first + " " + last)
	words := full
	if e := Fold(email); e != "" {
		words = append(append(words, e), Words(e)...)
	}
	if id := Fold(nationalID); id != "" {
		words = append(words, id)
	}
	return strings.Join(full, " ") + "\t " + strings.Join(append(words, ""), " ")
}

func TestSearchTextMatchesWords(t *testing.T) {
	for _, tc := range []struct {
		first, last, email, id, want string
	}{
		{"María", "García", "maria.garcia@example.com", "",
			"maria garcia\t maria garcia maria.garcia@example.com maria garcia example com "},
		{"María", "García", "maria.garcia@example.com", "12345678Z",
			"maria garcia\t maria garcia maria.garcia@example.com maria garcia example com 12345678z "},
		{"", "", "", "", "\t "},
		{"  Ana  Belén ", "", "", "", "ana belen\t ana belen "},
		{"José-Luis", "O'Neill", "", "X-1234567-L", "jose luis o neill\t jose luis o neill x-1234567-l "},
		{"", "", "solo@example.com", "", "\t solo@example.com solo example com "},
		{"Ωμέγα", "Straße", "ÅSA@Example.COM", "", "ωμεγα strasse\t ωμεγα strasse asa@example.com asa example com "},
		{"--", "..", "@", "", "\t @ "},
		{"a\xffb", "", "", "", "a b\t a b "},
	} {
		got := SearchText(tc.first, tc.last, tc.email, tc.id)
		if got != tc.want {
			t.Errorf("SearchText(%q, %q, %q, %q) = %q, want %q", tc.first, tc.last, tc.email, tc.id, got, tc.want)
		}
		if ref := searchTextWords(tc.first, tc.last, tc.email, tc.id); got != ref {
			t.Errorf("SearchText(%q, %q, %q, %q) = %q, Words gives %q", tc.first, tc.last, tc.email, tc.id, got, ref)
		}
	}
}

func FuzzSearchText(f *testing.F) {
	f.Add("María", "García", "maria.garcia@example.com", "12345678Z")
	f.Add("", "", "", "")
	f.Add("a\u0301 b", "ǅ", "x@y", " ")
	f.Fuzz(func(t *testing.T, first, last, email, id string) {
		if got, want := SearchText(first, last, email, id), searchTextWords(first, last, email, id); got != want {
			t.Errorf("SearchText(%q, %q, %q, %q) = %q, Words gives %q", first, last, email, id, got, want)
		}
	})
}

func BenchmarkSearchText(b *testing.B) {
	b.ReportAllocs()
	for b.Loop() {
		SearchText("María José", "García-López", "maria.garcia@example.com", "")
	}
}
