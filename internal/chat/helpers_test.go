package chat_test

import (
	"context"
	"testing"
	"time"

	"github.com/frontdesk/frontdesk/internal/account"
	"github.com/frontdesk/frontdesk/internal/db"
	"github.com/frontdesk/frontdesk/internal/workspace"
)

// demoChannel applies the demo workspace at now and returns its account
// and its channel.
func demoChannel(t *testing.T, store *db.DB, now time.Time) (account.Account, int64) {
	t.Helper()
	ctx := context.Background()
	if _, err := (&workspace.Applier{DB: store, Now: func() time.Time { return now }}).Apply(ctx, workspace.Demo()); err != nil {
		t.Fatal(err)
	}
	acct, err := account.BySlug(ctx, store, workspace.DemoSlug)
	if err != nil {
		t.Fatal(err)
	}
	var channel int64
	if err := store.QueryRow(ctx, `SELECT id FROM channels WHERE account_id = ?`, acct.ID).Scan(&channel); err != nil {
		t.Fatal(err)
	}
	return acct, channel
}
