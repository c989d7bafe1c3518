package valid

import (
	"encoding/json"
	"fmt"
	"math"
	"regexp"
	"strconv"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/frontdesk/frontdesk/internal/clock"
)

// Object reads the fields of one JSON object. A nil or non-object value has
// already been reported; its getters then return "absent" without reporting
// anything more.
type Object struct {
	r   *Report
	loc []any
	m   map[string]any
}

// Object starts reading v as an object at loc. A value that is not an object
// is reported with typ (model_type for a fixed shape, dict_type for a map).
func (r *Report) Object(v any, typ string, loc ...any) *Object {
	o := &Object{r: r, loc: loc}
	m, ok := v.(map[string]any)
	if !ok {
		r.Add(loc, typ, objectMsg(typ))
		return o
	}
	o.m = m
	return o
}

func objectMsg(typ string) string {
	if typ == "dict_type" {
		return "Input should be a valid dictionary"
	}
	return "Input should be a valid dictionary or object to extract fields from"
}

// Valid reports whether the value was an object.
func (o *Object) Valid() bool { return o.m != nil }

// Loc is the location of a field of this object.
func (o *Object) Loc(name string) []any { return loc(o.loc, name) }

// Report returns the report problems are added to.
func (o *Object) Report() *Report { return o.r }

// Raw returns a field's value and whether it was sent and not null.
func (o *Object) Raw(name string) (any, bool) {
	if o.m == nil {
		return nil, false
	}
	v, ok := o.m[name]
	return v, ok && v != nil
}

// Has reports whether a field was sent (null included).
func (o *Object) Has(name string) bool {
	if o.m == nil {
		return false
	}
	_, ok := o.m[name]
	return ok
}

// Require reports every name that is absent or null as missing.
func (o *Object) Require(names ...string) {
	if o.m == nil {
		return
	}
	for _, n := range names {
		if _, ok := o.Raw(n); !ok {
			o.r.Add(o.Loc(n), "missing", "Field required")
		}
	}
}

// Str reads an optional string of at most max characters (max <= 0: no limit).
func (o *Object) Str(name string, max int) (string, bool) {
	v, ok := o.Raw(name)
	if !ok {
		return "", false
	}
	return String(o.r, v, max, o.Loc(name)...)
}

// String checks that v is a string of at most max characters. A NUL
// character or invalid UTF-8 (possible in a query string) is refused like a
// wrong type: PostgreSQL cannot store either, and no field needs them.
func String(r *Report, v any, max int, at ...any) (string, bool) {
	s, ok := v.(string)
	if !ok {
		r.Add(at, "string_type", "Input should be a valid string")
		return "", false
	}
	if strings.IndexByte(s, 0) >= 0 || !utf8.ValidString(s) {
		r.Add(at, "string_type", "Input should be a valid string: NUL characters and invalid UTF-8 are not allowed")
		return "", false
	}
	if max > 0 && utf8.RuneCountInString(s) > max {
		r.Add(at, "string_too_long", fmt.Sprintf("String should have at most %d characters", max))
		return "", false
	}
	return s, true
}

// Int reads an optional integer.
func (o *Object) Int(name string) (int64, bool) {
	v, ok := o.Raw(name)
	if !ok {
		return 0, false
	}
	return Int(o.r, v, o.Loc(name)...)
}

// IntRange reads an optional integer within [lo, hi].
func (o *Object) IntRange(name string, lo, hi int64) (int64, bool) {
	n, ok := o.Int(name)
	if !ok {
		return 0, false
	}
	return n, InRange(o.r, n, lo, hi, o.Loc(name)...)
}

// InRange reports n outside [lo, hi].
func InRange(r *Report, n, lo, hi int64, at ...any) bool {
	if n < lo {
		r.Add(at, "greater_than_equal", fmt.Sprintf("Input should be greater than or equal to %d", lo))
		return false
	}
	if n > hi {
		r.Add(at, "less_than_equal", fmt.Sprintf("Input should be less than or equal to %d", hi))
		return false
	}
	return true
}

// Int checks that v is a JSON integer. Strings are refused: the contract
// reads `client_id: "7"` as a wrong type.
func Int(r *Report, v any, at ...any) (int64, bool) {
	switch x := v.(type) {
	case json.Number:
		if n, err := strconv.ParseInt(string(x), 10, 64); err == nil {
			return n, true
		}
		if f, err := strconv.ParseFloat(string(x), 64); err == nil && f == math.Trunc(f) && math.Abs(f) < 1<<53 {
			return int64(f), true
		}
		r.Add(at, "int_parsing", "Input should be a valid integer, got a number with a fractional part")
	case string:
		r.Add(at, "int_parsing", "Input should be a valid integer, unable to parse string as an integer")
	default:
		r.Add(at, "int_type", "Input should be a valid integer")
	}
	return 0, false
}

// Float reads an optional number.
func (o *Object) Float(name string) (float64, bool) {
	v, ok := o.Raw(name)
	if !ok {
		return 0, false
	}
	if x, ok := v.(json.Number); ok {
		if f, err := x.Float64(); err == nil && !math.IsInf(f, 0) {
			return f, true
		}
	}
	o.r.Add(o.Loc(name), "float_parsing", "Input should be a valid number")
	return 0, false
}

// Bool reads an optional boolean.
func (o *Object) Bool(name string) (bool, bool) {
	v, ok := o.Raw(name)
	if !ok {
		return false, false
	}
	switch x := v.(type) {
	case bool:
		return x, true
	case string:
		o.r.Add(o.Loc(name), "bool_parsing", "Input should be a valid boolean, unable to interpret input")
	default:
		o.r.Add(o.Loc(name), "bool_type", "Input should be a valid boolean")
	}
	return false, false
}

// Enum reads an optional string that must be one of allowed.
func (o *Object) Enum(name string, allowed ...string) (string, bool) {
	s, ok := o.Str(name, 0)
	if !ok {
		return "", false
	}
	return Literal(o.r, s, allowed, o.Loc(name)...)
}

// Literal checks that s is one of allowed.
func Literal(r *Report, s string, allowed []string, at ...any) (string, bool) {
	for _, a := range allowed {
		if s == a {
			return s, true
		}
	}
	quoted := make([]string, len(allowed))
	for i, a := range allowed {
		quoted[i] = "'" + a + "'"
	}
	msg := "Input should be " + quoted[0]
	if len(quoted) > 1 {
		msg = "Input should be " + strings.Join(quoted[:len(quoted)-1], ", ") + " or " + quoted[len(quoted)-1]
	}
	r.Add(at, "literal_error", msg)
	return "", false
}

var dateRE = regexp.MustCompile(`^\d{4}-\d{2}-\d{2}$`)

// Date reads an optional YYYY-MM-DD date, returned in that form.
func (o *Object) Date(name string) (string, bool) {
	s, ok := o.Str(name, 0)
	if !ok {
		return "", false
	}
	return Date(o.r, s, o.Loc(name)...)
}

// Date checks that s is a real calendar date in YYYY-MM-DD form, from
// 0001-01-01 to 9999-12-31 (pydantic's dates: there is no year 0).
func Date(r *Report, s string, at ...any) (string, bool) {
	if dateRE.MatchString(s) {
		if t, err := time.Parse(time.DateOnly, s); err == nil && t.Year() >= 1 {
			return s, true
		}
	}
	r.Add(at, "date_from_datetime_parsing", "Input should be a valid date in the format YYYY-MM-DD")
	return "", false
}

// Time reads an optional RFC 3339 timestamp; without an offset it is UTC.
func (o *Object) Time(name string) (time.Time, bool) {
	s, ok := o.Str(name, 0)
	if !ok {
		return time.Time{}, false
	}
	return Timestamp(o.r, s, o.Loc(name)...)
}

// Timestamp parses an ISO 8601 / RFC 3339 timestamp. A missing offset means
// UTC; a bare date means its midnight UTC.
func Timestamp(r *Report, s string, at ...any) (time.Time, bool) {
	if t, ok := ParseTimestamp(s); ok {
		return t, true
	}
	r.Add(at, "datetime_parsing", "Input should be a valid datetime (ISO 8601, e.g. 2026-01-05T10:00:00Z)")
	return time.Time{}, false
}

// ParseTimestamp is Timestamp without a report. An instant whose UTC year
// is outside 0001..9999 (9999-12-31T23:00:00-10:00) is refused: no answer
// could write it (clock.Representable).
func ParseTimestamp(s string) (time.Time, bool) {
	for _, layout := range []string{time.RFC3339Nano, "2006-01-02T15:04:05.999999999", "2006-01-02 15:04:05.999999999Z07:00", "2006-01-02 15:04:05.999999999", time.DateOnly} {
		if t, err := time.Parse(layout, s); err == nil {
			return t.UTC(), clock.Representable(t)
		}
	}
	return time.Time{}, false
}

// List reads an optional array with between min and max items (max <= 0: no
// upper bound).
func (o *Object) List(name string, min, max int) ([]any, bool) {
	v, ok := o.Raw(name)
	if !ok {
		return nil, false
	}
	return List(o.r, v, min, max, o.Loc(name)...)
}

// List checks that v is an array of an allowed length.
func List(r *Report, v any, min, max int, at ...any) ([]any, bool) {
	l, ok := v.([]any)
	if !ok {
		r.Add(at, "list_type", "Input should be a valid list")
		return nil, false
	}
	if !Len(r, len(l), min, max, at...) {
		return nil, false
	}
	return l, true
}

// Len checks that a list of n items has between min and max of them (max
// <= 0: no upper bound): the check of List for a list already typed (an MCP
// tool's arguments).
func Len(r *Report, n, min, max int, at ...any) bool {
	if n < min {
		r.Add(at, "too_short", fmt.Sprintf("List should have at least %d %s after validation, not %d", min, items(min), n))
		return false
	}
	if max > 0 && n > max {
		tooLong(r, n, max, at)
		return false
	}
	return true
}

func tooLong(r *Report, n, max int, at []any) {
	r.Add(at, "too_long", fmt.Sprintf("List should have at most %d %s after validation, not %d", max, items(max), n))
}

// IDs returns the distinct ids of a typed id list in order of first
// appearance; more than max distinct ids is one too_long problem at at and
// no ids. It counts as Query.Ints does, so a list argument and a repeatable
// query parameter with the same cap accept the same lists.
func IDs(r *Report, ids []int64, max int, at ...any) []int64 {
	seen := make(map[int64]bool)
	var out []int64
	for _, id := range ids {
		if !seen[id] {
			seen[id] = true
			out = append(out, id)
		}
	}
	if max > 0 && len(out) > max {
		tooLong(r, len(out), max, at)
		return nil
	}
	return out
}

func items(n int) string {
	if n == 1 {
		return "item"
	}
	return "items"
}

// Ints reads an optional array of integers.
func (o *Object) Ints(name string, min, max int) ([]int64, bool) {
	l, ok := o.List(name, min, max)
	if !ok {
		return nil, false
	}
	out := make([]int64, 0, len(l))
	good := true
	for i, v := range l {
		n, ok := Int(o.r, v, loc(o.Loc(name), i)...)
		good = good && ok
		out = append(out, n)
	}
	return out, good
}

// Strings reads an optional array of strings, each at most max characters.
func (o *Object) Strings(name string, min, max, maxLen int) ([]string, bool) {
	l, ok := o.List(name, min, max)
	if !ok {
		return nil, false
	}
	out := make([]string, 0, len(l))
	good := true
	for i, v := range l {
		s, ok := String(o.r, v, maxLen, loc(o.Loc(name), i)...)
		good = good && ok
		out = append(out, s)
	}
	return out, good
}

// Map reads an optional free-form object (dict_type when it is not one).
func (o *Object) Map(name string) (map[string]any, bool) {
	v, ok := o.Raw(name)
	if !ok {
		return nil, false
	}
	m, isMap := v.(map[string]any)
	if !isMap {
		o.r.Add(o.Loc(name), "dict_type", "Input should be a valid dictionary")
		return nil, false
	}
	return m, true
}

// Sub reads an optional nested object of a fixed shape (model_type when it is
// not one). It returns nil when the field is absent or null.
func (o *Object) Sub(name string) *Object {
	v, ok := o.Raw(name)
	if !ok {
		return nil
	}
	return o.r.Object(v, "model_type", o.Loc(name)...)
}

var uuidRE = regexp.MustCompile(`^[0-9a-fA-F]{8}-?[0-9a-fA-F]{4}-?[0-9a-fA-F]{4}-?[0-9a-fA-F]{4}-?[0-9a-fA-F]{12}$`)

// UUID checks s is a UUID and returns it in canonical lower-case form.
func UUID(r *Report, s string, at ...any) (string, bool) {
	if !uuidRE.MatchString(s) {
		r.Add(at, "uuid_parsing", "Input should be a valid UUID")
		return "", false
	}
	h := strings.ToLower(strings.ReplaceAll(s, "-", ""))
	return h[0:8] + "-" + h[8:12] + "-" + h[12:16] + "-" + h[16:20] + "-" + h[20:], true
}
