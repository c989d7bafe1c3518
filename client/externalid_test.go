package client

import (
	"encoding/json"
	"fmt"
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

// BenchmarkDecodeIngestAnswer decodes a 500-row batch answer, as a CLI
// import does between two batches.
func BenchmarkDecodeIngestAnswer(b *testing.B) {
	rows := make([]map[string]any, 500)
	for i := range rows {
		id := 1000 + i
		rows[i] = map[string]any{"index": i, "external_id": fmt.Sprintf("r-%d", i), "status": "created", "client_id": id,
			"matched_by": nil, "errors": []any{}, "pipeline": map[string]any{"status": "added", "client_state_id": id}, "existing_client": nil}
	}
	body, err := json.Marshal(map[string]any{"dry_run": false, "input_node_uuid": "6f1c9a52-3b7e-4d2a-9c41-2f8e5d7a1b01",
		"pipeline_id": 1, "stage_id": 1, "summary": map[string]any{"total": 500, "created": 500, "pipeline_added": 500}, "results": rows})
	if err != nil {
		b.Fatal(err)
	}
	b.SetBytes(int64(len(body)))
	b.ReportAllocs()
	for b.Loop() {
		var out IngestBatchResult
		if err := json.Unmarshal(body, &out); err != nil {
			b.Fatal(err)
		}
	}
}
