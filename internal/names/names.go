// Package names folds human-typed names (services, rooms, staff, tags) into a
// key for exact comparison.
//
// Receptionists type the same name many ways: with or without accents,
// capitalised or not, with stray spaces from copy-paste. Treating those as
// different would let "Limpieza dental" and "limpieza DENTAL " coexist as two
// services, so lookups and uniqueness checks compare Fold(name) instead of
// the name itself. The stored display name is left as typed; only the key is
// folded.
package names

import (
	"strings"
	"sync"
	"unicode"
	"unicode/utf8"

	"golang.org/x/text/cases"
	"golang.org/x/text/runes"
	"golang.org/x/text/transform"
	"golang.org/x/text/unicode/norm"
)

// folders pools the transform chain: a chain keeps internal buffers and is
// not safe for concurrent use, and building one per call would dominate the
// cost of folding a short name in a batch.
var folders = sync.Pool{New: func() any {
	return transform.Chain(
		// Decompose first so that accents become separate marks that can be
		// dropped ("ó" -> "o" + U+0301).
		norm.NFD,
		// Only nonspacing marks (Mn): these are the accents of Latin, Greek
		// and Cyrillic. Spacing marks (Mc) carry vowels in Indic scripts and
		// removing them would merge names that are genuinely different.
		runes.Remove(runes.In(unicode.Mn)),
		// Full case folding rather than ToLower, so "STRASSE" and "Straße"
		// meet, and the result does not depend on a locale.
		cases.Fold(),
		// x/text folds uppercase Cherokee to lowercase (golang/go#46101)
		// while CaseFolding.txt goes the other way, so its Fold swaps case
		// and is not idempotent. Settle on the standard's uppercase.
		runes.Map(cherokeeUpper),
	)
}}

// cherokeeUpper maps Cherokee small letters to their capitals, the direction
// Unicode case folding uses for Cherokee (lowercase was added later, and
// folding had to stay stable for text already folded to uppercase).
func cherokeeUpper(r rune) rune {
	switch {
	case r >= 0xAB70 && r <= 0xABBF: // Cherokee Supplement -> U+13A0..U+13EF
		return r - 0xAB70 + 0x13A0
	case r >= 0x13F8 && r <= 0x13FD: // small ye..mv -> U+13F0..U+13F5
		return r - 8
	}
	return r
}

// Fold returns s trimmed, Unicode-NFD-decomposed with nonspacing marks
// removed, and case-folded, so that Fold("  limpieza DENTAL ") ==
// Fold("Limpieza dental"), Fold("Dr. López") == Fold("dr. lopez") and
// Fold("Ñandú") == "nandu".
//
// Invalid UTF-8 is replaced with U+FFFD first: the transforms would
// otherwise pass stray bytes through inconsistently, and a key must be
// stable (Fold(Fold(s)) == Fold(s)) to be usable for uniqueness.
func Fold(s string) string {
	if f, ok := foldASCII(s); ok {
		return f
	}
	if f, ok := foldLatin(s); ok {
		return f
	}
	return foldFull(s)
}

// The accented letters of Western European names (Latin-1 Supplement and
// Latin Extended-A, U+00C0-U+017F) fold each on its own: their canonical
// decompositions are a base letter and marks, and case folding needs no
// context. latinFolds holds what the full pipeline makes of each alone.
const latinFirst, latinEnd = 0xC0, 0x180

var latinFolds = sync.OnceValue(func() *[latinEnd - latinFirst]string {
	var t [latinEnd - latinFirst]string
	for r := rune(latinFirst); r < latinEnd; r++ {
		t[r-latinFirst] = foldFull(string(r))
	}
	return &t
})

// foldLatin is the fast path for names in ASCII and those letters ("José
// Fernández", "Nuñez"): each rune folded by the table, no transformer. A
// string with anything else (a combining mark, another script, invalid
// UTF-8) takes the full pipeline; TestFoldLatinFastPathMatchesFull and
// FuzzFold hold the two to the same answers.
func foldLatin(s string) (string, bool) {
	table := latinFolds()
	b := make([]byte, 0, len(s))
	for i := 0; i < len(s); {
		c := s[i]
		if c < utf8.RuneSelf {
			if 'A' <= c && c <= 'Z' {
				c += 'a' - 'A'
			}
			b = append(b, c)
			i++
			continue
		}
		r, size := utf8.DecodeRuneInString(s[i:])
		if r < latinFirst || r >= latinEnd {
			return "", false
		}
		b = append(b, table[r-latinFirst]...)
		i += size
	}
	return strings.TrimFunc(string(b), unicode.IsSpace), true
}

// foldFull is the general path; see Fold.
func foldFull(s string) string {
	if !utf8.ValidString(s) {
		s = strings.ToValidUTF8(s, string(utf8.RuneError))
	}
	t := folders.Get().(transform.Transformer)
	out, _, err := transform.String(t, s)
	folders.Put(t)
	if err != nil {
		// The chain does not fail on valid UTF-8; should a future x/text
		// release disagree, a less-folded key beats a panic mid-batch.
		out = s
	}
	// Trim last: removing a mark can expose whitespace at either end
	// ("x \u0301"), and folding must not leave it behind.
	return strings.TrimFunc(out, unicode.IsSpace)
}

// foldASCII is the fast path for the common case. For pure ASCII the full
// pipeline reduces to trimming and lower-casing A-Z, and this avoids the
// transformer machinery and, when nothing changes, any allocation.
func foldASCII(s string) (string, bool) {
	upper := false
	for i := 0; i < len(s); i++ {
		c := s[i]
		if c >= utf8.RuneSelf {
			return "", false
		}
		if 'A' <= c && c <= 'Z' {
			upper = true
		}
	}
	s = strings.TrimFunc(s, unicode.IsSpace)
	if !upper {
		return s, true
	}
	b := []byte(s)
	for i, c := range b {
		if 'A' <= c && c <= 'Z' {
			b[i] = c + ('a' - 'A')
		}
	}
	return string(b), true
}
