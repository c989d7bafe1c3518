package workspace

// The checker collects a file's problems, each with its path; its field
// checks are the rules one value of the file must meet. Validate (validate.go)
// walks the file with them.

import (
	"errors"
	"fmt"
	"math"
	"sort"
	"strings"
	"time"

	"github.com/frontdesk/frontdesk/internal/calendar/bookingrules"
	"github.com/frontdesk/frontdesk/internal/clock"
	"github.com/frontdesk/frontdesk/internal/errs"
	"github.com/frontdesk/frontdesk/internal/jobs"
	"github.com/frontdesk/frontdesk/internal/outbound"
	"github.com/frontdesk/frontdesk/internal/retention"
	"github.com/frontdesk/frontdesk/internal/secrets"
	"github.com/frontdesk/frontdesk/internal/valid"
)

type checker struct {
	problems []string
}

func (c *checker) addf(path, format string, args ...any) {
	c.problems = append(c.problems, path+": "+fmt.Sprintf(format, args...))
}

// refusal records an area rule's refusal (its message, without the code).
func (c *checker) refusal(path string, err error) {
	if e := (*errs.Error)(nil); errors.As(err, &e) {
		c.addf(path, "%s", e.Message)
		return
	}
	c.addf(path, "%v", err)
}

func (c *checker) oneOf(path, v string, allowed []string) {
	for _, a := range allowed {
		if v == a {
			return
		}
	}
	c.addf(path, "%q is not one of %s", v, strings.Join(allowed, ", "))
}

// keys checks list keys are present, well-formed and unique; it returns the
// set of keys for reference checks.
func (c *checker) keys(list string, n int, key func(i int) string) map[string]bool {
	set := map[string]bool{}
	for i := 0; i < n; i++ {
		k := key(i)
		p := fmt.Sprintf("%s[%d].key", list, i)
		switch {
		case k == "":
			c.addf(p, "is required")
		case !keyRE.MatchString(k):
			c.addf(p, "%q must be letters, digits, '_', '-' or '.'", k)
		case set[k]:
			c.addf(p, "duplicate key %q", k)
		}
		set[k] = true
	}
	return set
}

func (c *checker) ref(path, k string, set map[string]bool, what string) {
	if !set[k] {
		c.addf(path, "unknown %s %q", what, k)
	}
}

func (c *checker) required(path, v string) {
	if strings.TrimSpace(v) == "" {
		c.addf(path, "is required")
	}
}

// requiredNew checks a field that a new object needs: an object that exists
// already keeps its stored value when the file leaves the key out, but a key
// the file gives must not be blank.
func (c *checker) requiredNew(path, v string, has, exists bool, what string) {
	switch {
	case has:
		c.required(path, v)
	case !exists:
		c.addf(path, "is required for a new %s", what)
	}
}

// secret refuses a plaintext that reads as a sealed value: it would be
// stored as it is and opened as if the server had sealed it.
func (c *checker) secret(path, v string) {
	if secrets.IsSealed(v) {
		c.addf(path, "must be the plaintext secret, not a value starting with %q", secrets.Prefix)
	}
}

// number reads a limit value: an integer or a finite float.
func number(v any) (float64, bool) {
	switch n := v.(type) {
	case int:
		return float64(n), true
	case int64:
		return float64(n), true
	case uint64:
		return float64(n), true
	case float64:
		return n, !math.IsNaN(n) && !math.IsInf(n, 0)
	}
	return 0, false
}

func (c *checker) limits(l *LimitsSpec) {
	if l == nil {
		return
	}
	if v := l.RequestsPerSecond; v != nil {
		if n, ok := number(v); !ok || n < 0 {
			c.addf("account.limits.requests_per_second", "%v is not a number >= 0 (0 means unlimited)", v)
		}
	}
	if v := l.Burst; v != nil {
		if n, ok := number(v); !ok || n < 1 || n != math.Trunc(n) || n > 1<<53 {
			c.addf("account.limits.burst", "%v is not an integer >= 1", v)
		}
	}
}

// bookingRules checks booking rules with the rule every door reads them
// by (bookingrules.Read), one problem per rule, in a stable order.
func (c *checker) bookingRules(path string, rules map[string]any) {
	_, bad := bookingrules.Read(rules)
	names := make([]string, 0, len(bad))
	for name := range bad {
		names = append(names, name)
	}
	sort.Strings(names)
	for _, name := range names {
		c.refusal(path+"."+name, bad[name])
	}
}

// retention checks the account's retention periods with the one reader
// every door uses.
func (c *checker) retention(path string, values map[string]any) {
	_, bad := retention.Read(values)
	names := make([]string, 0, len(bad))
	for name := range bad {
		names = append(names, name)
	}
	sort.Strings(names)
	for _, name := range names {
		c.refusal(path+"."+name, bad[name])
	}
}

// webhookURL checks a webhook's URL with the one rule every door uses.
func (c *checker) webhookURL(path, v string, targets outbound.Policy) {
	if err := jobs.ValidWebhookURL(v, targets); err != nil {
		reason := "is not allowed"
		if e, ok := err.(*errs.Error); ok {
			if d, ok := e.Details.(map[string]any); ok {
				reason, _ = d["reason"].(string)
			}
		}
		c.addf(path, "%q %s", v, reason)
	}
}

func (c *checker) color(path, v string) {
	if v != "" && !colorRE.MatchString(v) {
		c.addf(path, "%q is not a hex colour like #1565c0", v)
	}
}

func (c *checker) timestamp(path, v string) {
	if v == "" {
		return
	}
	if t, err := time.Parse(time.RFC3339Nano, v); err != nil || !clock.Representable(t) {
		c.addf(path, "%q is not an RFC 3339 timestamp (e.g. 2026-01-05T10:00:00Z) between the years 0001 and 9999", v)
	}
}

// duration checks a duration against the range the area that owns it
// declares (jobs.ReminderLead, waitlist.SeatTTL, …).
func (c *checker) duration(path, v string, r clock.Range) {
	if v == "" {
		return
	}
	if _, ok := clock.ParseIn(v, r); !ok {
		c.addf(path, "%q is not a duration from %s (like 15m, 2h or 1d)", v, r)
	}
}

func (c *checker) email(path string, v *string) {
	if v == nil || *v == "" {
		return
	}
	if _, ok := valid.Email(*v); !ok {
		c.addf(path, "%q is not an e-mail address", *v)
	}
}
