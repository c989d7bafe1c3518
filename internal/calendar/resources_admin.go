package calendar

// Settings › Rooms and equipment (docs/rooms.md): an owner adds, renames
// and retires the account's resources; the dashboard audits each change.

import (
	"context"
	"fmt"
	"slices"

	"github.com/frontdesk/frontdesk/internal/account"
	"github.com/frontdesk/frontdesk/internal/calendar/rooms"
	"github.com/frontdesk/frontdesk/internal/db"
	"github.com/frontdesk/frontdesk/internal/errs"
	"github.com/frontdesk/frontdesk/internal/readcache"
)

// ResourceDetail is a resource as the settings show it.
type ResourceDetail struct {
	ID      int64
	Name    string
	Kind    string
	Active  bool
	FileKey string
}

// ResourceInput is what an owner sets on a resource; retiring is Active
// false (the appointments that hold it keep it).
type ResourceInput struct {
	Name   string
	Kind   string
	Active bool
}

func (in *ResourceInput) check() error {
	var err error
	if in.Name, err = checkName(in.Name, errs.Say("Give the room or equipment a name.")); err != nil {
		return err
	}
	if !slices.Contains(rooms.Kinds, in.Kind) {
		return errs.New(errs.ValidationError, "Choose whether it is a room or equipment.")
	}
	return nil
}

// CatalogResources lists the account's resources, active or not, by name.
func CatalogResources(ctx context.Context, q db.Querier, acct account.Account) ([]ResourceDetail, error) {
	rows, err := q.Query(ctx, `SELECT id, name, kind, active, file_key FROM resources WHERE account_id = ? ORDER BY name, id`, acct.ID)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	var out []ResourceDetail
	for rows.Next() {
		var r ResourceDetail
		if err := rows.Scan(&r.ID, &r.Name, &r.Kind, &r.Active, &r.FileKey); err != nil {
			return nil, err
		}
		out = append(out, r)
	}
	return out, rows.Err()
}

// CreateResource adds a resource under a new file key.
func CreateResource(ctx context.Context, q db.Querier, acct account.Account, in ResourceInput, now int64) (int64, error) {
	if err := in.check(); err != nil {
		return 0, err
	}
	if err := nameTaken(ctx, q, acct, "resources", in.Name, 0); err != nil {
		return 0, err
	}
	var id int64
	err := q.QueryRow(ctx, `INSERT INTO resources (account_id, file_key, name, kind, active, created_at) VALUES (?, ?, ?, ?, ?, ?) RETURNING id`,
		acct.ID, newFileKey(), in.Name, in.Kind, in.Active, now).Scan(&id)
	if err != nil {
		return 0, fmt.Errorf("create resource: %w", err)
	}
	readcache.Changed(q, readcache.Calendar, acct.ID)
	return id, nil
}

// UpdateResource sets a resource's fields and returns what changed.
func UpdateResource(ctx context.Context, q db.Querier, acct account.Account, id int64, in ResourceInput) ([]string, error) {
	if err := in.check(); err != nil {
		return nil, err
	}
	var old ResourceDetail
	err := q.QueryRow(ctx, `SELECT name, kind, active FROM resources WHERE account_id = ? AND id = ?`, acct.ID, id).Scan(&old.Name, &old.Kind, &old.Active)
	if db.IsNoRows(err) {
		return nil, errs.New(errs.NotFound, "Resource %d not found.", id)
	}
	if err != nil {
		return nil, err
	}
	var changes []string
	if old.Name != in.Name {
		if err := nameTaken(ctx, q, acct, "resources", in.Name, id); err != nil {
			return nil, err
		}
		changes = append(changes, fmt.Sprintf("name %q → %q", old.Name, in.Name))
	}
	if old.Kind != in.Kind {
		changes = append(changes, fmt.Sprintf("kind %q → %q", old.Kind, in.Kind))
	}
	if old.Active != in.Active {
		changes = append(changes, fmt.Sprintf("active %t → %t", old.Active, in.Active))
	}
	if len(changes) == 0 {
		return nil, nil
	}
	if _, err := q.Exec(ctx, `UPDATE resources SET name = ?, kind = ?, active = ? WHERE account_id = ? AND id = ?`,
		in.Name, in.Kind, in.Active, acct.ID, id); err != nil {
		return nil, fmt.Errorf("update resource: %w", err)
	}
	readcache.Changed(q, readcache.Calendar, acct.ID)
	return changes, nil
}
