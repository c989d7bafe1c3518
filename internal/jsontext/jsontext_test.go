package jsontext

import (
	"bytes"
	"encoding/json"
	"testing"
)

// AppendString writes what encoding/json writes, with HTML escaping on
// (json.Marshal) and off (the response bodies' encoder, Marshal here).
func FuzzAppendString(f *testing.F) {
	for _, s := range []string{"", "plain", "quote\" back\\slash", "\x00\x1f\b\f\n\r\t", "\u2028\u2029", "\xff\xfe", "ñ 日本 🎉", "<a href=\"x\">&amp;</a>"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		html, err := json.Marshal(s)
		if err != nil {
			t.Fatal(err)
		}
		if got := AppendString(nil, s, true); !bytes.Equal(got, html) {
			t.Errorf("AppendString(%q, html) = %s, json.Marshal %s", s, got, html)
		}
		plain, err := Marshal(s)
		if err != nil {
			t.Fatal(err)
		}
		if got := AppendString(nil, s, false); !bytes.Equal(got, plain) {
			t.Errorf("AppendString(%q) = %s, Marshal %s", s, got, plain)
		}
	})
}
