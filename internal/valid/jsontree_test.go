package valid

import (
	"bytes"
	"encoding/json"
	"io"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
	"unicode/utf8"
)

// decodeTree is ParseJSON's reference: encoding/json with UseNumber, one
// value and white space after it.
func decodeTree(data []byte) (any, bool) {
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.UseNumber()
	var v any
	if err := dec.Decode(&v); err != nil {
		return nil, false
	}
	if _, err := dec.Token(); err != io.EOF {
		return nil, false
	}
	return v, true
}

// readTree reads every document encoding/json reads, into the same tree,
// and gives up on every other.
func TestReadTreeAgreesWithEncodingJSON(t *testing.T) {
	docs := []string{
		`{}`, `[]`, `""`, `0`, `-0`, `-0.5e-7`, `1E+9`, `123456789012345678901234567890`, `true`, `false`, `null`,
		` {"a": 1, "a": 2} `, `{"a":[1,{"b":null}],"c":"d"}`, "\t\r\n[1 , 2 ]\n",
		`"\u00e9\u20AC\ud83d\ude00 \"q\" \\ \/ \b\f\n\r\t"`, `"\ud800"`, `"\udc00\ud800x"`, `"\ud800\u0041"`, `"\ud800\ud800\udc00"`,
		`"é€😀 plain"`, `"\u0000"`, `{"clients":[{"phone_number":"+34600000000","data":{"k":1.50}}]}`,
		// refused
		``, ` `, `{`, `}`, `[1,]`, `{"a":1,}`, `{"a" 1}`, `{a:1}`, `01`, `1.`, `.5`, `-`, `+1`, `1e`, `1e+`, `tru`, `nul`, `True`,
		`"\x"`, `"\u12"`, `"\u12g4"`, "\"tab\there\"", `"open`, `{} }`, `{}{}`, `1 2`, `[1]x`, "\ufeff{}", `"\ud800\u12"`,
		strings.Repeat("[", 10001) + strings.Repeat("]", 10001), strings.Repeat("[", 10000) + strings.Repeat("]", 10000),
	}
	for _, d := range docs {
		got, ok := readTree([]byte(d))
		want, wantOK := decodeTree([]byte(d))
		if ok != wantOK || !reflect.DeepEqual(got, want) {
			t.Errorf("readTree(%.60q) = %#v, %v; encoding/json %#v, %v", d, got, ok, want, wantOK)
		}
	}
}

// The same over any input, starting from the body fuzzer's seeds.
func FuzzParseJSONTree(f *testing.F) {
	seeds, _ := filepath.Glob("testdata/fuzz/FuzzParseJSON/*")
	for _, s := range seeds {
		if b, err := os.ReadFile(s); err == nil {
			f.Add(b)
		}
	}
	f.Add([]byte(`{"clients":[{"first_name":"Ana","phone_number":"+34 600 000 000","data":{"a":[1,"\ud83d\ude00"]}}]}`))
	f.Fuzz(func(t *testing.T, data []byte) {
		if !utf8.Valid(data) {
			return // ParseJSON refuses it before either reads it
		}
		got, ok := readTree(data)
		want, wantOK := decodeTree(data)
		if ok != wantOK || !reflect.DeepEqual(got, want) {
			t.Fatalf("readTree(%q) = %#v, %v; encoding/json %#v, %v", data, got, ok, want, wantOK)
		}
	})
}

// A 500-row ingest body read by readTree and by encoding/json:
//
//	go test ./internal/valid -run '^$' -bench ReadTree -benchmem
func BenchmarkReadTree(b *testing.B) {
	var body bytes.Buffer
	body.WriteString(`{"on_duplicate":"update","clients":[`)
	for i := range 500 {
		if i > 0 {
			body.WriteByte(',')
		}
		body.WriteString(`{"external_id":"crm-` + strings.Repeat("7", 6) + `","first_name":"Ana María","last_name":"Pérez Gil",` +
			`"phone_number":"+34 600 123 456","email":"ana.perez@example.com","tags":["vip","\u00e9t\u00e9"],"data":{"source":"web","score":12.5}}`)
	}
	body.WriteString(`]}`)
	data := body.Bytes()
	for _, c := range []struct {
		name string
		read func([]byte) (any, bool)
	}{{"readTree", readTree}, {"encoding_json", decodeTree}} {
		b.Run(c.name, func(b *testing.B) {
			b.SetBytes(int64(len(data)))
			b.ReportAllocs()
			for b.Loop() {
				if _, ok := c.read(data); !ok {
					b.Fatal("not read")
				}
			}
		})
	}
}
