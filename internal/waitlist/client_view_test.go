package waitlist_test

import (
	"testing"

	"github.com/frontdesk/frontdesk/internal/account"
	"github.com/frontdesk/frontdesk/internal/db"
	"github.com/frontdesk/frontdesk/internal/db/dbtest"
	"github.com/frontdesk/frontdesk/internal/waitlist"
)

// TestClientEntries: open entries first, then resolved ones, each with its
// list's name; the form's choices are the active lists and their services.
func TestClientEntries(t *testing.T) {
	dbtest.Engines(t, func(t *testing.T, store *db.DB) {
		acct, ids := acme(t, store)
		ctx := t.Context()
		maria, cleaning := ids.Clients["maria"], ids.Services["cleaning"]
		add := func() int64 {
			t.Helper()
			res, err := waitlist.Add(ctx, store, acct, waitlist.AddRequest{ClientID: &maria, ServiceIDs: []int64{cleaning}}, now)
			if err != nil {
				t.Fatal(err)
			}
			return res.Entries[0].ID
		}
		first := add()
		if _, err := waitlist.Remove(ctx, store, acct, first, "changed_mind", now); err != nil {
			t.Fatal(err)
		}
		second := add()
		list, err := waitlist.ClientEntries(ctx, store, acct, maria, now)
		if err != nil {
			t.Fatal(err)
		}
		if len(list) != 2 || list[0].ID != second || !list[0].Open || list[1].ID != first || list[1].Open ||
			list[0].ListName != "General" || list[1].Status != waitlist.StatusRemoved {
			t.Fatalf("entries = %+v", list)
		}
		if other, err := waitlist.ClientEntries(ctx, store, account.Account{ID: acct.ID + 1000}, maria, now); err != nil || len(other) != 0 {
			t.Fatalf("another account sees %d entries (%v)", len(other), err)
		}

		lists, services, err := waitlist.ListChoices(ctx, store, acct)
		if err != nil {
			t.Fatal(err)
		}
		if len(lists) != 1 || lists[0].Name != "General" || len(lists[0].Services) != 1 || lists[0].Services[0].ID != cleaning ||
			len(services) != 1 || services[0].Name != "Limpieza dental" {
			t.Fatalf("choices = %+v, %+v", lists, services)
		}
		if _, err := store.Exec(ctx, `UPDATE waitlists SET active = ? WHERE account_id = ?`, false, acct.ID); err != nil {
			t.Fatal(err)
		}
		if lists, services, err := waitlist.ListChoices(ctx, store, acct); err != nil || len(lists)+len(services) != 0 {
			t.Fatalf("a paused list is offered: %+v %+v %v", lists, services, err)
		}
	})
}
