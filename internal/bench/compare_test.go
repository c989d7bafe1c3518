package bench

import (
	"context"
	"os"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/frontdesk/frontdesk/internal/account"
	"github.com/frontdesk/frontdesk/internal/channels"
	"github.com/frontdesk/frontdesk/internal/db"
	"github.com/frontdesk/frontdesk/internal/db/dbtest"
	"github.com/frontdesk/frontdesk/internal/workspace"
)

// A compared server's demo account is measured without a request limit
// and without quiet hours, so a run measures the same at any hour: applied
// over the demo workspace, the file lifts the demo's quiet hours and its
// limit, and keeps the rest of its messaging settings.
func TestDaylightWorkspace(t *testing.T) {
	dbtest.Engines(t, func(t *testing.T, store *db.DB) {
		ctx := context.Background()
		apply := func(file []byte) *workspace.Result {
			t.Helper()
			res, err := (&workspace.Applier{DB: store, Now: time.Now}).Apply(ctx, file)
			if err != nil {
				t.Fatal(err)
			}
			return res
		}
		demo := account.Account{ID: apply(workspace.Demo()).Account.ID}
		before, err := channels.LoadSettings(ctx, store, demo)
		if err != nil {
			t.Fatal(err)
		}
		if before.QuietHours == "" {
			t.Fatal("the demo workspace has no quiet hours: this test checks nothing")
		}
		apply([]byte(daylightWorkspace))
		after, err := channels.LoadSettings(ctx, store, demo)
		if err != nil {
			t.Fatal(err)
		}
		if after.QuietHours != "" || after.DefaultChannel != before.DefaultChannel {
			t.Errorf("after the daylight file: quiet hours %q, default channel %q; want none, and %q as before",
				after.QuietHours, after.DefaultChannel, before.DefaultChannel)
		}
		var rate float64
		if err := store.QueryRow(ctx, `SELECT rate_per_second FROM accounts WHERE id = ?`, demo.ID).Scan(&rate); err != nil {
			t.Fatal(err)
		}
		if rate != 0 {
			t.Errorf("rate_per_second = %v, want 0 (no limit)", rate)
		}
	})
}

// The measuring scripts (scripts/lib.sh, daylight) write the same file, so
// that a script's load and `bench compare` measure the same account.
func TestScriptsWriteTheDaylightWorkspace(t *testing.T) {
	lib, err := os.ReadFile("../../scripts/lib.sh")
	if err != nil {
		t.Fatal(err)
	}
	m := regexp.MustCompile(`(?m)^daylight\(\) \{\n  printf '([^']*)'`).FindSubmatch(lib)
	if m == nil {
		t.Fatal("scripts/lib.sh: no daylight() writing its file with printf '...'")
	}
	if got := strings.ReplaceAll(string(m[1]), `\n`, "\n"); got != daylightWorkspace {
		t.Errorf("scripts/lib.sh writes %q, bench compare %q", got, daylightWorkspace)
	}
}
