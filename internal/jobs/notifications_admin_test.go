package jobs_test

import (
	"slices"
	"strings"
	"testing"

	"github.com/frontdesk/frontdesk/internal/errs"
	"github.com/frontdesk/frontdesk/internal/jobs"
	"github.com/frontdesk/frontdesk/internal/outbound"
)

func TestNormalizeReminders(t *testing.T) {
	for _, test := range []struct {
		name string
		in   []string
		want []string // nil: refused
	}{
		{"empty", nil, []string{}},
		{"blanks dropped", []string{" ", ""}, []string{}},
		{"longest first", []string{"2h", "1d", "30m"}, []string{"1d", "2h", "30m"}},
		{"days", []string{"2d"}, []string{"2d"}},
		{"not a duration", []string{"soon"}, nil},
		{"zero", []string{"0h"}, nil},
		{"negative", []string{"-2h"}, nil},
		{"over 30 days", []string{"31d"}, nil},
		{"a nanosecond", []string{"1ns"}, nil},
		{"under a minute", []string{"59s"}, nil},
		{"a minute and 30 days", []string{"1m", "30d"}, []string{"30d", "1m"}},
		{"days past what a duration holds", []string{"9999999999d"}, nil},
		{"same lead twice", []string{"2h", "120m"}, nil},
		{"too many", []string{"1h", "2h", "3h", "4h", "5h", "6h"}, nil},
	} {
		t.Run(test.name, func(t *testing.T) {
			got, err := jobs.NormalizeReminders(test.in)
			if test.want == nil {
				if err == nil {
					t.Fatalf("accepted %v as %v", test.in, got)
				}
				return
			}
			if err != nil || !slices.Equal(got, test.want) {
				t.Fatalf("got %v %v, want %v", got, err, test.want)
			}
		})
	}
}

func TestValidWebhookURL(t *testing.T) {
	for _, test := range []struct {
		url                  string
		public, allowPrivate bool
	}{
		{"https://crm.test/in", true, true},
		{"http://127.0.0.1:8080/x", false, true},
		{"http://10.0.0.5/x", false, true},
		{"http://169.254.169.254/latest/meta-data/", false, false},
		{"", false, false}, {"ftp://x.test", false, false}, {"https://", false, false}, {"/relative", false, false},
		{"javascript:alert(1)", false, false}, {"https://crm.test/" + strings.Repeat("a", jobs.MaxWebhookURL), false, false},
	} {
		for _, c := range []struct {
			p  outbound.Policy
			ok bool
		}{{outbound.Policy{}, test.public}, {outbound.Policy{AllowPrivate: true}, test.allowPrivate}} {
			err := jobs.ValidWebhookURL(test.url, c.p)
			if (err == nil) != c.ok {
				t.Errorf("%q %+v: %v", test.url, c.p, err)
			}
			if err != nil && !errs.Is(err, errs.ValidationError) {
				t.Errorf("%q: %v is not a validation error", test.url, err)
			}
		}
	}
}
