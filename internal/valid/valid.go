// Package valid reads untyped JSON bodies, query strings and path values into
// typed fields while collecting every problem at once, in the shape and with
// the type names of pydantic (docs/contract.md, Validation errors): the public contract reports
// schema problems as 422 items {loc, msg, type}.
//
// The same readers validate batch rows, where a problem fails the row instead
// of the request; the caller decides which by what it does with the Report.
package valid

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"strings"
	"unicode/utf8"
)

// Problem is one 422 item.
type Problem struct {
	Loc  []any  `json:"loc"`
	Msg  string `json:"msg"`
	Type string `json:"type"`
}

// Field returns the last string element of the location: the offending field.
func (p Problem) Field() string {
	for i := len(p.Loc) - 1; i >= 0; i-- {
		if s, ok := p.Loc[i].(string); ok {
			return s
		}
	}
	return ""
}

// Error is a request that did not match its schema: the 422 response.
type Error []Problem

func (e Error) Error() string {
	parts := make([]string, len(e))
	for i, p := range e {
		parts[i] = fmt.Sprintf("%v: %s", p.Loc, p.Msg)
	}
	return "validation failed: " + strings.Join(parts, "; ")
}

// Report collects problems.
type Report struct {
	Problems []Problem
}

// Add records one problem at loc.
func (r *Report) Add(loc []any, typ, msg string) {
	r.Problems = append(r.Problems, Problem{Loc: append([]any(nil), loc...), Type: typ, Msg: msg})
}

// OK reports whether nothing was recorded.
func (r *Report) OK() bool { return len(r.Problems) == 0 }

// Err returns the problems as an Error, or nil when there are none.
func (r *Report) Err() error {
	if len(r.Problems) == 0 {
		return nil
	}
	return Error(r.Problems)
}

// ParseJSON decodes a JSON document into a tree of map[string]any, []any,
// string, json.Number, bool and nil. A malformed document is the single
// json_invalid problem the contract asks for.
//
// Invalid UTF-8 is refused too (RFC 8259, section 8.1: JSON text is UTF-8), where
// encoding/json would quietly store U+FFFD in its place.
func ParseJSON(data []byte) (any, error) {
	if !utf8.Valid(data) {
		at := 0
		for at < len(data) {
			r, size := utf8.DecodeRune(data[at:])
			if r == utf8.RuneError && size <= 1 {
				break
			}
			at += size
		}
		return nil, Error{{Loc: []any{"body"}, Type: "json_invalid", Msg: fmt.Sprintf("JSON decode error: invalid UTF-8 at byte offset %d", at)}}
	}
	if v, ok := readTree(data); ok {
		return v, nil
	}
	// Not a document readTree reads: encoding/json says what is wrong.
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.UseNumber()
	var v any
	if err := dec.Decode(&v); err != nil {
		return nil, Error{{Loc: []any{"body"}, Type: "json_invalid", Msg: "JSON decode error: " + err.Error()}}
	}
	// Only white space may follow the document. (dec.More would accept a
	// stray closing bracket: `{} }`.)
	if _, err := dec.Token(); err != io.EOF {
		return nil, Error{{Loc: []any{"body"}, Type: "json_invalid", Msg: "JSON decode error: unexpected data after the document"}}
	}
	return v, nil
}

func loc(base []any, more ...any) []any {
	out := make([]any, 0, len(base)+len(more))
	out = append(out, base...)
	return append(out, more...)
}
