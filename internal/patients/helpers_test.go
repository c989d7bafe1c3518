package patients_test

import (
	"context"
	"regexp"
	"testing"
	"time"

	"github.com/frontdesk/frontdesk/internal/account"
	"github.com/frontdesk/frontdesk/internal/db"
	"github.com/frontdesk/frontdesk/internal/errs"
	"github.com/frontdesk/frontdesk/internal/patients"
	"github.com/frontdesk/frontdesk/internal/workspace"
	"github.com/frontdesk/frontdesk/internal/workspace/workspacetest"
)

// monday is 09:00 in Madrid on a Monday, when sunny's day starts.
var monday = time.Date(2026, 11, 23, 8, 0, 0, 0, time.UTC)

// clinic is the sunny fixture, applied, with its page open.
type clinic struct {
	store *db.DB
	acct  account.Account
	ids   workspace.IDs
	page  patients.Page
}

func newClinic(t *testing.T, store *db.DB) *clinic {
	t.Helper()
	acct, ids := workspacetest.Apply(t, store, monday, "testdata/sunny.yaml")
	return &clinic{store: store, acct: acct, ids: ids, page: openPage(t, store, "sunny")}
}

func openPage(t *testing.T, store *db.DB, slug string) patients.Page {
	t.Helper()
	p, err := patients.Open(context.Background(), store, slug)
	if err != nil {
		t.Fatalf("open %s: %v", slug, err)
	}
	return p
}

var codeRE = regexp.MustCompile(`\b\d{6}\b`)

// code is the last verification code queued to e164 (read from the outbox,
// as the patient reads the message).
func (c *clinic) code(t *testing.T, e164 string) string {
	t.Helper()
	var body string
	err := c.store.QueryRow(context.Background(), `SELECT body FROM outbox WHERE account_id = ? AND kind = 'verification_code' AND recipient = ?
		ORDER BY id DESC LIMIT 1`, c.acct.ID, e164).Scan(&body)
	if err != nil {
		t.Fatalf("no code for %s: %v", e164, err)
	}
	code := codeRE.FindString(body)
	if code == "" {
		t.Fatalf("no code in %q", body)
	}
	return code
}

// newCode asks for a code for e164 at now and returns it.
func (c *clinic) newCode(t *testing.T, e164 string, now time.Time) string {
	t.Helper()
	if _, err := patients.RequestCode(context.Background(), c.store, c.page, e164, "192.0.2.1", now); err != nil {
		t.Fatalf("request code: %v", err)
	}
	return c.code(t, e164)
}

// wantCode fails unless err is an *errs.Error with code ("" : no error).
func wantCode(t *testing.T, err error, code string) {
	t.Helper()
	switch {
	case code == "" && err != nil:
		t.Fatalf("unexpected error: %v", err)
	case code != "" && !errs.Is(err, code):
		t.Fatalf("error = %v, want %s", err, code)
	}
}

func ptr[T any](v T) *T { return &v }
