package waitlist

import (
	"context"
	"fmt"
	"sort"
	"time"

	"github.com/frontdesk/frontdesk/internal/account"
	"github.com/frontdesk/frontdesk/internal/db"
)

// ClientEntry is a waiting-list entry as the client's page lists it: with
// the name of its list.
type ClientEntry struct {
	Entry
	ListName string
	Open     bool
}

// ClientEntries lists a client's entries on every list, open ones first
// (by list and service), then resolved ones, newest first. A client of
// another account has none.
func ClientEntries(ctx context.Context, q db.Querier, acct account.Account, clientID int64, now time.Time) ([]ClientEntry, error) {
	entries, _, err := ListEntries(ctx, q, acct, Filter{ClientID: clientID, Status: "all", Limit: 500}, now)
	if err != nil {
		return nil, err
	}
	names := map[int64]string{}
	rows, err := q.Query(ctx, `SELECT id, name FROM waitlists WHERE account_id = ?`, acct.ID)
	if err != nil {
		return nil, fmt.Errorf("waiting-list names: %w", err)
	}
	for rows.Next() {
		var id int64
		var name string
		if err := rows.Scan(&id, &name); err != nil {
			rows.Close()
			return nil, err
		}
		names[id] = name
	}
	rows.Close()
	if err := rows.Err(); err != nil {
		return nil, err
	}
	out := make([]ClientEntry, len(entries))
	for i, e := range entries {
		out[i] = ClientEntry{Entry: e, ListName: names[e.WaitlistID], Open: IsOpen(e.Status)}
	}
	sort.SliceStable(out, func(a, b int) bool {
		if out[a].Open != out[b].Open {
			return out[a].Open
		}
		if !out[a].Open {
			return out[a].CreatedAt.After(out[b].CreatedAt)
		}
		return false
	})
	return out, nil
}

// ListChoice is an active waiting list and the services it holds, for a
// form that adds a client to a list.
type ListChoice struct {
	ID       int64
	Name     string
	Services []Service
}

// ListChoices lists the account's active waiting lists with their active
// services, by list name; Services is every service some active list
// holds, by name (what Add can route without a list named).
func ListChoices(ctx context.Context, q db.Querier, acct account.Account) (lists []ListChoice, services []Service, err error) {
	cat, err := loadCatalog(ctx, q, acct)
	if err != nil {
		return nil, nil, err
	}
	byList := map[int64][]Service{}
	seen := map[int64]bool{}
	for _, sid := range cat.order {
		for _, lid := range cat.members[sid] {
			if l, ok := cat.lists[lid]; ok && l.Active {
				byList[lid] = append(byList[lid], cat.services[sid])
				if !seen[sid] {
					seen[sid] = true
					services = append(services, cat.services[sid])
				}
			}
		}
	}
	for id, l := range cat.lists {
		if l.Active {
			s := byList[id]
			sort.Slice(s, func(a, b int) bool { return s[a].Name < s[b].Name })
			lists = append(lists, ListChoice{ID: id, Name: l.Name, Services: s})
		}
	}
	sort.Slice(lists, func(a, b int) bool {
		return lists[a].Name < lists[b].Name || lists[a].Name == lists[b].Name && lists[a].ID < lists[b].ID
	})
	sort.Slice(services, func(a, b int) bool { return services[a].Name < services[b].Name })
	return lists, services, nil
}
