package pipeline

import (
	"bytes"
	"encoding/json"
	"strings"
	"testing"
)

// stdJSON is what the handler wrote before AppendJSON: encoding/json with
// HTML escaping off, without the trailing newline.
func stdJSON(t testing.TB, v any) []byte {
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(v); err != nil {
		t.Fatal(err)
	}
	return bytes.TrimSuffix(buf.Bytes(), []byte("\n"))
}

func TestAppendJSONMatchesEncoding(t *testing.T) {
	id, state, dup := int64(7), int64(70), 2
	by := "phone"
	phoneNo, desc := "+34600111222", "<b>VIP</b> & co"
	full := RowResult{Index: 3, ExternalID: json.Number("12.50"), Status: StatusUpdated, ClientID: &id, MatchedBy: &by,
		Errors:   []RowError{{Field: "email", Code: CodeConflict, Message: "the \"e-mail\"\n\tbelongs\x01 to \u2028 another", ExistingClientID: &id, ConflictingClientID: &state, DuplicateOfIndex: &dup}},
		Pipeline: RowPipeline{Status: AlreadyActive, ClientStateID: &state},
		ExistingClient: &ExistingClient{ID: 7, Name: "Ana Ñúñez", FirstName: "Ana", LastName: "Ñúñez", Phone: &phoneNo,
			Data: map[string]any{"z": 1.5, "a": []any{"x", nil, true}, "html": "<script>"}, Tags: []Tag{{Name: "vip", Color: "#fff", Description: &desc}, {Name: "b"}},
			CreatedAt: "2026-11-28T10:00:00Z", UpdatedAt: "2026-11-28T10:00:00Z"}}
	cases := map[string]*IngestResult{
		"empty":   {Status: "success", InputNodeUUID: "u", Summary: Summary{Total: 0}},
		"no rows": {Status: "success", Results: []RowResult{}},
		"one of each": {Status: "success", DryRun: true, InputNodeUUID: "0b7d6c52-5a52-4c1e-9a57-6f4a0f1f3a01", PipelineID: 3, StageID: 9,
			Summary: Summary{Total: 4, Created: 1, Updated: 1, Skipped: 1, Failed: 1, PipelineAdded: 1, PipelineAlreadyActive: 2, PipelineFailed: 1},
			Results: []RowResult{
				full,
				{Index: 0, ExternalID: "ext-1", Status: StatusCreated, ClientID: &id, Errors: []RowError{}, Pipeline: RowPipeline{Status: Added, ClientStateID: &state}},
				{Index: 1, ExternalID: nil, Status: StatusFailed, Errors: []RowError{{Field: "phone_number", Code: CodeRequired, Message: "x"}}, Pipeline: RowPipeline{Status: NotAttempted}},
				{Index: 2, ExternalID: map[string]any{"crm": []any{json.Number("1"), "a&b"}}, Status: StatusSkipped, Pipeline: RowPipeline{Status: NotAttempted},
					ExistingClient: &ExistingClient{ID: 1, Tags: []Tag{}}},
				{Index: 4, ExternalID: true, Status: StatusFailed, Errors: nil,
					ExistingClient: &ExistingClient{Data: map[string]any{"list": []any(nil), "empty": []any{}, "obj": map[string]any{}, "n": json.Number("-0.5e3"), "nested": map[string]any{"b": 2.0, "a": "\u00e9"}}}},
				{Index: 5, ExternalID: "bad \xff utf8 \x7f \u2029", Status: StatusFailed},
			}},
	}
	for name, res := range cases {
		t.Run(name, func(t *testing.T) {
			got, err := res.AppendJSON(nil)
			if err != nil {
				t.Fatal(err)
			}
			if want := stdJSON(t, res); !bytes.Equal(got, want) {
				t.Errorf("AppendJSON:\n%s\nencoding/json:\n%s", got, want)
			}
		})
	}
}

func FuzzAppendString(f *testing.F) {
	for _, s := range []string{"", "plain", "quote\" back\\slash", "\x00\x1f\b\f\n\r\t", "\u2028\u2029", "\xff\xfe", "ñ 日本 🎉", "<>&"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		if got, want := appendString(nil, s), stdJSON(t, s); !bytes.Equal(got, want) {
			t.Errorf("appendString(%q) = %s, encoding/json %s", s, got, want)
		}
	})
}

// mergeData stores custom fields as json.Marshal writes them (HTML
// characters escaped), without reflection for what requests carry.
func TestStoredDataMatchesMarshal(t *testing.T) {
	cases := map[string]map[string]any{
		"empty":   {},
		"strings": {"source": "web", "note": "<b>VIP</b> & co", "line": "a\u2028b\x01", "bad": "\xff"},
		"<&> key": {"a<b": "x"},
		"numbers": {"request": json.Number("12.50"), "stored": 1.5, "big": 1e21, "zero": json.Number("")},
		"nested":  {"list": []any{"x", nil, true, json.Number("1")}, "obj": map[string]any{"z": "<", "a": []any{}}, "nil list": []any(nil), "nil obj": map[string]any(nil)},
	}
	for name, data := range cases {
		t.Run(name, func(t *testing.T) {
			out, _, got := mergeData(nil, data)
			want, err := json.Marshal(out)
			if err != nil {
				t.Fatal(err)
			}
			if got != string(want) {
				t.Errorf("stored %s, json.Marshal %s", got, want)
			}
		})
	}
}

// Any JSON object a request could carry as data is stored as json.Marshal
// writes it.
func FuzzStoredData(f *testing.F) {
	for _, s := range []string{`{}`, `{"a":"<b>&</b>","b":[1,2.5e3,null,true],"c":{"d":"\u2028"}}`, `{"x":-0.0,"y":"\ud800"}`} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		dec := json.NewDecoder(strings.NewReader(s))
		dec.UseNumber()
		var data map[string]any
		if dec.Decode(&data) != nil {
			return
		}
		out, _, got := mergeData(nil, data)
		want, err := json.Marshal(out)
		if err != nil {
			t.Skip(err)
		}
		if got != string(want) {
			t.Errorf("stored %s, json.Marshal %s", got, want)
		}
	})
}
