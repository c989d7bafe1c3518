package valid

import (
	"net/url"
	"strconv"
	"strings"
	"time"
)

// Query reads query-string parameters; problems are located at ['query', name].
type Query struct {
	r *Report
	v url.Values
}

// Query starts reading q.
func (r *Report) Query(q url.Values) *Query { return &Query{r: r, v: q} }

func (q *Query) get(name string) (string, bool) {
	vs, ok := q.v[name]
	if !ok || len(vs) == 0 {
		return "", false
	}
	return vs[len(vs)-1], true
}

// Str returns a parameter.
func (q *Query) Str(name string, max int) (string, bool) {
	s, ok := q.get(name)
	if !ok {
		return "", false
	}
	return String(q.r, s, max, "query", name)
}

// Int parses an optional integer parameter within [lo, hi].
func (q *Query) Int(name string, lo, hi int64) (int64, bool) {
	s, ok := q.get(name)
	if !ok {
		return 0, false
	}
	n, err := strconv.ParseInt(strings.TrimSpace(s), 10, 64)
	if err != nil {
		q.r.Add([]any{"query", name}, "int_parsing", "Input should be a valid integer, unable to parse string as an integer")
		return 0, false
	}
	return n, InRange(q.r, n, lo, hi, "query", name)
}

// IntDefault is Int with a default for an absent parameter.
func (q *Query) IntDefault(name string, def, lo, hi int64) int64 {
	if n, ok := q.Int(name, lo, hi); ok {
		return n
	}
	return def
}

// Ints parses a repeatable integer parameter (?id=1&id=2; "1,2" also works).
func (q *Query) Ints(name string) []int64 {
	var out []int64
	for i, raw := range q.v[name] {
		for _, s := range strings.Split(raw, ",") {
			s = strings.TrimSpace(s)
			if s == "" {
				continue
			}
			n, err := strconv.ParseInt(s, 10, 64)
			if err != nil {
				at := []any{"query", name}
				if len(q.v[name]) > 1 {
					at = append(at, i)
				}
				q.r.Add(at, "int_parsing", "Input should be a valid integer, unable to parse string as an integer")
				continue
			}
			out = append(out, n)
		}
	}
	return out
}

// Bool parses an optional boolean parameter the way pydantic does.
func (q *Query) Bool(name string) (bool, bool) {
	s, ok := q.get(name)
	if !ok {
		return false, false
	}
	switch strings.ToLower(strings.TrimSpace(s)) {
	case "true", "1", "yes", "on", "t", "y":
		return true, true
	case "false", "0", "no", "off", "f", "n":
		return false, true
	}
	q.r.Add([]any{"query", name}, "bool_parsing", "Input should be a valid boolean, unable to interpret input")
	return false, false
}

// Enum parses an optional parameter restricted to allowed values.
func (q *Query) Enum(name string, allowed ...string) (string, bool) {
	s, ok := q.get(name)
	if !ok {
		return "", false
	}
	return Literal(q.r, s, allowed, "query", name)
}

// Time parses an optional timestamp parameter.
func (q *Query) Time(name string) (time.Time, bool) {
	s, ok := q.get(name)
	if !ok {
		return time.Time{}, false
	}
	return Timestamp(q.r, s, "query", name)
}

// Date parses an optional YYYY-MM-DD parameter.
func (q *Query) Date(name string) (string, bool) {
	s, ok := q.get(name)
	if !ok {
		return "", false
	}
	return Date(q.r, s, "query", name)
}

// PathInt parses an integer path parameter.
func (r *Report) PathInt(name, s string) int64 {
	n, err := strconv.ParseInt(s, 10, 64)
	if err != nil {
		r.Add([]any{"path", name}, "int_parsing", "Input should be a valid integer, unable to parse string as an integer")
	}
	return n
}
