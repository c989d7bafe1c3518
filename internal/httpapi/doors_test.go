package httpapi_test

import (
	"context"
	"fmt"
	"net/http/httptest"
	"sort"
	"testing"
	"time"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/frontdesk/frontdesk/internal/account"
	"github.com/frontdesk/frontdesk/internal/contact"
	"github.com/frontdesk/frontdesk/internal/db"
	"github.com/frontdesk/frontdesk/internal/mcp/mcptest"
	"github.com/frontdesk/frontdesk/internal/outbound"
	"github.com/frontdesk/frontdesk/internal/workspace"
)

// newClient is what a door is given to create a client with.
type newClient struct {
	phone, first, last string
}

// clientDoors are the doors that create a client from a phone and names,
// each answering whether it accepted: the rule tables (TestOnePhoneRule,
// TestOneClientNameRule) drive the same input through all of them. Every
// call is a slot of its own (day, door), so bookings never collide.
type clientDoors struct {
	t     *testing.T
	h     *harness
	store *db.DB
	acct  account.Account
	cs    *sdk.ClientSession
	a     workspace.IDs
}

func newClientDoors(t *testing.T, store *db.DB) *clientDoors {
	t.Helper()
	h := newHarness(t, store)
	ts := httptest.NewServer(h.srv)
	t.Cleanup(ts.Close)
	ctx := context.Background()
	cs, err := mcpConnect(ctx, ts.URL, acmeKey)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { cs.Close() })
	acct, err := account.BySlug(ctx, store, "acme")
	if err != nil {
		t.Fatal(err)
	}
	return &clientDoors{t: t, h: h, store: store, acct: acct, cs: cs, a: h.acme()}
}

// door is one door's name and its create.
type door struct {
	name   string
	create func(c newClient) bool // accepted?
}

// doors returns the doors, sorted by name; row numbers the table's row
// (its day).
func (d *clientDoors) doors(row int) []door {
	booking := func(door int, c newClient) map[string]any {
		day := time.Date(2026, 12, 1, 9, 0, 0, 0, time.UTC).AddDate(0, 0, row)
		return map[string]any{"client": map[string]any{"phone": c.phone, "first_name": c.first, "last_name": c.last},
			"service_id": d.a.Services["cleaning"], "professional_id": d.a.Professionals["lopez"], "event_type_id": d.a.EventTypes["visit"],
			"start_at": day.Add(time.Duration(door) * time.Hour).Format("2006-01-02T15:04:05"),
			"end_at":   day.Add(time.Duration(door)*time.Hour + 30*time.Minute).Format("2006-01-02T15:04:05"), "timezone": "Europe/Madrid"}
	}
	lead := func(c newClient) map[string]any {
		return map[string]any{"phone_number": c.phone, "first_name": c.first, "last_name": c.last}
	}
	waiting := func(c newClient) map[string]any {
		return map[string]any{"phone": c.phone, "first_name": c.first, "last_name": c.last, "service_ids": []any{d.a.Services["cleaning"]}}
	}
	node := d.a.InputNodes["sales/web"]
	// The account's region is ES; ingest reads national numbers with an
	// area code instead, so its doors are given 34 (docs/api-notes.md).
	defaults := map[string]any{"area_code": "34"}
	byName := map[string]func(newClient) bool{
		"public booking": func(c newClient) bool {
			return d.h.do("POST", isoPub+"/calendar/events", acmeKey, booking(1, c)).Status < 300
		},
		"mcp booking": func(c newClient) bool { return !mcptest.Call(d.t, d.cs, "book_appointment", booking(2, c)).IsError },
		"ingest row": func(c newClient) bool {
			res := d.h.do("POST", isoPub+"/leadflow/ingest/"+node+"/batch", acmeKey, map[string]any{"clients": []any{lead(c)}, "defaults": defaults})
			return res.Status == 200 && rowResult(res, 0)["status"] != "failed"
		},
		"mcp ingest": func(c newClient) bool {
			res := mcptest.Call(d.t, d.cs, "ingest_leads", map[string]any{"input_node_uuid": node, "clients": []any{lead(c)}, "defaults": defaults})
			rows, _ := res.Body["results"].([]any)
			return !res.IsError && len(rows) == 1 && rows[0].(map[string]any)["status"] != "failed"
		},
		"waitlist add": func(c newClient) bool {
			return d.h.do("POST", isoPub+"/calendar/waitlist/entries", acmeKey, waiting(c)).Status == 200
		},
		"mcp waitlist add": func(c newClient) bool { return !mcptest.Call(d.t, d.cs, "add_to_waitlist", waiting(c)).IsError },
		"dashboard client form": func(c newClient) bool {
			_, err := contact.CreateClient(context.Background(), d.store, d.acct, contact.ClientInput{FirstName: c.first, LastName: c.last, Phone: c.phone}, testNow)
			return err == nil
		},
		"workspace file": func(c newClient) bool {
			file := fmt.Sprintf("account: {slug: acme, name: Acme Clinic, timezone: Europe/Madrid, default_region: ES}\n"+
				"clients:\n  - {key: row%d, first_name: %q, last_name: %q, phone: %q}\n", row, c.first, c.last, c.phone)
			_, err := (&workspace.Applier{DB: d.store, Now: d.h.clock.Now, Targets: outbound.Policy{AllowPrivate: true}}).Apply(context.Background(), []byte(file))
			return err == nil
		},
	}
	out := make([]door, 0, len(byName))
	for name, create := range byName {
		out = append(out, door{name, create})
	}
	sort.Slice(out, func(i, j int) bool { return out[i].name < out[j].name })
	return out
}
