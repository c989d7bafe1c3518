package client

import (
	"encoding/json"
	"testing"
)

// An echoed external_id reads as the string sent, whatever it holds, and
// any other JSON value as its JSON text.
func TestExternalIDReadsWhatWasSent(t *testing.T) {
	for _, tc := range []struct {
		raw  string // the value in the answer
		want ExternalID
	}{
		{`"crm-1"`, "crm-1"},
		{`""`, ""},
		{`null`, ""},
		{`"José Ñandú 🦷"`, "José Ñandú 🦷"},
		{`"a\"b\\c\nd"`, "a\"b\\c\nd"},
		{`"\u00e9\ud83e\uddb7"`, "é🦷"},
		{`"\ud800"`, "\ufffd"},
		{"\"\xff\xfe\"", "\ufffd\ufffd"},
		{`42`, "42"},
		{`1.5e3`, "1.5e3"},
		{`true`, "true"},
		{`{"a":1}`, `{"a":1}`},
		{`[1, 2]`, `[1, 2]`},
	} {
		var row struct {
			ID ExternalID `json:"external_id"`
		}
		if err := json.Unmarshal([]byte(`{"external_id":`+tc.raw+`}`), &row); err != nil {
			t.Fatalf("%s: %v", tc.raw, err)
		}
		if row.ID != tc.want {
			t.Errorf("%s reads as %q, want %q", tc.raw, row.ID, tc.want)
		}
	}
}

// FuzzExternalID: a string external_id reads back as encoding/json reads
// the same string.
func FuzzExternalID(f *testing.F) {
	for _, s := range []string{"crm-1", "", "a\"b", "\xff", "José", "\u2028"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		escaped, _ := json.Marshal(s)
		for _, body := range [][]byte{escaped, []byte(`"` + s + `"`)} {
			var ref string
			if json.Unmarshal(body, &ref) != nil {
				continue // not a JSON string: the decoder refuses the answer
			}
			var row struct {
				ID ExternalID `json:"external_id"`
			}
			if err := json.Unmarshal(append(append([]byte(`{"external_id":`), body...), '}'), &row); err != nil {
				t.Fatalf("%q: %v", body, err)
			}
			if string(row.ID) != ref {
				t.Errorf("%q reads as %q, encoding/json reads %q", body, row.ID, ref)
			}
		}
	})
}
