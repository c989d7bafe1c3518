package httpapi_test

import (
	"context"
	"fmt"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/frontdesk/frontdesk/internal/account"
	"github.com/frontdesk/frontdesk/internal/contact"
	"github.com/frontdesk/frontdesk/internal/db"
	"github.com/frontdesk/frontdesk/internal/db/dbtest"
	"github.com/frontdesk/frontdesk/internal/mcp/mcptest"
	"github.com/frontdesk/frontdesk/internal/outbound"
	"github.com/frontdesk/frontdesk/internal/workspace"
)

// TestOneEmailRule drives the same e-mail addresses through every door that
// creates a client with one (public booking, ingest row, waiting-list add,
// the dashboard's client form use case, the workspace file, MCP booking) and
// wants the same accept or refuse from each: the rule is valid.Email.
func TestOneEmailRule(t *testing.T) {
	dbtest.Engines(t, func(t *testing.T, store *db.DB) {
		h := newHarness(t, store)
		a := h.acme()
		ts := httptest.NewServer(h.srv)
		defer ts.Close()
		ctx := context.Background()
		cs, err := mcpConnect(ctx, ts.URL, acmeKey)
		if err != nil {
			t.Fatal(err)
		}
		defer cs.Close()
		acct, err := account.BySlug(ctx, store, "acme")
		if err != nil {
			t.Fatal(err)
		}

		for i, test := range []struct {
			email string
			ok    bool
		}{
			{"nora@example.com", true},
			{"  nora.Case@Example.COM ", true},
			{"nora@localhost", true},
			{"<nora@example.com>", false},
			{"Nora <nora@example.com>", false},
			{"a,b@example.com", false},
			{"no ra@example.com", false},
			{"nora", false},
			{"nora@", false},
			{"@example.com", false},
			{strings.Repeat("n", 251) + "@x.es", false},
		} {
			// Each door gets its own new phone, and "nora" its door's number,
			// so every attempt creates a client of its own.
			phone := func(door int) string { return fmt.Sprintf("+3461%d%06d", door, i) }
			email := func(door int) string { return strings.Replace(test.email, "nora", fmt.Sprintf("nora%d", door), 1) }
			day := time.Date(2026, 12, 1, 9, 0, 0, 0, time.UTC).AddDate(0, 0, i)
			booking := func(door int) map[string]any {
				return map[string]any{"client": map[string]any{"phone": phone(door), "first_name": "Nora", "email": email(door)},
					"service_id": a.Services["cleaning"], "professional_id": a.Professionals["lopez"], "event_type_id": a.EventTypes["visit"],
					"start_at": day.Add(time.Duration(door) * time.Hour).Format("2006-01-02T15:04:05"),
					"end_at":   day.Add(time.Duration(door)*time.Hour + 30*time.Minute).Format("2006-01-02T15:04:05"), "timezone": "Europe/Madrid"}
			}
			got := map[string]bool{}

			res := h.do("POST", isoPub+"/calendar/events", acmeKey, booking(1))
			got["public booking"] = res.Status < 300

			res = h.do("POST", isoPub+"/leadflow/ingest/"+a.InputNodes["sales/web"]+"/batch", acmeKey,
				map[string]any{"clients": []any{map[string]any{"phone_number": phone(2), "first_name": "Nora", "email": email(2)}}})
			got["ingest row"] = res.Status == 200 && rowResult(res, 0)["status"] != "failed"

			res = h.do("POST", isoPub+"/calendar/waitlist/entries", acmeKey,
				map[string]any{"phone": phone(3), "first_name": "Nora", "email": email(3), "service_ids": []any{a.Services["cleaning"]}})
			got["waitlist add"] = res.Status == 200 && res.str("data", "entries", 0, "client", "email") != ""

			_, err := contact.CreateClient(ctx, store, acct, contact.ClientInput{FirstName: "Nora", Phone: phone(4), Email: strings.TrimSpace(email(4))}, testNow)
			got["dashboard client form"] = err == nil

			file := fmt.Sprintf("account: {slug: acme, name: Acme Clinic, timezone: Europe/Madrid, default_region: ES}\n"+
				"clients:\n  - {key: nora%d, first_name: Nora, phone: %q, email: %q}\n", i, phone(5), email(5))
			_, err = (&workspace.Applier{DB: store, Now: h.clock.Now, Targets: outbound.Policy{AllowPrivate: true}}).Apply(ctx, []byte(file))
			got["workspace file"] = err == nil

			mres := mcptest.Call(t, cs, "book_appointment", booking(6))
			got["mcp booking"] = !mres.IsError

			for door, ok := range got {
				if ok != test.ok {
					t.Errorf("%s: %q accepted = %v, want %v", door, test.email, ok, test.ok)
				}
			}
		}
	})
}
