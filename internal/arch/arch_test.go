package arch_test

import (
	"os/exec"
	"strings"
	"testing"
)

const mod = "github.com/frontdesk/frontdesk/"

// Front doors and the file format: nothing below them may depend on them.
var above = []string{"internal/httpapi", "internal/dashboard", "internal/mcp", "internal/csvimport", "internal/workspace", "internal/bench", "cmd/frontdesk"}

// TestAreasNeverReachUp lists every package an area or the worker depends
// on, directly or not (go list -deps), and fails on a front door or the
// workspace format among them.
func TestAreasNeverReachUp(t *testing.T) {
	// chat's JSONL import still reads workspace's conversation format, and
	// relay reaches it through chat: issue 21 moves that import into chat.
	known := map[string]string{"internal/chat": "internal/workspace", "internal/relay": "internal/workspace"}
	for _, pkg := range []string{"internal/jobs", "internal/calendar", "internal/waitlist", "internal/pipeline", "internal/contact",
		"internal/account", "internal/channels", "internal/offers", "internal/readcache", "internal/texts", "internal/db",
		"internal/chat", "internal/relay", "internal/phone", "internal/clock"} {
		t.Run(pkg, func(t *testing.T) {
			out, err := exec.Command("go", "list", "-deps", mod+pkg).CombinedOutput()
			if err != nil {
				t.Fatalf("go list: %v: %s", err, out)
			}
			for _, dep := range strings.Fields(string(out)) {
				for _, up := range above {
					if dep == mod+up && known[pkg] != up {
						t.Errorf("%s depends on %s", pkg, up)
					}
				}
			}
		})
	}
}
