package workspace_test

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/frontdesk/frontdesk/internal/account"
	"github.com/frontdesk/frontdesk/internal/db"
	"github.com/frontdesk/frontdesk/internal/db/dbtest"
	"github.com/frontdesk/frontdesk/internal/retention"
	"github.com/frontdesk/frontdesk/internal/workspace"
)

// TestRetentionValidation: every retention value is read by retention.Read
// and refused at its path (docs/retention.md).
func TestRetentionValidation(t *testing.T) {
	for _, test := range []struct {
		name, file, want string
	}{
		{"a number", `account: {slug: acme, retention: {messages: 24}}`,
			`account.retention.messages: 24 is not a period like 90d, 24mo or 5y, from 1 day to 100 years`},
		{"weeks", `account: {slug: acme, retention: {outbox: 2w}}`, `account.retention.outbox: "2w" is not a period`},
		{"zero", `account: {slug: acme, retention: {audit: 0mo}}`, `account.retention.audit: "0mo" is not a period`},
		{"over a century", `account: {slug: acme, retention: {webhook_deliveries: 101y}}`, `account.retention.webhook_deliveries: "101y" is not a period`},
		{"an unknown kind", `account: {slug: acme, retention: {chats: 1y}}`,
			`account.retention.chats: "chats" is not one of messages, outbox, webhook_deliveries, audit`},
	} {
		t.Run(test.name, func(t *testing.T) {
			f, err := workspace.Parse([]byte(test.file))
			if err == nil {
				err = workspace.Validate(f, nil)
			}
			if err == nil || !strings.Contains(err.Error(), test.want) {
				t.Errorf("err = %v\nwant %q", err, test.want)
			}
		})
	}
	f, err := workspace.Parse([]byte(`account: {slug: acme, retention: {messages: 24mo, outbox: 12mo, audit: 36mo, webhook_deliveries: 90d}}`))
	if err == nil {
		err = workspace.Validate(f, nil)
	}
	if err != nil {
		t.Errorf("a valid retention refused: %v", err)
	}
}

// TestRetentionApply: the file's periods are stored; a file without
// retention keeps them; retention: null keeps everything forever again.
func TestRetentionApply(t *testing.T) {
	dbtest.Engines(t, func(t *testing.T, store *db.DB) {
		ctx := context.Background()
		now := time.Date(2026, 11, 28, 9, 0, 0, 0, time.UTC)
		policy := func(file string) string {
			t.Helper()
			if _, err := applier(store, now).Apply(ctx, []byte(file)); err != nil {
				t.Fatal(err)
			}
			acct, err := account.BySlug(ctx, store, "acme")
			if err != nil {
				t.Fatal(err)
			}
			st, err := retention.Load(ctx, store, acct)
			if err != nil {
				t.Fatal(err)
			}
			var out []string
			for _, k := range retention.Kinds {
				if p, ok := st.Policy[k]; ok {
					out = append(out, string(k)+"="+p.String())
				}
			}
			return strings.Join(out, " ")
		}
		for _, step := range []struct{ file, want string }{
			{`account: {slug: acme, retention: {messages: 24mo, outbox: 12mo, audit: 3y, webhook_deliveries: 90d}}`,
				"messages=24mo outbox=12mo webhook_deliveries=90d audit=3y"},
			{`account: {slug: acme, name: Acme}`, "messages=24mo outbox=12mo webhook_deliveries=90d audit=3y"},
			{`account: {slug: acme, retention: {messages: 1y, outbox: null}}`, "messages=1y"},
			{`account: {slug: acme, retention: null}`, ""},
		} {
			if got := policy(step.file); got != step.want {
				t.Errorf("%s: %q, want %q", step.file, got, step.want)
			}
		}
	})
}
