package bench

import (
	"testing"

	"github.com/frontdesk/frontdesk/internal/workspace"
)

// A compared server's demo account is measured without a request limit
// and without quiet hours, so a run measures the same at any hour: the
// workspace file says both in words the workspace reader takes.
func TestDaylightWorkspace(t *testing.T) {
	f, err := workspace.Parse([]byte(daylightWorkspace))
	if err != nil {
		t.Fatal(err)
	}
	if f.Account.Slug != "demo" || f.Account.Limits == nil || f.Account.Limits.RequestsPerSecond != 0 {
		t.Errorf("account %+v: want the demo account with requests_per_second 0", f.Account)
	}
	if f.Messaging == nil || f.Messaging.QuietHours != "" {
		t.Errorf("messaging %+v: want quiet hours off", f.Messaging)
	}
}
