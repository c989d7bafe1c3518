package pipeline

// Ingest, phases 4 and 5: write the decisions (new clients, merges, tags)
// and place every row on the stage, with the placement's effects (card
// history, automations, webhook events).

import (
	"context"
	"fmt"
	"sort"

	"github.com/frontdesk/frontdesk/internal/contact"
	"github.com/frontdesk/frontdesk/internal/db"
)

// write stores the decisions: new clients, merged clients, tags, cards.
func (b *batch) write(ctx context.Context) error {
	var newIdx []int
	var news []contact.New
	var updates [][]any
	us := db.Micros(b.now)
	for i, res := range b.results {
		switch res.Status {
		case StatusCreated:
			newIdx = append(newIdx, i)
			news = append(news, b.merged[i])
		case StatusUpdated:
			if b.changed[i] {
				m := b.merged[i]
				updates = append(updates, []any{b.matched[i].ID, m.FirstName, m.LastName, contact.SearchName(m.FirstName, m.LastName), contact.SearchText(m.FirstName, m.LastName, m.Email, b.matched[i].NationalID),
					db.Null(m.Email), db.Null(contact.NormEmail(m.Email)), db.Null(m.Company), db.Null(m.Timezone), m.DataJSON, us})
			}
		}
	}
	// The new clients' ids and their cards' come in one round trip on
	// PostgreSQL: a client the batch creates always gets a new card.
	ids, err := b.tx.Dialect().ReserveIDsOf(ctx, b.tx, db.Reservation{Table: "clients", N: len(news)}, db.Reservation{Table: "cards", N: len(news)})
	if err != nil {
		return err
	}
	b.cardIDs = ids[1]
	if err := contact.InsertWithIDs(ctx, b.tx, b.acct, ids[0], news, b.now); err != nil {
		return err
	}
	for j, i := range newIdx {
		id := ids[0][j]
		b.results[i].ClientID = &id
	}
	if len(updates) > 0 {
		err := db.UpdateMany(ctx, b.tx, b.acct.ID, "clients",
			[]string{"id", "first_name", "last_name", "name_search", "search_text", "email", "email_norm", "company", "timezone", "data", "updated_at"},
			[]string{"BIGINT", "TEXT", "TEXT", "TEXT", "TEXT", "TEXT", "TEXT", "TEXT", "TEXT", "TEXT", "BIGINT"},
			`first_name = v.first_name, last_name = v.last_name, name_search = v.name_search, search_text = v.search_text, email = v.email, email_norm = v.email_norm,
			 company = v.company, timezone = v.timezone, data = v.data, updated_at = v.updated_at`, nil, updates)
		if err != nil {
			return fmt.Errorf("merge clients: %w", err)
		}
	}
	if err := b.writeTags(ctx); err != nil {
		return err
	}
	return b.placeRows(ctx)
}

// writeTags appends tags by exact name, creating missing ones with their
// colour and description; existing tags keep theirs, hand-added tags stay.
func (b *batch) writeTags(ctx context.Context) error {
	newTags := map[string]Tag{}
	type pair struct {
		client int64
		name   string
	}
	var pairs []pair
	for i, res := range b.results {
		if (res.Status != StatusCreated && res.Status != StatusUpdated) || len(b.tags[i]) == 0 {
			continue
		}
		for _, t := range b.tags[i] {
			if _, ok := newTags[t.Name]; !ok {
				newTags[t.Name] = t
			}
			pairs = append(pairs, pair{*res.ClientID, t.Name})
		}
	}
	if len(pairs) == 0 {
		return nil
	}
	names := make([]string, 0, len(newTags))
	for n := range newTags {
		names = append(names, n)
	}
	sort.Strings(names)
	us := db.Micros(b.now)
	rows := make([][]any, len(names))
	for i, n := range names {
		t := newTags[n]
		color := t.Color
		if color == "" {
			color = "#808080"
		}
		var desc any
		if t.Description != nil {
			desc = *t.Description
		}
		rows[i] = []any{b.acct.ID, n, color, desc, us}
	}
	if err := db.InsertMany(ctx, b.tx, `INSERT INTO tags (account_id, name, color, description, created_at)`, rows, `ON CONFLICT (account_id, name) DO NOTHING`); err != nil {
		return fmt.Errorf("create tags: %w", err)
	}
	in, args := db.In(names)
	r, err := b.tx.Query(ctx, `SELECT id, name FROM tags WHERE account_id = ? AND name IN `+in, append([]any{b.acct.ID}, args...)...)
	if err != nil {
		return err
	}
	tagID := map[string]int64{}
	for r.Next() {
		var id int64
		var n string
		if err := r.Scan(&id, &n); err != nil {
			r.Close()
			return err
		}
		tagID[n] = id
	}
	r.Close()
	// The links of clients this batch created cannot exist yet: they are
	// inserted without the conflict check, which cost PostgreSQL three
	// quarters more per row (docs/performance.md, "Rows that cannot
	// conflict").
	created := make(map[int64]bool, len(b.results))
	for _, res := range b.results {
		if res.Status == StatusCreated {
			created[*res.ClientID] = true
		}
	}
	seen := map[pair]bool{}
	var fresh, known [][]any
	for _, p := range pairs {
		if !seen[p] {
			seen[p] = true
			link := []any{b.acct.ID, p.client, tagID[p.name], "api", us}
			if created[p.client] {
				fresh = append(fresh, link)
			} else {
				known = append(known, link)
			}
		}
	}
	const head = `INSERT INTO client_tags (account_id, client_id, tag_id, source, created_at)`
	if err := db.InsertMany(ctx, b.tx, head, fresh, ""); err != nil {
		return fmt.Errorf("tag clients: %w", err)
	}
	if err := db.InsertMany(ctx, b.tx, head, known, `ON CONFLICT (account_id, client_id, tag_id) DO NOTHING`); err != nil {
		return fmt.Errorf("tag clients: %w", err)
	}
	return nil
}

// placeRows puts every row that did not fail on the stage.
func (b *batch) placeRows(ctx context.Context) error {
	var idx []int
	var want []placement
	var valueless []int64 // clients that get the node's default lead value
	for i, res := range b.results {
		if res.Status == StatusFailed {
			continue
		}
		// The node's default lead value is written only when the client has
		// none; the card carries the client's value.
		var lead *float64
		if c := b.matched[i]; c != nil && c.LeadValue != nil {
			lead = c.LeadValue
		} else if b.node.leadValue > 0 {
			v := b.node.leadValue
			lead = &v
			if b.matched[i] != nil { // new clients were created with it
				valueless = append(valueless, *res.ClientID)
			}
		}
		idx = append(idx, i)
		want = append(want, placement{clientID: *res.ClientID, leadValue: lead, newClient: res.Status == StatusCreated})
	}
	if len(valueless) > 0 {
		in, args := db.In(valueless)
		if _, err := b.tx.Exec(ctx, `UPDATE clients SET lead_value = ? WHERE account_id = ? AND lead_value IS NULL AND id IN `+in,
			append([]any{b.node.leadValue, b.acct.ID}, args...)...); err != nil {
			return fmt.Errorf("lead values: %w", err)
		}
	}
	out, err := place(ctx, b.tx, b.acct, b.node.pipelineID, b.stage, want, placeOptions{
		source: SourceAPI, automations: b.req.TriggerAutomations, assign: &b.node.assign, jobSource: "ingest",
		cardIDs: b.cardIDs, hooks: b.hooks,
	}, b.now)
	if err != nil {
		return err
	}
	for j, i := range idx {
		id := out[j].cardID
		b.results[i].Pipeline = RowPipeline{Status: out[j].status, ClientStateID: &id}
	}
	return nil
}
