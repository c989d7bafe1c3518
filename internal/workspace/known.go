package workspace

import (
	"context"

	"github.com/frontdesk/frontdesk/internal/db"
)

// loadKnown reads the keys an existing account already has. A new account
// knows nothing.
func loadKnown(ctx context.Context, q db.Querier, slug string) (*Known, error) {
	k := &Known{Stages: map[string]map[string]bool{}, InputNodes: map[string]map[string]bool{}}
	var acctID int64
	err := q.QueryRow(ctx, `SELECT id, default_region FROM accounts WHERE slug = ?`, slug).Scan(&acctID, &k.DefaultRegion)
	if db.IsNoRows(err) {
		return k, nil
	}
	if err != nil {
		return nil, err
	}
	for table, dst := range map[string]*map[string]bool{
		"users": &k.Users, "ai_agents": &k.Agents, "professionals": &k.Professionals, "event_types": &k.EventTypes,
		"services": &k.Services, "disposition_tags": &k.Dispositions, "pipelines": &k.Pipelines,
		"waitlists": &k.Waitlists, "webhooks": &k.Webhooks, "clients": &k.Clients, "conversations": &k.Conversations,
		"channels": &k.Channels, "resources": &k.Resources,
	} {
		set, err := keySet(ctx, q, `SELECT file_key FROM `+table+` WHERE account_id = ? AND file_key IS NOT NULL`, acctID)
		if err != nil {
			return nil, err
		}
		*dst = set
	}
	if err := keyPairs(ctx, q, k.Stages, `SELECT p.file_key, s.file_key FROM stages s JOIN pipelines p ON p.account_id = s.account_id AND p.id = s.pipeline_id WHERE s.account_id = ?`, acctID); err != nil {
		return nil, err
	}
	if err := keyPairs(ctx, q, k.InputNodes, `SELECT p.file_key, n.file_key FROM input_nodes n JOIN pipelines p ON p.account_id = n.account_id AND p.id = n.pipeline_id
		WHERE n.account_id = ? AND n.file_key IS NOT NULL`, acctID); err != nil {
		return nil, err
	}
	return k, nil
}

// keyPairs loads (parent key, child key) rows into m.
func keyPairs(ctx context.Context, q db.Querier, m map[string]map[string]bool, query string, args ...any) error {
	rows, err := q.Query(ctx, query, args...)
	if err != nil {
		return err
	}
	defer rows.Close()
	for rows.Next() {
		var p, s string
		if err := rows.Scan(&p, &s); err != nil {
			return err
		}
		if m[p] == nil {
			m[p] = map[string]bool{}
		}
		m[p][s] = true
	}
	return rows.Err()
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
