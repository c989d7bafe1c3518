package valid_test

import (
	"encoding/json"
	"errors"
	"net/url"
	"slices"
	"sort"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/frontdesk/frontdesk/internal/valid"
)

// The JSON reader and the field readers under fuzzing: ParseJSON accepts
// exactly the documents encoding/json calls valid and reports anything else
// as the single json_invalid item; every reader, on every field of any
// document (or query string), never panics, reports only the pydantic types
// (docs/contract.md, Validation errors) at a location under its root, and hands out a value
// only when it is of the asked type. `go test` runs the seeds of
// testdata/fuzz/; fuzz with
//
//	go test ./internal/valid -run '^$' -fuzz FuzzParseJSON -fuzztime 60s

var pydanticTypes = []string{"missing", "int_parsing", "int_type", "string_type", "bool_parsing", "bool_type", "float_parsing",
	"list_type", "dict_type", "string_too_long", "too_short", "too_long", "greater_than_equal", "less_than_equal", "literal_error",
	"date_from_datetime_parsing", "datetime_parsing", "uuid_parsing", "json_invalid", "model_type"}

func checkProblems(t *testing.T, rep *valid.Report, root string) {
	t.Helper()
	for _, p := range rep.Problems {
		if len(p.Loc) == 0 || p.Loc[0] != root || p.Msg == "" || !slices.Contains(pydanticTypes, p.Type) {
			t.Fatalf("problem %+v is not {loc: [%s, ...], msg, type}", p, root)
		}
	}
	if (rep.Err() == nil) != rep.OK() {
		t.Fatalf("Err and OK disagree")
	}
	var verr valid.Error
	if err := rep.Err(); err != nil && (!errors.As(err, &verr) || len(verr) != len(rep.Problems)) {
		t.Fatalf("Err() = %v", err)
	}
}

// readAll applies every object reader to every field of o, recursing into
// nested objects up to depth.
func readAll(t *testing.T, o *valid.Object, keys []string, depth int) {
	t.Helper()
	for _, k := range keys {
		raw, sent := o.Raw(k)
		if sent && raw == nil {
			t.Fatalf("Raw(%q) reports null as sent", k)
		}
		o.Has(k)
		if s, ok := o.Str(k, 100); ok {
			if _, isStr := raw.(string); !isStr || utf8.RuneCountInString(s) > 100 || strings.IndexByte(s, 0) >= 0 || !utf8.ValidString(s) {
				t.Fatalf("Str(%q) accepted %#v as %q", k, raw, s)
			}
		}
		if _, ok := o.Int(k); ok {
			if _, isNum := raw.(json.Number); !isNum {
				t.Fatalf("Int(%q) accepted %#v", k, raw)
			}
		}
		if n, ok := o.IntRange(k, 0, 3); ok && (n < 0 || n > 3) {
			t.Fatalf("IntRange(%q) accepted %d", k, n)
		}
		o.Float(k)
		if _, ok := o.Bool(k); ok {
			if _, isBool := raw.(bool); !isBool {
				t.Fatalf("Bool(%q) accepted %#v", k, raw)
			}
		}
		if v, ok := o.Enum(k, "any", "morning"); ok && v != "any" && v != "morning" {
			t.Fatalf("Enum(%q) accepted %q", k, v)
		}
		if d, ok := o.Date(k); ok && len(d) != 10 {
			t.Fatalf("Date(%q) accepted %q", k, d)
		}
		o.Time(k)
		if l, ok := o.List(k, 1, 3); ok && (len(l) < 1 || len(l) > 3) {
			t.Fatalf("List(%q) accepted %d items", k, len(l))
		}
		o.Ints(k, 0, 0)
		o.Strings(k, 0, 0, 10)
		o.Map(k)
		if sub := o.Sub(k); sub != nil && depth > 0 {
			if m, ok := raw.(map[string]any); ok {
				readAll(t, sub, sortedKeys(m), depth-1)
			}
		}
		if s, ok := raw.(string); ok {
			valid.UUID(o.Report(), s, o.Loc(k)...)
		}
	}
	o.Require(keys...)
}

func sortedKeys(m map[string]any) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	return keys
}

func FuzzParseJSON(f *testing.F) {
	f.Fuzz(func(t *testing.T, data []byte) {
		v, err := valid.ParseJSON(data)
		// encoding/json accepts invalid UTF-8 (as U+FFFD); JSON text is
		// UTF-8 (RFC 8259, section 8.1), so ParseJSON does not.
		if wantOK := json.Valid(data) && utf8.Valid(data); wantOK != (err == nil) {
			t.Fatalf("ParseJSON(%q): err = %v, but json.Valid && utf8.Valid = %v", data, err, wantOK)
		}
		if err != nil {
			var verr valid.Error
			if !errors.As(err, &verr) || len(verr) != 1 || verr[0].Type != "json_invalid" || len(verr[0].Loc) != 1 || verr[0].Loc[0] != "body" {
				t.Fatalf("ParseJSON(%q) = %#v, want one json_invalid item at [body]", data, err)
			}
			return
		}
		rep := &valid.Report{}
		o := rep.Object(v, "model_type", "body")
		if m, ok := v.(map[string]any); ok {
			if !o.Valid() {
				t.Fatal("an object is not Valid")
			}
			readAll(t, o, sortedKeys(m), 3)
		} else {
			if o.Valid() {
				t.Fatalf("%#v read as an object", v)
			}
			readAll(t, o, []string{"a"}, 0) // every getter of a non-object reports nothing more
			if len(rep.Problems) != 1 || rep.Problems[0].Type != "model_type" {
				t.Fatalf("a non-object body: %+v", rep.Problems)
			}
		}
		checkProblems(t, rep, "body")
	})
}

func FuzzQuery(f *testing.F) {
	f.Fuzz(func(t *testing.T, raw string) {
		values, err := valid.ParseQuery(raw)
		if _, goErr := url.ParseQuery(raw); (err == nil) != (goErr == nil) {
			t.Fatalf("ParseQuery(%q): %v, url.ParseQuery: %v", raw, err, goErr)
		}
		if err != nil {
			if verr, ok := err.(valid.Error); !ok || len(verr) != 1 || verr[0].Type != "value_error" || len(verr[0].Loc) != 1 || verr[0].Loc[0] != "query" {
				t.Fatalf("ParseQuery(%q) = %v, want one value_error at [query]", raw, err)
			}
			return
		}
		rep := &valid.Report{}
		q := rep.Query(values)
		for k := range values {
			if s, ok := q.Str(k, 50); ok && (utf8.RuneCountInString(s) > 50 || strings.IndexByte(s, 0) >= 0 || !utf8.ValidString(s)) {
				t.Fatalf("Str(%q) accepted %q", k, s)
			}
			if n, ok := q.Int(k, 1, 200); ok && (n < 1 || n > 200) {
				t.Fatalf("Int(%q) accepted %d", k, n)
			}
			q.IntDefault(k, 5, 0, 10)
			if ids := q.Ints(k, 3); len(ids) > 3 || len(ids) != len(slices.Compact(slices.Sorted(slices.Values(ids)))) {
				t.Fatalf("Ints(%q, 3) = %v: more than 3 or repeated", k, ids)
			}
			q.Bool(k)
			q.Enum(k, "asc", "desc")
			q.Time(k)
			q.Date(k)
			rep.PathInt(k, values.Get(k))
		}
		for _, p := range rep.Problems {
			if len(p.Loc) == 0 || (p.Loc[0] != "query" && p.Loc[0] != "path") || p.Msg == "" || !slices.Contains(pydanticTypes, p.Type) {
				t.Fatalf("problem %+v", p)
			}
		}
	})
}
