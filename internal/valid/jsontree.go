package valid

// The tree of a JSON document, read in one pass. encoding/json reads a
// document into interface values in two passes (one to validate, one to
// decode, each through its byte-by-byte state machine); for a 500-row
// ingest body that was a tenth of the server's work on the batch
// (docs/performance.md, "Reading request bodies"). readTree builds the same
// tree encoding/json builds with UseNumber (map[string]any, []any, string,
// json.Number, bool, nil; a repeated key keeps its last value; a lone UTF-16
// surrogate escape reads as U+FFFD) and gives up on anything it does not
// accept, so that ParseJSON asks encoding/json for its exact error message.
// FuzzParseJSONTree holds the two to the same answers.

import (
	"encoding/json"
	"unicode/utf16"
	"unicode/utf8"
)

// maxTreeDepth is encoding/json's nesting limit; deeper documents are its
// error to report.
const maxTreeDepth = 10000

// readTree returns the document's tree, or ok false when data is not one
// JSON value (surrounded by white space only) that it reads exactly as
// encoding/json does. data must be valid UTF-8.
func readTree(data []byte) (v any, ok bool) {
	r := treeReader{data: data}
	r.space()
	v, ok = r.value(0)
	if !ok {
		return nil, false
	}
	r.space()
	if r.at != len(data) {
		return nil, false
	}
	return v, true
}

type treeReader struct {
	data []byte
	at   int
}

func (r *treeReader) space() {
	for r.at < len(r.data) {
		switch r.data[r.at] {
		case ' ', '\t', '\n', '\r':
			r.at++
		default:
			return
		}
	}
}

func (r *treeReader) value(depth int) (any, bool) {
	if r.at >= len(r.data) {
		return nil, false
	}
	switch c := r.data[r.at]; {
	case c == '{':
		return r.object(depth + 1)
	case c == '[':
		return r.array(depth + 1)
	case c == '"':
		str, ok := r.string()
		return str, ok
	case c == '-' || (c >= '0' && c <= '9'):
		return r.number()
	case c == 't':
		return true, r.literal("true")
	case c == 'f':
		return false, r.literal("false")
	case c == 'n':
		return nil, r.literal("null")
	}
	return nil, false
}

func (r *treeReader) literal(word string) bool {
	if len(r.data)-r.at < len(word) || string(r.data[r.at:r.at+len(word)]) != word {
		return false
	}
	r.at += len(word)
	return true
}

func (r *treeReader) object(depth int) (any, bool) {
	if depth > maxTreeDepth {
		return nil, false
	}
	r.at++ // {
	m := map[string]any{}
	r.space()
	if r.at < len(r.data) && r.data[r.at] == '}' {
		r.at++
		return m, true
	}
	for {
		if r.at >= len(r.data) || r.data[r.at] != '"' {
			return nil, false
		}
		k, ok := r.string()
		if !ok {
			return nil, false
		}
		r.space()
		if r.at >= len(r.data) || r.data[r.at] != ':' {
			return nil, false
		}
		r.at++
		r.space()
		v, ok := r.value(depth)
		if !ok {
			return nil, false
		}
		m[k] = v
		end, ok := r.after('}')
		if !ok {
			return nil, false
		}
		if end {
			return m, true
		}
	}
}

func (r *treeReader) array(depth int) (any, bool) {
	if depth > maxTreeDepth {
		return nil, false
	}
	r.at++ // [
	a := []any{}
	r.space()
	if r.at < len(r.data) && r.data[r.at] == ']' {
		r.at++
		return a, true
	}
	for {
		v, ok := r.value(depth)
		if !ok {
			return nil, false
		}
		a = append(a, v)
		end, ok := r.after(']')
		if !ok {
			return nil, false
		}
		if end {
			return a, true
		}
	}
}

// after reads what follows a member of an object or array: a comma (more
// follow) or the closing bracket (end).
func (r *treeReader) after(closing byte) (end, ok bool) {
	r.space()
	if r.at >= len(r.data) {
		return false, false
	}
	switch r.data[r.at] {
	case ',':
		r.at++
		r.space()
		return false, true
	case closing:
		r.at++
		return true, true
	}
	return false, false
}

// number reads -?(0|[1-9][0-9]*)(\.[0-9]+)?([eE][+-]?[0-9]+)? as its text.
func (r *treeReader) number() (any, bool) {
	start := r.at
	if r.data[r.at] == '-' {
		r.at++
	}
	switch {
	case r.at < len(r.data) && r.data[r.at] == '0':
		r.at++
	case r.digits() == 0:
		return nil, false
	}
	if r.at < len(r.data) && r.data[r.at] == '.' {
		r.at++
		if r.digits() == 0 {
			return nil, false
		}
	}
	if r.at < len(r.data) && (r.data[r.at] == 'e' || r.data[r.at] == 'E') {
		r.at++
		if r.at < len(r.data) && (r.data[r.at] == '+' || r.data[r.at] == '-') {
			r.at++
		}
		if r.digits() == 0 {
			return nil, false
		}
	}
	return json.Number(r.data[start:r.at]), true
}

func (r *treeReader) digits() int {
	start := r.at
	for r.at < len(r.data) && r.data[r.at] >= '0' && r.data[r.at] <= '9' {
		r.at++
	}
	return r.at - start
}

// string reads a string at its opening quote.
func (r *treeReader) string() (string, bool) {
	r.at++ // "
	start := r.at
	for r.at < len(r.data) {
		switch c := r.data[r.at]; {
		case c == '"':
			s := string(r.data[start:r.at])
			r.at++
			return s, true
		case c == '\\':
			return r.escaped(start)
		case c < 0x20:
			return "", false
		default:
			r.at++
		}
	}
	return "", false
}

// escaped finishes a string that holds escapes, from its first backslash.
func (r *treeReader) escaped(start int) (string, bool) {
	b := make([]byte, 0, r.at-start+16)
	b = append(b, r.data[start:r.at]...)
	for r.at < len(r.data) {
		c := r.data[r.at]
		switch {
		case c == '"':
			r.at++
			return string(b), true
		case c < 0x20:
			return "", false
		case c != '\\':
			b = append(b, c)
			r.at++
			continue
		}
		if r.at+1 >= len(r.data) {
			return "", false
		}
		switch e := r.data[r.at+1]; e {
		case '"', '\\', '/':
			b = append(b, e)
		case 'b':
			b = append(b, '\b')
		case 'f':
			b = append(b, '\f')
		case 'n':
			b = append(b, '\n')
		case 'r':
			b = append(b, '\r')
		case 't':
			b = append(b, '\t')
		case 'u':
			u, ok := hex4(r.data[r.at+2:])
			if !ok {
				return "", false
			}
			r.at += 6
			if utf16.IsSurrogate(u) {
				// A pair when a low surrogate escape follows; otherwise
				// U+FFFD, and what follows is read on its own.
				if len(r.data)-r.at >= 6 && r.data[r.at] == '\\' && r.data[r.at+1] == 'u' {
					if lo, ok := hex4(r.data[r.at+2:]); ok {
						if d := utf16.DecodeRune(u, lo); d != utf8.RuneError {
							b = utf8.AppendRune(b, d)
							r.at += 6
							continue
						}
					}
				}
				u = utf8.RuneError
			}
			b = utf8.AppendRune(b, u)
			continue
		default:
			return "", false
		}
		r.at += 2
	}
	return "", false
}

// hex4 reads the four hexadecimal digits of a \u escape.
func hex4(b []byte) (rune, bool) {
	if len(b) < 4 {
		return 0, false
	}
	var v rune
	for _, c := range b[:4] {
		switch {
		case c >= '0' && c <= '9':
			v = v<<4 | rune(c-'0')
		case c >= 'a' && c <= 'f':
			v = v<<4 | rune(c-'a'+10)
		case c >= 'A' && c <= 'F':
			v = v<<4 | rune(c-'A'+10)
		default:
			return 0, false
		}
	}
	return v, true
}
