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

// MaxQueryIDs is the most distinct ids a repeatable id parameter
// (?disposition_tag_ids=…, ?service_id=…) accepts: far more than any
// account has tags or services, and far fewer than SQLite's limit on bound
// variables (a list is bound one variable per id there).
const MaxQueryIDs = 500

// MaxOffset is the largest offset a paged listing takes.
const MaxOffset = 1<<31 - 1

// Ints parses a repeatable integer parameter (?id=1&id=2; "1,2" also
// works) into its distinct values, in order of first appearance. More than
// max distinct values is one too_long problem at ['query', name].
func (q *Query) Ints(name string, max int) []int64 {
	raws := q.v[name]
	var tokens []string
	at := []int{} // the index of each token's raw parameter
	seen := map[string]bool{}
	for i, raw := range raws {
		for _, s := range strings.Split(raw, ",") {
			s = strings.TrimSpace(s)
			if s == "" || seen[s] {
				continue
			}
			seen[s] = true
			tokens = append(tokens, s)
			at = append(at, i)
		}
	}
	if max > 0 && len(tokens) > max {
		tooLong(q.r, len(tokens), max, []any{"query", name})
		return nil
	}
	var out []int64
	got := map[int64]bool{}
	for k, s := range tokens {
		n, err := strconv.ParseInt(s, 10, 64)
		if err != nil {
			loc := []any{"query", name}
			if len(raws) > 1 {
				loc = append(loc, at[k])
			}
			q.r.Add(loc, "int_parsing", "Input should be a valid integer, unable to parse string as an integer")
			continue
		}
		if !got[n] {
			got[n] = true
			out = append(out, n)
		}
	}
	return out
}

// ParseQuery parses a raw query string. Go's url.ParseQuery stops at a
// ';' or a malformed %-escape and r.URL.Query() silently drops what follows,
// so a caller's filters would vanish; here a malformed query string is one
// value_error at ['query'].
func ParseQuery(raw string) (url.Values, error) {
	v, err := url.ParseQuery(raw)
	if err != nil {
		return nil, Error{{Loc: []any{"query"}, Type: "value_error",
			Msg: "Value error, the query string is malformed (" + err.Error() + "): separate parameters with '&' and percent-encode '%' as %25 and ';' as %3B"}}
	}
	return v, nil
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
