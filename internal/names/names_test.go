package names_test

import (
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/frontdesk/frontdesk/internal/names"
)

func TestFold(t *testing.T) {
	tests := []struct {
		name, in, want string
	}{
		{"empty", "", ""},
		{"only spaces", " \t\n ", ""},
		{"ascii lower", "limpieza dental", "limpieza dental"},
		{"ascii mixed trimmed", "  limpieza DENTAL ", "limpieza dental"},
		{"inner spaces kept", "a  b", "a  b"},
		{"acute accent", "Dr. López", "dr. lopez"},
		{"tilde and accent", "Ñandú", "nandu"},
		{"decomposed input", "N\u0303andu\u0301", "nandu"},
		{"cedilla and umlaut", "Françoise Müller", "francoise muller"},
		{"sharp s folds to ss", "Straße", "strasse"},
		{"capital sharp s", "STRAẞE", "strasse"},
		{"dotted capital I", "İstanbul", "istanbul"},
		{"final sigma", "ΟΔΥΣΣΕΥΣ", "οδυσσευσ"},
		{"greek tonos", "Άρτεμις", "αρτεμισ"},
		{"cyrillic", "Ёлка", "елка"},
		{"non-breaking spaces trimmed", "\u00a0Ana\u00a0", "ana"},
		{"mark exposing trailing space", "x \u0301", "x"},
		{"mark exposing leading space", "\u0301 x", "x"},
		{"invalid utf8", "a\xffB", "a\ufffdb"},
		{"digits and punctuation", "Sala 2 (B)", "sala 2 (b)"},
		{"cjk unchanged", "歯科", "歯科"},
		// Unicode folds Cherokee to uppercase; x/text alone gets it backwards.
		{"cherokee small", "ꮧꭰ", "ᏗᎠ"},
		{"cherokee capital", "ᏗᎠ", "ᏗᎠ"},
		{"cherokee small ye", "ᏸ", "Ᏸ"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := names.Fold(tt.in); got != tt.want {
				t.Errorf("Fold(%q) = %q, want %q", tt.in, got, tt.want)
			}
		})
	}
}

func TestFoldEquivalence(t *testing.T) {
	pairs := [][2]string{
		{"  limpieza DENTAL ", "Limpieza dental"},
		{"Dr. López", "dr. lopez"},
		{"JOSÉ", "jose"},
		{"Ångström", "angstrom"},
		{"\u212Bngstrom", "angstrom"}, // ANGSTROM SIGN decomposes canonically
	}
	for _, p := range pairs {
		if a, b := names.Fold(p[0]), names.Fold(p[1]); a != b {
			t.Errorf("Fold(%q) = %q, Fold(%q) = %q; want equal", p[0], a, p[1], b)
		}
	}
}

func TestFoldASCIIFastPathMatchesFull(t *testing.T) {
	var all strings.Builder
	for c := 0; c < utf8.RuneSelf; c++ {
		all.WriteByte(byte(c))
	}
	for _, s := range []string{all.String(), " Hello World ", "\t\v\f\r\nX", "ABC xyz 123"} {
		if got, want := names.Fold(s), names.FoldFull(s); got != want {
			t.Errorf("Fold(%q) = %q, full pipeline gives %q", s, got, want)
		}
	}
}

// Every letter of the Latin fast path, alone and next to every other and
// to ASCII letters, spaces and a combining mark, folds as the full
// pipeline folds it.
func TestFoldLatinFastPathMatchesFull(t *testing.T) {
	var alphabet []string
	for r := rune(0xC0); r < 0x180; r++ {
		alphabet = append(alphabet, string(r))
	}
	alphabet = append(alphabet, "a", "Z", " ", "\t", ".", "-", "\u0301", "\u00a0", "ß")
	check := func(s string) {
		if got, want := names.Fold(s), names.FoldFull(s); got != want {
			t.Errorf("Fold(%q) = %q, full pipeline gives %q", s, got, want)
		}
	}
	for _, a := range alphabet {
		check(a)
		check(" " + a + "X ")
		for _, b := range alphabet {
			check(a + b)
		}
	}
	for _, s := range []string{"José Fernández", "  ÑANDÚ Nuñez ", "Clínica 7", "Œuvre Ærø", "İstanbul", "ŉ ſ ĳ"} {
		check(s)
	}
}

func TestFoldConcurrent(t *testing.T) {
	done := make(chan struct{})
	for i := 0; i < 8; i++ {
		go func() {
			defer func() { done <- struct{}{} }()
			for j := 0; j < 500; j++ {
				if got := names.Fold("Ñandú López"); got != "nandu lopez" {
					t.Errorf("got %q", got)
					return
				}
			}
		}()
	}
	for i := 0; i < 8; i++ {
		<-done
	}
}

func FuzzFold(f *testing.F) {
	f.Fuzz(func(t *testing.T, s string) {
		got := names.Fold(s)
		if !utf8.ValidString(got) {
			t.Fatalf("Fold(%q) = %q is not valid UTF-8", s, got)
		}
		if again := names.Fold(got); again != got {
			t.Fatalf("not idempotent: Fold(%q) = %q, Fold of that = %q", s, got, again)
		}
		if full := names.FoldFull(s); full != got {
			t.Fatalf("fast path disagrees: Fold(%q) = %q, full = %q", s, got, full)
		}
		if strings.TrimSpace(got) != got {
			t.Fatalf("Fold(%q) = %q is not trimmed", s, got)
		}
	})
}

func BenchmarkFold(b *testing.B) {
	for _, s := range []string{"Limpieza dental", "Dr. López Ñandú"} {
		b.Run(s, func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				names.Fold(s)
			}
		})
	}
}
