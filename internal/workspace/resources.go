package workspace

// Rooms and equipment in the workspace file (docs/rooms.md): the account's
// resources and what each service needs of them.

import (
	"context"
	"fmt"
	"slices"
	"time"

	"github.com/frontdesk/frontdesk/internal/calendar/rooms"
	"github.com/frontdesk/frontdesk/internal/db"
	"gopkg.in/yaml.v3"
)

// ResourceSpec is a room or a piece of equipment. Its time off (maintenance)
// replaces the stored list when the file gives it.
type ResourceSpec struct {
	Key     string        `yaml:"key"`
	Name    string        `yaml:"name"`
	Kind    string        `yaml:"kind"`
	Active  *bool         `yaml:"active"`
	TimeOff []TimeOffSpec `yaml:"time_off"`
	keys    present       // the keys the file gave
}

func (s *ResourceSpec) UnmarshalYAML(n *yaml.Node) error {
	type plain ResourceSpec
	return track(n, (*plain)(s), &s.keys)
}

// ResourceNeed is what a service needs: one resource of Kind, or one of
// AnyOf (resource keys); exactly one of the two is given.
type ResourceNeed struct {
	Kind  string   `yaml:"kind" json:"kind,omitempty"`
	AnyOf []string `yaml:"any_of" json:"any_of,omitempty"`
}

// resources checks the resources list and every service's need; it returns
// the resource keys a need may name (this file's and the stored ones).
func (c *checker) resources(f *File, known *Known) {
	keys := c.keys("resources", len(f.Resources), func(i int) string { return f.Resources[i].Key })
	keys = union(keys, known.Resources)
	for i, r := range f.Resources {
		path := fmt.Sprintf("resources[%d]", i)
		exists := known.Resources[r.Key]
		c.requiredNew(path+".name", r.Name, r.keys.has("name"), exists, "resource")
		switch {
		case r.keys.has("kind") && r.Kind != "":
			c.oneOf(path+".kind", r.Kind, rooms.Kinds)
		case r.keys.has("kind") || !exists:
			c.addf(path+".kind", "is required: one of %s", "room, equipment")
		}
		for j, off := range r.TimeOff {
			tp := fmt.Sprintf("%s.time_off[%d]", path, j)
			c.required(tp+".from", off.From)
			c.required(tp+".to", off.To)
			c.timestamp(tp+".from", off.From)
			c.timestamp(tp+".to", off.To)
		}
	}
	for i, s := range f.Services {
		need := s.Resources
		if need == nil {
			continue
		}
		path := fmt.Sprintf("services[%d].resources", i)
		switch {
		case need.Kind != "" && len(need.AnyOf) > 0:
			c.addf(path, "give kind or any_of, not both")
		case need.Kind != "":
			c.oneOf(path+".kind", need.Kind, rooms.Kinds)
		case len(need.AnyOf) == 0:
			c.addf(path, "give kind (one of room, equipment) or any_of (resource keys)")
		}
		for j, k := range need.AnyOf {
			c.ref(fmt.Sprintf("%s.any_of[%d]", path, j), k, keys, "resource")
		}
	}
}

// resources writes the resources and their time off.
func (ap *applier) resources(ctx context.Context) error {
	for _, r := range ap.f.Resources {
		var fs fields
		fs.add(r.keys.has("name"), "name", r.Name)
		fs.add(r.keys.has("kind"), "kind", r.Kind)
		fs.add(r.keys.has("active"), "active", boolOr(r.Active, true))
		id, err := ap.upsertFields(ctx, "resources", "", ap.owned(r.Key), fs, column("created_at", db.Micros(ap.now)))
		if err != nil {
			return err
		}
		ap.res.IDs.Resources[r.Key] = id
		if !r.keys.has("time_off") {
			continue
		}
		if _, err := ap.tx.Exec(ctx, `DELETE FROM resource_time_off WHERE account_id = ? AND resource_id = ?`, ap.acct.ID, id); err != nil {
			return err
		}
		for _, off := range r.TimeOff {
			from, _ := time.Parse(time.RFC3339Nano, off.From) // Validate refused what does not read
			to, _ := time.Parse(time.RFC3339Nano, off.To)
			if !to.After(from) {
				continue
			}
			if _, err := ap.tx.Exec(ctx, `INSERT INTO resource_time_off (account_id, resource_id, start_at, end_at) VALUES (?, ?, ?, ?)`,
				ap.acct.ID, id, db.Micros(from), db.Micros(to)); err != nil {
				return err
			}
		}
	}
	return nil
}

// serviceResources writes what service id needs when the file gives it
// (null: nothing).
func (ap *applier) serviceResources(ctx context.Context, s ServiceSpec, id int64) error {
	if !s.keys.has("resources") {
		return nil
	}
	kind := ""
	var keys []string
	if s.Resources != nil {
		kind, keys = s.Resources.Kind, slices.Clone(s.Resources.AnyOf)
		if len(keys) > 0 {
			kind = "any_of" // the list in service_resources
		}
	}
	if _, err := ap.tx.Exec(ctx, `UPDATE services SET resource_kind = ? WHERE account_id = ? AND id = ?`, kind, ap.acct.ID, id); err != nil {
		return err
	}
	if _, err := ap.tx.Exec(ctx, `DELETE FROM service_resources WHERE account_id = ? AND service_id = ?`, ap.acct.ID, id); err != nil {
		return err
	}
	for _, k := range keys {
		rid, err := ap.idOf(ctx, "resources", ap.res.IDs.Resources, k)
		if err != nil {
			return err
		}
		if _, err := ap.tx.Exec(ctx, `INSERT INTO service_resources (account_id, service_id, resource_id) VALUES (?, ?, ?) ON CONFLICT DO NOTHING`,
			ap.acct.ID, id, rid); err != nil {
			return err
		}
	}
	return nil
}
