package pipeline

import (
	"encoding/json"
	"runtime"
	"strings"
	"sync"

	"github.com/frontdesk/frontdesk/internal/contact"
	"github.com/frontdesk/frontdesk/internal/errs"
	"github.com/frontdesk/frontdesk/internal/phone"
	"github.com/frontdesk/frontdesk/internal/valid"
)

// Row error codes (docs/contract.md, Batch ingest; not_found is this
// product's addition).
const (
	CodeRequired      = "required"
	CodeInvalidFormat = "invalid_format"
	CodeConflict      = "conflict"
	CodeExists        = "exists"
	CodeNotFound      = "not_found"
)

// Limits on row values.
const (
	maxNameLen    = contact.MaxNameLen
	maxEmailLen   = 255
	maxDataKeyLen = 100
	maxDataBytes  = 16 * 1024
)

// RowError is one problem of a row. Every key is always present.
type RowError struct {
	Field               string `json:"field"`
	Code                string `json:"code"`
	Message             string `json:"message"`
	ExistingClientID    *int64 `json:"existing_client_id"`
	ConflictingClientID *int64 `json:"conflicting_client_id"`
	DuplicateOfIndex    *int   `json:"duplicate_of_index"`
}

// Tag is a tag as sent in a row or in defaults.
type Tag struct {
	Name        string  `json:"name"`
	Color       string  `json:"color"`
	Description *string `json:"description"`
}

// Defaults are batch-wide values applied where a row is silent.
type Defaults struct {
	AreaCode string
	Timezone string
	Tags     []Tag
	Data     map[string]any
}

// Row is one contact to ingest, read from the request.
type Row struct {
	Index      int
	ExternalID any
	ClientID   *int64
	FirstName  string
	LastName   string
	Phone      phone.Number
	Email      string
	Company    string
	Timezone   string
	Data       map[string]any // nil: not sent; a nil value removes the key
	Tags       []Tag

	hasPhoneText bool
	errors       []RowError
}

func rowErr(field, code, msg string) RowError {
	return RowError{Field: field, Code: code, Message: msg}
}

// ParseRow reads one batch row. Value problems never fail the request: they
// are the row's invalid_format errors, so the rest of the batch proceeds.
// raw must be an object (the request's schema already checked that).
func ParseRow(index int, raw map[string]any, defaults Defaults) Row {
	rep := &valid.Report{}
	o := rep.Object(raw, "model_type", "row")
	r := Row{Index: index, ExternalID: raw["external_id"]}
	if id, ok := o.Int("client_id"); ok {
		r.ClientID = &id
	}
	r.FirstName = trimmed(o.Str("first_name", maxNameLen))
	r.LastName = trimmed(o.Str("last_name", maxNameLen))
	phoneText := trimmed(o.Str("phone_number", 64))
	areaCode := trimmed(o.Str("area_code", MaxAreaCodeLen))
	r.Email = trimmed(o.Str("email", maxEmailLen))
	r.Company = trimmed(o.Str("company", 255))
	r.Timezone = trimmed(o.Str("timezone", MaxTimezoneLen))
	if m, ok := o.Map("data"); ok {
		r.Data = m
	}
	if l, ok := o.List("tags", 0, MaxTags); ok {
		r.Tags = parseTags(rep, l, o.Loc("tags"))
	}
	for _, p := range rep.Problems {
		r.errors = append(r.errors, rowErr(p.Field(), CodeInvalidFormat, p.Msg))
	}
	if r.Email != "" {
		if _, ok := valid.Email(r.Email); !ok {
			r.errors = append(r.errors, rowErr("email", CodeInvalidFormat, "email is not a valid e-mail address"))
		}
	}
	if r.Timezone != "" && !contact.ValidZone(r.Timezone) {
		r.errors = append(r.errors, rowErr("timezone", CodeInvalidFormat, "timezone is not an IANA time zone name"))
	}
	for k := range r.Data {
		if len([]rune(k)) > maxDataKeyLen || k == "" {
			r.errors = append(r.errors, rowErr("data", CodeInvalidFormat, "data keys must have 1 to 100 characters"))
			break
		}
	}
	if areaCode == "" {
		areaCode = defaults.AreaCode
	} else if _, err := phone.ParseCallingCode(areaCode); err != nil {
		r.errors = append(r.errors, rowErr("area_code", CodeInvalidFormat, "area_code is not a country calling code such as 34 or +34"))
	}
	if phoneText != "" {
		r.hasPhoneText = true
		n, err := phone.ParseIngest(phoneText, areaCode)
		if err != nil {
			r.errors = append(r.errors, rowErr("phone_number", CodeInvalidFormat, err.Error()))
		} else {
			r.Phone = n
		}
	}
	if !present(raw["client_id"]) && !present(raw["phone_number"]) && !present(raw["email"]) {
		r.errors = append(r.errors, rowErr("phone_number", CodeRequired, "a row needs a client_id, a phone_number or an email"))
	}
	return r
}

func parseTags(rep *valid.Report, l []any, at []any) []Tag {
	var tags []Tag
	for i, raw := range l {
		t := rep.Object(raw, "model_type", append(append([]any{}, at...), i)...)
		if !t.Valid() {
			continue
		}
		t.Require("name")
		name := trimmed(t.Str("name", 100))
		tag := Tag{Name: name, Color: trimmed(t.Str("color", 32))}
		if d, ok := t.Str("description", 500); ok {
			tag.Description = &d
		}
		if name != "" {
			tags = append(tags, tag)
		}
	}
	return tags
}

// ParseTags reads the tags of defaults (problems are the caller's 422s).
func ParseTags(rep *valid.Report, l []any, at ...any) []Tag { return parseTags(rep, l, at) }

// present reports a value that is sent and not blank.
func present(v any) bool {
	if s, ok := v.(string); ok {
		return strings.TrimSpace(s) != ""
	}
	return v != nil
}

func trimmed(s string, _ bool) string { return strings.TrimSpace(s) }

// mergeData applies defaults.data then the row's data onto base (a copy),
// key by key: a key sets, a null removes, unmentioned keys stay. It reports
// whether the result differs and returns its JSON, which is what is stored
// (contact.New.DataJSON) and what the size limit counts.
func mergeData(base map[string]any, layers ...map[string]any) (map[string]any, bool, string) {
	out := make(map[string]any, len(base))
	for k, v := range base {
		out[k] = v
	}
	changed := false
	for _, layer := range layers {
		for k, v := range layer {
			old, had := out[k]
			if v == nil {
				if had {
					delete(out, k)
					changed = true
				}
				continue
			}
			if !had || !sameJSON(old, v) {
				out[k] = v
				changed = true
			}
		}
	}
	b, err := appendValue(make([]byte, 0, 128), out, true)
	if err != nil {
		b, _ = json.Marshal(out)
	}
	return out, changed, string(b)
}

// sameJSON reports whether two values encode the same. Strings (most
// custom fields) compare as they are: decoded JSON strings are valid UTF-8,
// on which encoding is one-to-one. Anything else (a stored number is a
// float64, a sent one a json.Number) compares encoded.
func sameJSON(a, b any) bool {
	if x, ok := a.(string); ok {
		if y, ok := b.(string); ok {
			return x == y
		}
	}
	x, _ := json.Marshal(a)
	y, _ := json.Marshal(b)
	return string(x) == string(y)
}

// ParseRows reads a batch's rows, spreading the work over the CPUs: phone
// normalisation is the costliest step of a batch outside the database, and
// rows are independent.
func ParseRows(raw []map[string]any, defaults Defaults) []Row {
	out := make([]Row, len(raw))
	workers := min(runtime.GOMAXPROCS(0), (len(raw)+63)/64)
	if workers <= 1 {
		for i, m := range raw {
			out[i] = ParseRow(i, m, defaults)
		}
		return out
	}
	var wg sync.WaitGroup
	per := (len(raw) + workers - 1) / workers
	for start := 0; start < len(raw); start += per {
		end := min(start+per, len(raw))
		wg.Add(1)
		go func(start, end int) {
			defer wg.Done()
			for i := start; i < end; i++ {
				out[i] = ParseRow(i, raw[i], defaults)
			}
		}(start, end)
	}
	wg.Wait()
	return out
}

// CheckDefaults refuses batch-wide defaults that cannot apply to any row.
func CheckDefaults(d Defaults) error {
	if d.AreaCode != "" {
		if _, err := phone.ParseCallingCode(d.AreaCode); err != nil {
			return errs.WithDetails(errs.ValidationError, map[string]any{"field": "defaults.area_code"},
				"defaults.area_code %q is not a country calling code such as 34 or +34.", d.AreaCode)
		}
	}
	if d.Timezone != "" && !contact.ValidZone(d.Timezone) {
		return errs.WithDetails(errs.ValidationError, map[string]any{"field": "defaults.timezone"},
			"defaults.timezone %q is not an IANA time zone.", d.Timezone)
	}
	for k := range d.Data {
		if k == "" || len([]rune(k)) > maxDataKeyLen {
			return errs.WithDetails(errs.ValidationError, map[string]any{"field": "defaults.data"}, "defaults.data keys must have 1 to 100 characters.")
		}
	}
	return nil
}
