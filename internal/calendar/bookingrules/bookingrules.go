// Package bookingrules holds the booking rules' values
// (docs/booking-rules.md): how far ahead a patient may book, how late, how
// much room an appointment keeps around it, how many future appointments
// one client may hold and whether a patient may book a weekly course. The account sets them; a service overrides them
// field by field. Package calendar applies them (the slot engine, booking)
// and re-exports these names; the workspace file and the dashboard read
// values with the same functions.
package bookingrules

import (
	"encoding/json"
	"strconv"
	"strings"
	"time"

	"github.com/frontdesk/frontdesk/internal/clock"
	"github.com/frontdesk/frontdesk/internal/errs"
)

// Rules are the booking rules in force for one service. The zero value is
// every default: no notice, no horizon, no cancel cutoff, no buffers, no
// limit per client.
type Rules struct {
	MinNotice          time.Duration  // a start is at least this far from now
	MaxAdvance         *time.Duration // nil: no horizon; else a start is before now + MaxAdvance
	CancelCutoff       time.Duration  // a patient cancels or moves until this long before the start
	BufferBefore       int            // minutes the professional keeps free before an appointment
	BufferAfter        int            // minutes the professional keeps free after it
	MaxFuturePerClient *int           // nil: no limit; else future appointments not cancelled a client may hold
	AllowSeries        bool           // a patient may book a weekly series (docs/series.md); staff and the API always may
}

// Rule names, as the workspace file, the stored documents and the
// breaks_booking_rule warning's `rule` write them.
const (
	MinNotice          = "min_notice"
	MaxAdvance         = "max_advance"
	CancelCutoff       = "cancel_cutoff"
	BufferBefore       = "buffer_before"
	BufferAfter        = "buffer_after"
	MaxFuturePerClient = "max_future_per_client"
	AllowSeries        = "allow_series"
	// Buffer is the broken rule when an appointment's buffers (or its
	// neighbours') collide.
	Buffer = "buffer"
)

// Names lists the settable rules in the order forms and files show them.
var Names = []string{MinNotice, MaxAdvance, CancelCutoff, BufferBefore, BufferAfter, MaxFuturePerClient, AllowSeries}

// Bounds of the rules' values.
const (
	MaxDuration      = 3650 * 24 * time.Hour // ten years
	MaxBufferMinutes = 24 * 60
	MaxFutureLimit   = 1000
)

// ParseDuration reads a rule's duration: "30m", "2h", "1h30m" or "60d"
// (a d is 24 hours), in whole minutes, from 0 to 3650d.
func ParseDuration(s string) (time.Duration, error) {
	d, err := clock.ParseDuration(s)
	if err != nil || d%time.Minute != 0 || d > MaxDuration {
		return 0, errs.New(errs.ValidationError, "%q is not a duration like 30m, 2h or 60d (whole minutes, at most 3650d).", s)
	}
	return d, nil
}

// RuleSet is the rules one level sets: the account's, or a service's over
// the account's. A nil field is not set there (the level above, or the
// default, holds). A set MaxAdvance or MaxFuturePerClient of 0 means
// "none", overriding a limit above it.
type RuleSet struct {
	MinNotice, MaxAdvance, CancelCutoff           *time.Duration
	BufferBefore, BufferAfter, MaxFuturePerClient *int
	AllowSeries                                   *bool
}

// Over returns r with the fields set sets replaced.
func (set RuleSet) Over(r Rules) Rules {
	if set.MinNotice != nil {
		r.MinNotice = *set.MinNotice
	}
	if set.MaxAdvance != nil {
		r.MaxAdvance = nil
		if *set.MaxAdvance > 0 {
			d := *set.MaxAdvance
			r.MaxAdvance = &d
		}
	}
	if set.CancelCutoff != nil {
		r.CancelCutoff = *set.CancelCutoff
	}
	if set.BufferBefore != nil {
		r.BufferBefore = *set.BufferBefore
	}
	if set.BufferAfter != nil {
		r.BufferAfter = *set.BufferAfter
	}
	if set.MaxFuturePerClient != nil {
		r.MaxFuturePerClient = nil
		if *set.MaxFuturePerClient > 0 {
			n := *set.MaxFuturePerClient
			r.MaxFuturePerClient = &n
		}
	}
	if set.AllowSeries != nil {
		r.AllowSeries = *set.AllowSeries
	}
	return r
}

// Set reads one rule's value as a workspace file or a form gives it: a
// duration text for min_notice, max_advance and cancel_cutoff; a whole
// number (or its text) for the buffers (minutes, 0 to 1440) and
// max_future_per_client (1 to 1000); a boolean (or "true", "false") for
// allow_series; nil is the rule's default (0, none, or false), and so is
// "none" for max_advance and max_future_per_client.
// The refusal names the rule and what it takes.
func (set *RuleSet) Set(name string, v any) error {
	if text, ok := v.(string); ok && strings.TrimSpace(text) == "none" && (name == MaxAdvance || name == MaxFuturePerClient) {
		v = nil // a form's "none": no horizon, no limit
	}
	switch name {
	case MinNotice, MaxAdvance, CancelCutoff:
		var d time.Duration
		switch x := v.(type) {
		case nil:
		case string:
			var err error
			if d, err = ParseDuration(x); err != nil {
				return err
			}
			if name == MaxAdvance && d == 0 {
				return errs.New(errs.ValidationError, "%s must be longer than 0 (leave it out for no limit).", name)
			}
		default:
			if n, ok := wholeNumber(x); ok && n == 0 && name != MaxAdvance {
				break
			}
			return errs.New(errs.ValidationError, "%v is not a duration like 30m, 2h or 60d (whole minutes, at most 3650d).", v)
		}
		switch name {
		case MinNotice:
			set.MinNotice = &d
		case MaxAdvance:
			set.MaxAdvance = &d
		default:
			set.CancelCutoff = &d
		}
	case BufferBefore, BufferAfter:
		n, ok := 0, true
		if v != nil {
			n, ok = wholeNumber(v)
		}
		if !ok || n < 0 || n > MaxBufferMinutes {
			return errs.New(errs.ValidationError, "%v is not a whole number of minutes from 0 to %d.", v, MaxBufferMinutes)
		}
		if name == BufferBefore {
			set.BufferBefore = &n
		} else {
			set.BufferAfter = &n
		}
	case MaxFuturePerClient:
		n, ok := 0, true
		if v != nil {
			n, ok = wholeNumber(v)
			ok = ok && n >= 1
		}
		if !ok || n > MaxFutureLimit {
			return errs.New(errs.ValidationError, "%v is not a whole number from 1 to %d.", v, MaxFutureLimit)
		}
		set.MaxFuturePerClient = &n
	case AllowSeries:
		b, ok := v.(bool)
		if text, isText := v.(string); isText {
			b, ok = map[string]bool{"true": true, "false": false}[strings.TrimSpace(text)]
		} else if v == nil {
			ok = true
		}
		if !ok {
			return errs.New(errs.ValidationError, "%v is not true or false.", v)
		}
		set.AllowSeries = &b
	default:
		return errs.New(errs.ValidationError, "%q is not a booking rule (%s).", name, strings.Join(Names, ", "))
	}
	return nil
}

// wholeNumber reads an integer from a file's or form's value.
func wholeNumber(v any) (int, bool) {
	switch x := v.(type) {
	case int:
		return x, true
	case int64:
		return int(x), x == int64(int(x))
	case uint64:
		return int(x), x < 1<<31
	case float64:
		return int(x), x == float64(int(x)) && x > -1<<31 && x < 1<<31
	case json.Number:
		n, err := strconv.Atoi(string(x))
		return n, err == nil
	case string:
		n, err := strconv.Atoi(strings.TrimSpace(x))
		return n, err == nil
	}
	return 0, false
}

// Values returns the set's fields by rule name as a file writes them:
// duration texts ("2h", "60d"), numbers, or nil for a set "none"; rules not
// set are absent.
func (set RuleSet) Values() map[string]any {
	out := map[string]any{}
	dur := func(name string, d *time.Duration, none bool) {
		switch {
		case d == nil:
		case *d == 0 && none:
			out[name] = nil
		case *d == 0:
			out[name] = "0m"
		default:
			out[name] = clock.Short(*d)
		}
	}
	dur(MinNotice, set.MinNotice, false)
	dur(MaxAdvance, set.MaxAdvance, true)
	dur(CancelCutoff, set.CancelCutoff, false)
	if set.BufferBefore != nil {
		out[BufferBefore] = *set.BufferBefore
	}
	if set.BufferAfter != nil {
		out[BufferAfter] = *set.BufferAfter
	}
	if p := set.MaxFuturePerClient; p != nil {
		out[MaxFuturePerClient] = nil
		if *p > 0 {
			out[MaxFuturePerClient] = *p
		}
	}
	if set.AllowSeries != nil {
		out[AllowSeries] = *set.AllowSeries
	}
	return out
}

// Document is the set as stored (a JSON object of Values).
func (set RuleSet) Document() string {
	b, _ := json.Marshal(set.Values())
	return string(b)
}

// Parse reads a stored document; a value that does not read (never
// written by Document) is left unset.
func Parse(doc string) RuleSet {
	var raw map[string]any
	var set RuleSet
	if json.Unmarshal([]byte(doc), &raw) != nil {
		return set
	}
	for _, name := range Names {
		if v, ok := raw[name]; ok {
			_ = set.Set(name, v)
		}
	}
	return set
}

// Read reads a whole set from a file's or form's mapping (rule name
// → value), returning the set and a refusal per rule name that does not
// read.
func Read(values map[string]any) (RuleSet, map[string]error) {
	var set RuleSet
	var bad map[string]error
	for name, v := range values {
		if err := set.Set(name, v); err != nil {
			if bad == nil {
				bad = map[string]error{}
			}
			bad[name] = err
		}
	}
	return set, bad
}
