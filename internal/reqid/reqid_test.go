package reqid_test

import (
	"context"
	"testing"

	"github.com/frontdesk/frontdesk/internal/reqid"
)

func TestWithFrom(t *testing.T) {
	if got := reqid.From(context.Background()); got != "" {
		t.Fatalf("empty context: %q", got)
	}
	if got := reqid.From(reqid.With(context.Background(), "abc123")); got != "abc123" {
		t.Fatalf("got %q", got)
	}
}
