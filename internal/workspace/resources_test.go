package workspace_test

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/frontdesk/frontdesk/internal/db"
	"github.com/frontdesk/frontdesk/internal/db/dbtest"
	"github.com/frontdesk/frontdesk/internal/workspace"
)

// TestResourcesValidation: resources and services' needs are refused at
// their paths (docs/rooms.md).
func TestResourcesValidation(t *testing.T) {
	for _, test := range []struct {
		name, file, want string
	}{
		{"a kind that is not one", "account: {slug: acme}\nresources: [{key: b1, name: Box, kind: desk}]",
			`resources[0].kind: "desk" is not one of room, equipment`},
		{"no kind", "account: {slug: acme}\nresources: [{key: b1, name: Box}]", `resources[0].kind: is required`},
		{"no name", "account: {slug: acme}\nresources: [{key: b1, kind: room}]", `resources[0].name: is required for a new resource`},
		{"a duplicate key", "account: {slug: acme}\nresources: [{key: b1, name: A, kind: room}, {key: b1, name: B, kind: room}]",
			`resources[1].key: duplicate key "b1"`},
		{"an unknown resource", "account: {slug: acme}\nresources: [{key: b1, name: A, kind: room}]\nservices: [{key: s, name: S, resources: {any_of: [b1, b9]}}]",
			`services[0].resources.any_of[1]: unknown resource "b9"`},
		{"both kind and any_of", "account: {slug: acme}\nresources: [{key: b1, name: A, kind: room}]\nservices: [{key: s, name: S, resources: {kind: room, any_of: [b1]}}]",
			`services[0].resources: give kind or any_of, not both`},
		{"a need's kind", "account: {slug: acme}\nservices: [{key: s, name: S, resources: {kind: chair}}]",
			`services[0].resources.kind: "chair" is not one of room, equipment`},
		{"neither", "account: {slug: acme}\nservices: [{key: s, name: S, resources: {}}]", `services[0].resources: give kind`},
		{"time off", "account: {slug: acme}\nresources: [{key: b1, name: A, kind: room, time_off: [{from: soon, to: '2026-01-01T00:00:00Z'}]}]",
			`resources[0].time_off[0].from: "soon" is not an RFC 3339 timestamp`},
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
}

// TestResourcesApply: resources, their time off and services' needs are
// stored; a later file may name stored resources, and null clears a need.
func TestResourcesApply(t *testing.T) {
	dbtest.Engines(t, func(t *testing.T, store *db.DB) {
		ctx := context.Background()
		now := time.Date(2026, 11, 28, 9, 0, 0, 0, time.UTC)
		apply := func(file string) {
			t.Helper()
			if _, err := applier(store, now).Apply(ctx, []byte(file)); err != nil {
				t.Fatal(err)
			}
		}
		query := func(q string) string {
			t.Helper()
			rows, err := store.Query(ctx, q)
			if err != nil {
				t.Fatal(err)
			}
			defer rows.Close()
			var out []string
			for rows.Next() {
				var s string
				if err := rows.Scan(&s); err != nil {
					t.Fatal(err)
				}
				out = append(out, s)
			}
			return strings.Join(out, ",")
		}
		apply(`account: {slug: acme}
resources:
  - {key: box1, name: Box 1, kind: room, time_off: [{from: "2026-12-01T08:00:00Z", to: "2026-12-01T12:00:00Z"}]}
  - {key: laser, name: Laser, kind: equipment, active: false}
services:
  - {key: clean, name: Cleaning, resources: {kind: room}}
  - {key: laser, name: Laser session, resources: {any_of: [laser]}}`)
		if got := query(`SELECT file_key || ':' || name || ':' || kind || ':' || CASE WHEN active THEN 'on' ELSE 'off' END FROM resources ORDER BY id`); got != "box1:Box 1:room:on,laser:Laser:equipment:off" {
			t.Errorf("resources = %q", got)
		}
		if got := query(`SELECT s.file_key || ':' || s.resource_kind FROM services s ORDER BY id`); got != "clean:room,laser:any_of" {
			t.Errorf("kinds = %q", got)
		}
		if got := query(`SELECT s.file_key || ':' || r.file_key FROM service_resources sr JOIN services s ON s.account_id = sr.account_id AND s.id = sr.service_id JOIN resources r ON r.account_id = sr.account_id AND r.id = sr.resource_id`); got != "laser:laser" {
			t.Errorf("lists = %q", got)
		}
		if got := query(`SELECT CAST(end_at - start_at AS TEXT) FROM resource_time_off`); got != "14400000000" {
			t.Errorf("time off = %q", got)
		}
		apply(`account: {slug: acme}
resources: [{key: box2, name: Box 2, kind: room}]
services:
  - {key: clean, resources: {any_of: [box1, box2]}}
  - {key: laser, resources: null}`)
		if got := query(`SELECT s.file_key || ':' || r.file_key FROM service_resources sr JOIN services s ON s.account_id = sr.account_id AND s.id = sr.service_id JOIN resources r ON r.account_id = sr.account_id AND r.id = sr.resource_id ORDER BY r.id`); got != "clean:box1,clean:box2" {
			t.Errorf("lists = %q", got)
		}
		if got := query(`SELECT s.file_key || ':' || s.resource_kind FROM services s ORDER BY id`); got != "clean:any_of,laser:" {
			t.Errorf("kinds = %q", got)
		}
		if got := query(`SELECT CAST(COUNT(*) AS TEXT) FROM resource_time_off`); got != "1" {
			t.Errorf("a file without time_off changed it: %q", got)
		}
	})
}
