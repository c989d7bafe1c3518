package jobs_test

import (
	"slices"
	"testing"

	"github.com/frontdesk/frontdesk/internal/jobs"
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
	for url, ok := range map[string]bool{
		"https://crm.test/in": true, "http://127.0.0.1:8080/x": true,
		"": false, "ftp://x.test": false, "https://": false, "/relative": false, "javascript:alert(1)": false,
	} {
		if err := jobs.ValidWebhookURL(url); (err == nil) != ok {
			t.Errorf("%q: %v", url, err)
		}
	}
}
