// Package retention makes old data go away on its own (docs/retention.md):
// an account's policy says how long messages, the outbox, webhook
// deliveries and the audit log are kept, and a daily run, claimed by one job
// worker, blanks or deletes what is older in bounded batches. Every door
// (the workspace file, the CLI, the dashboard) reads periods with Read and
// ParsePeriod, so a period means the same everywhere.
package retention

import (
	"encoding/json"
	"fmt"
	"regexp"
	"strconv"
	"strings"
	"time"

	"github.com/frontdesk/frontdesk/internal/errs"
)

// Kind is one kind of data a policy limits.
type Kind string

const (
	// Messages: chat messages keep their row but lose their text and media.
	Messages Kind = "messages"
	// Outbox: finished outbox messages (not webhook calls) are deleted.
	Outbox Kind = "outbox"
	// WebhookDeliveries: finished webhook calls and their attempts are deleted.
	WebhookDeliveries Kind = "webhook_deliveries"
	// Audit: audit log entries are deleted.
	Audit Kind = "audit"
)

// Kinds are every kind, in the order runs and pages list them.
var Kinds = []Kind{Messages, Outbox, WebhookDeliveries, Audit}

// Units of a period: days, calendar months, calendar years.
const (
	Days   = "d"
	Months = "mo"
	Years  = "y"
)

// Period is how long something is kept: N days, months or years.
type Period struct {
	N    int
	Unit string
}

// String writes the period as the workspace file does ("24mo").
func (p Period) String() string { return strconv.Itoa(p.N) + p.Unit }

// maxN bounds a period per unit: 1 day to 100 years.
var maxN = map[string]int{Days: 36500, Months: 1200, Years: 100}

var periodRE = regexp.MustCompile(`^([0-9]{1,6})(d|mo|y)$`)

// refusePeriod says why v is not a period.
func refusePeriod(v any) error {
	return errs.New(errs.ValidationError, "%s is not a period like 90d, 24mo or 5y, from 1 day to 100 years", quoted(v))
}

func quoted(v any) string {
	if s, ok := v.(string); ok {
		return strconv.Quote(s)
	}
	return fmt.Sprint(v)
}

// ParsePeriod reads "90d", "24mo" or "5y": whole days, calendar months or
// calendar years, from 1 day to 100 years.
func ParsePeriod(s string) (Period, error) {
	m := periodRE.FindStringSubmatch(strings.TrimSpace(s))
	if m == nil {
		return Period{}, refusePeriod(s)
	}
	n, _ := strconv.Atoi(m[1])
	if n < 1 || n > maxN[m[2]] {
		return Period{}, refusePeriod(s)
	}
	return Period{N: n, Unit: m[2]}, nil
}

// Cutoff is the instant before which data is older than the period, at
// now: the same wall-clock time N days, months or years earlier in loc
// (the account's zone). A month or year that lacks the day ends on its last
// day (31 March less a month is 28 or 29 February).
func (p Period) Cutoff(now time.Time, loc *time.Location) time.Time {
	t := now.In(loc)
	y, mo, d := t.Date()
	switch p.Unit {
	case Days:
		return t.AddDate(0, 0, -p.N)
	case Months:
		mo -= time.Month(p.N)
	case Years:
		y -= p.N
	}
	first := time.Date(y, mo, 1, 0, 0, 0, 0, loc) // normalises the month
	if last := first.AddDate(0, 1, -1).Day(); d > last {
		d = last
	}
	return time.Date(first.Year(), first.Month(), d, t.Hour(), t.Minute(), t.Second(), t.Nanosecond(), loc)
}

// Policy is an account's retention: a period per kind it limits; a kind
// it leaves out is kept forever.
type Policy map[Kind]Period

// Read reads a policy from a file's or form's mapping (kind → period
// text; null or "" keeps that kind forever), returning the policy and a
// refusal per key that does not read.
func Read(values map[string]any) (Policy, map[string]error) {
	p := Policy{}
	var bad map[string]error
	refuse := func(key string, err error) {
		if bad == nil {
			bad = map[string]error{}
		}
		bad[key] = err
	}
	for key, v := range values {
		if !known(Kind(key)) {
			refuse(key, errs.New(errs.ValidationError, "%q is not one of messages, outbox, webhook_deliveries, audit", key))
			continue
		}
		switch v := v.(type) {
		case nil:
		case string:
			if strings.TrimSpace(v) == "" {
				continue
			}
			per, err := ParsePeriod(v)
			if err != nil {
				refuse(key, err)
				continue
			}
			p[Kind(key)] = per
		default:
			refuse(key, refusePeriod(v))
		}
	}
	return p, bad
}

func known(k Kind) bool {
	for _, x := range Kinds {
		if x == k {
			return true
		}
	}
	return false
}

// Document is the policy as accounts.retention stores it: a JSON object of
// the limited kinds, or nil (NULL) when everything is kept forever.
func (p Policy) Document() any {
	if len(p) == 0 {
		return nil
	}
	m := make(map[string]string, len(p))
	for k, per := range p {
		m[string(k)] = per.String()
	}
	b, _ := json.Marshal(m)
	return string(b)
}

// parseDocument reads accounts.retention; a value that does not read keeps
// everything (it is only written by Document).
func parseDocument(doc *string) (Policy, error) {
	if doc == nil || *doc == "" {
		return Policy{}, nil
	}
	var m map[string]any
	if err := json.Unmarshal([]byte(*doc), &m); err != nil {
		return nil, fmt.Errorf("retention: stored policy: %w", err)
	}
	p, bad := Read(m)
	if len(bad) > 0 {
		return nil, fmt.Errorf("retention: stored policy %s does not read", *doc)
	}
	return p, nil
}
