package workspace

import (
	"context"

	"github.com/frontdesk/frontdesk/internal/db"
)

// loadKnown reads the keys an existing account already has. A new account
// knows nothing.
func loadKnown(ctx context.Context, q db.Querier, slug string) (*Known, error) {
	k := &Known{Stages: map[string]map[string]bool{}}
	var acctID int64
	err := q.QueryRow(ctx, `SELECT id FROM accounts WHERE slug = ?`, slug).Scan(&acctID)
	if db.IsNoRows(err) {
		return k, nil
	}
	if err != nil {
		return nil, err
	}
	for table, dst := range map[string]*map[string]bool{
		"users": &k.Users, "ai_agents": &k.Agents, "professionals": &k.Professionals, "event_types": &k.EventTypes,
		"services": &k.Services, "disposition_tags": &k.Dispositions, "pipelines": &k.Pipelines,
	} {
		set, err := keySet(ctx, q, `SELECT file_key FROM `+table+` WHERE account_id = ?`, acctID)
		if err != nil {
			return nil, err
		}
		*dst = set
	}
	rows, err := q.Query(ctx, `SELECT p.file_key, s.file_key FROM stages s JOIN pipelines p ON p.id = s.pipeline_id WHERE s.account_id = ?`, acctID)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	for rows.Next() {
		var p, s string
		if err := rows.Scan(&p, &s); err != nil {
			return nil, err
		}
		if k.Stages[p] == nil {
			k.Stages[p] = map[string]bool{}
		}
		k.Stages[p][s] = true
	}
	return k, rows.Err()
}

func keySet(ctx context.Context, q db.Querier, query string, args ...any) (map[string]bool, error) {
	rows, err := q.Query(ctx, query, args...)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	set := map[string]bool{}
	for rows.Next() {
		var k string
		if err := rows.Scan(&k); err != nil {
			return nil, err
		}
		set[k] = true
	}
	return set, rows.Err()
}
