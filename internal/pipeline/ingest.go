package pipeline

import (
	"context"
	"database/sql"
	"encoding/json"
	"errors"
	"fmt"
	"github.com/frontdesk/frontdesk/internal/clock"
	"hash/fnv"
	"reflect"
	"sort"
	"sync"
	"time"

	"github.com/jackc/pgx/v5/pgconn"
	"github.com/nyaruka/phonenumbers"

	"github.com/frontdesk/frontdesk/internal/account"
	"github.com/frontdesk/frontdesk/internal/contact"
	"github.com/frontdesk/frontdesk/internal/db"
	"github.com/frontdesk/frontdesk/internal/errs"
	"github.com/frontdesk/frontdesk/internal/phone"
)

// Row statuses of batch ingest.
const (
	StatusCreated = "created"
	StatusUpdated = "updated"
	StatusSkipped = "skipped"
	StatusFailed  = "failed"
)

// Duplicate policies.
const (
	OnDuplicateUpdate = "update"
	OnDuplicateSkip   = "skip"
	OnDuplicateFail   = "fail"
)

// IngestRequest is a validated ingest call.
type IngestRequest struct {
	NodeUUID           string
	Rows               []Row
	OnDuplicate        string
	AllOrNone          bool
	DryRun             bool
	TriggerAutomations bool
	StageID            int64 // 0: the node's target stage
	Defaults           Defaults
}

// RowPipeline is a row's placement.
type RowPipeline struct {
	Status        string `json:"status"`
	ClientStateID *int64 `json:"client_state_id"`
}

// ExistingClient is the stored contact before any merge.
type ExistingClient struct {
	ID        int64          `json:"id"`
	Name      string         `json:"name"`
	FirstName string         `json:"first_name"`
	LastName  string         `json:"last_name"`
	Phone     *string        `json:"phone"`
	Email     *string        `json:"email"`
	Company   *string        `json:"company"`
	Timezone  *string        `json:"timezone"`
	Data      map[string]any `json:"data"`
	Tags      []Tag          `json:"tags"`
	CreatedAt string         `json:"created_at"`
	UpdatedAt string         `json:"updated_at"`
}

// RowResult is one row of the response, in request order.
type RowResult struct {
	Index          int             `json:"index"`
	ExternalID     any             `json:"external_id"`
	Status         string          `json:"status"`
	ClientID       *int64          `json:"client_id"`
	MatchedBy      *string         `json:"matched_by"`
	Errors         []RowError      `json:"errors"`
	Pipeline       RowPipeline     `json:"pipeline"`
	ExistingClient *ExistingClient `json:"existing_client"`
}

// Summary counts a batch's rows.
type Summary struct {
	Total                 int `json:"total"`
	Created               int `json:"created"`
	Updated               int `json:"updated"`
	Skipped               int `json:"skipped"`
	Failed                int `json:"failed"`
	PipelineAdded         int `json:"pipeline_added"`
	PipelineAlreadyActive int `json:"pipeline_already_active"`
	PipelineFailed        int `json:"pipeline_failed"`
}

// IngestResult is the 200 body of batch ingest.
type IngestResult struct {
	Status        string      `json:"status"`
	DryRun        bool        `json:"dry_run"`
	InputNodeUUID string      `json:"input_node_uuid"`
	PipelineID    int64       `json:"pipeline_id"`
	StageID       int64       `json:"stage_id"`
	Summary       Summary     `json:"summary"`
	Results       []RowResult `json:"results"`
}

// Ingester runs ingest batches. Batches for one input node never overlap:
// in-process a per-node semaphore queues them, and on PostgreSQL a
// transaction-scoped advisory lock queues them across server instances
// (SQLite write transactions are serialised already). A batch still waiting
// after Wait gets BATCH_IN_PROGRESS.
type Ingester struct {
	DB   *db.DB
	Wait time.Duration // default 30 s

	mu    sync.Mutex
	locks map[string]chan struct{}
}

func (in *Ingester) wait() time.Duration {
	if in.Wait <= 0 {
		return 30 * time.Second
	}
	return in.Wait
}

func (in *Ingester) nodeLock(uuid string) chan struct{} {
	in.mu.Lock()
	defer in.mu.Unlock()
	if in.locks == nil {
		in.locks = map[string]chan struct{}{}
	}
	ch, ok := in.locks[uuid]
	if !ok {
		ch = make(chan struct{}, 1)
		in.locks[uuid] = ch
	}
	return ch
}

func batchInProgress(uuid string) error {
	return errs.WithDetails(errs.BatchInProgress, map[string]any{"input_node_uuid": uuid},
		"Another batch for this input node is still running; send batches for one node one at a time.")
}

// node is an input node as ingest needs it.
type node struct {
	id, pipelineID int64
	uuid           string
	targetStageID  sql.NullInt64
	leadValue      float64
	assign         assignment
}

func loadNode(ctx context.Context, q db.Querier, acct account.Account, uuid string) (node, error) {
	var (
		n         node
		typ, pool string
		active    bool
	)
	err := q.QueryRow(ctx, `SELECT id, pipeline_id, uuid, node_type, is_active, target_stage_id, default_lead_value, assignment_strategy, assignment_pool
		FROM input_nodes WHERE account_id = ? AND uuid = ?`, acct.ID, uuid).
		Scan(&n.id, &n.pipelineID, &n.uuid, &typ, &active, &n.targetStageID, &n.leadValue, &n.assign.strategy, &pool)
	if db.IsNoRows(err) || (err == nil && typ != "api") {
		return n, errs.New(errs.NotFound, "Input node %s not found.", uuid)
	}
	if err != nil {
		return n, fmt.Errorf("load input node: %w", err)
	}
	if !active {
		return n, errs.WithDetails(errs.InputNodeInactive, map[string]any{"input_node_uuid": uuid}, "Input node %s is inactive.", uuid)
	}
	n.assign.nodeID = n.id
	json.Unmarshal([]byte(pool), &n.assign.pool)
	return n, nil
}

// Ingest runs a batch: resolve the node and stage, match every row in a
// constant number of queries, decide in memory, write in a constant number
// of statements, all in one transaction.
func (in *Ingester) Ingest(ctx context.Context, acct account.Account, req IngestRequest, now time.Time) (*IngestResult, error) {
	n, err := loadNode(ctx, in.DB, acct, req.NodeUUID)
	if err != nil {
		return nil, err
	}
	stage, err := in.stage(ctx, acct, n, req.StageID)
	if err != nil {
		return nil, err
	}
	deadline := time.Now().Add(in.wait())
	if !req.DryRun {
		lock := in.nodeLock(n.uuid)
		timer := time.NewTimer(in.wait())
		select {
		case lock <- struct{}{}:
			timer.Stop()
			defer func() { <-lock }()
		case <-timer.C:
			return nil, batchInProgress(n.uuid)
		case <-ctx.Done():
			timer.Stop()
			return nil, ctx.Err()
		}
	}

	var res *IngestResult
	rolledBack := errors.New("rolled back")
	err = in.DB.Transact(ctx, func(tx *db.Tx) error {
		if !req.DryRun {
			if err := lockNodeAcrossInstances(ctx, tx, n.uuid, time.Until(deadline)); err != nil {
				return err
			}
		}
		b := &batch{tx: tx, acct: acct, req: req, node: n, stage: stage, now: now}
		var err error
		res, err = b.run(ctx)
		if err != nil {
			return err
		}
		if req.DryRun {
			return rolledBack // nothing was written; never commit a read
		}
		if req.AllOrNone && res.Summary.Failed > 0 {
			return rolledBack
		}
		return nil
	})
	if err != nil && err != rolledBack {
		return nil, err
	}
	if req.AllOrNone && !req.DryRun && res.Summary.Failed > 0 {
		for i := range res.Results {
			r := &res.Results[i]
			if r.Status == StatusCreated {
				r.ClientID = nil
			}
			if r.Pipeline.Status == Added {
				r.Pipeline.ClientStateID = nil
			}
		}
		return nil, errs.WithDetails(errs.IngestRolledBack, map[string]any{"summary": res.Summary, "results": res.Results},
			"%d of %d rows failed; nothing was written (all_or_none).", res.Summary.Failed, res.Summary.Total)
	}
	return res, nil
}

func (in *Ingester) stage(ctx context.Context, acct account.Account, n node, stageID int64) (Stage, error) {
	if stageID != 0 {
		s, ok, err := stageByID(ctx, in.DB, acct, stageID)
		if err != nil {
			return Stage{}, err
		}
		if !ok || s.pipelineID != n.pipelineID {
			return Stage{}, errs.WithDetails(errs.StageNotInPipeline, map[string]any{"field": "stage_id", "stage_id": stageID, "pipeline_id": n.pipelineID},
				"Stage %d is not a stage of the input node's pipeline %d.", stageID, n.pipelineID)
		}
		return s, nil
	}
	if n.targetStageID.Valid {
		if s, ok, err := stageByID(ctx, in.DB, acct, n.targetStageID.Int64); err != nil || ok {
			return s, err
		}
	}
	return defaultStage(ctx, in.DB, acct, n.pipelineID)
}

// lockNodeAcrossInstances takes the node's advisory lock on PostgreSQL,
// waiting at most wait.
func lockNodeAcrossInstances(ctx context.Context, tx *db.Tx, uuid string, wait time.Duration) error {
	if tx.Dialect().Engine != db.Postgres {
		return nil
	}
	ms := max(wait.Milliseconds(), 1)
	h := fnv.New64a()
	h.Write([]byte("ingest/" + uuid))
	// One round trip: the timeout applies to this lock only (the select
	// list is evaluated left to right) and is lifted again right after.
	_, err := tx.Exec(ctx, `SELECT set_config('lock_timeout', ?, true), pg_advisory_xact_lock(?), set_config('lock_timeout', '0', true)`,
		fmt.Sprintf("%dms", ms), int64(h.Sum64()))
	var pgErr *pgconn.PgError
	if errors.As(err, &pgErr) && pgErr.Code == "55P03" {
		return batchInProgress(uuid)
	}
	return err
}

// batch is one ingest run inside its transaction.
type batch struct {
	tx    *db.Tx
	acct  account.Account
	req   IngestRequest
	node  node
	stage Stage
	now   time.Time

	results []RowResult
	// decided per row
	matched []*contact.Client // nil: new client
	merged  []contact.New     // final values for created and updated rows
	changed []bool            // updated row whose stored values change
	tags    [][]Tag
}

func (b *batch) run(ctx context.Context) (*IngestResult, error) {
	rows := b.req.Rows

	var ids []int64
	var nationals, emails []string
	for _, r := range rows {
		if r.ClientID != nil {
			ids = append(ids, *r.ClientID)
		}
		if !r.Phone.IsZero() {
			nationals = append(nationals, r.Phone.National)
		}
		if r.Email != "" {
			emails = append(emails, r.Email)
		}
	}
	write := !b.req.DryRun
	if write {
		// No other transaction can create a client with one of these
		// phones or e-mails, or merge into one named by id, until this one
		// commits.
		if err := contact.LockKeys(ctx, b.tx, b.acct, contact.Keys{Nationals: nationals, Emails: emails, IDs: ids}); err != nil {
			return nil, err
		}
	}
	locked := map[int64]bool{}
	for {
		byID, byPhone, byEmail, err := lookup(ctx, b.tx, b.acct, ids, nationals, emails)
		if err != nil {
			return nil, err
		}
		b.decide(byID, byPhone, byEmail)
		if !write || b.tx.Dialect().Engine != db.Postgres {
			break // SQLite: this transaction is the only writer
		}
		// The clients this batch will rewrite are locked and read again: a
		// batch that reached one of them by another key (its e-mail, where
		// this one came by phone) may have merged into it since the lookup,
		// and a merge must start from what is stored. Clients left as they
		// are need no lock: this batch then simply comes first.
		var rewrite []int64
		for i, c := range b.matched {
			if c != nil && b.changed[i] && !locked[c.ID] {
				rewrite = append(rewrite, c.ID)
				locked[c.ID] = true
			}
		}
		if len(rewrite) == 0 {
			break
		}
		fresh, err := contact.LockByIDs(ctx, b.tx, b.acct, rewrite)
		if err != nil {
			return nil, err
		}
		stale := false
		for _, c := range b.matched {
			if c == nil {
				continue
			}
			if f, ok := fresh[c.ID]; ok && !reflect.DeepEqual(f, *c) {
				stale = true
			}
		}
		if !stale {
			break
		}
		// Decide again from what is stored now (the locks stay held).
	}
	if err := b.loadExistingTags(ctx); err != nil {
		return nil, err
	}
	if !b.req.DryRun {
		if err := b.write(ctx); err != nil {
			return nil, err
		}
	}
	return b.result(), nil
}

// decide matches every row and prepares its merge or creation from the
// clients found; it can run again with fresher clients.
func (b *batch) decide(byID map[int64]contact.Client, byPhone, byEmail map[string]contact.Client) {
	rows := b.req.Rows
	b.results = make([]RowResult, len(rows))
	b.matched = make([]*contact.Client, len(rows))
	b.merged = make([]contact.New, len(rows))
	b.changed = make([]bool, len(rows))
	b.tags = make([][]Tag, len(rows))
	claimed := map[string]int{} // identity key -> first row index
	for i, r := range rows {
		res := &b.results[i]
		*res = RowResult{Index: r.Index, ExternalID: r.ExternalID, Errors: append([]RowError{}, r.errors...),
			Pipeline: RowPipeline{Status: NotAttempted}}
		if len(res.Errors) > 0 {
			res.Status = StatusFailed
			continue
		}
		c, by, rerr := match(r, byID, byPhone, byEmail)
		if rerr != nil {
			b.fail(i, *rerr)
			continue
		}
		// A row that resolves to the same client as an earlier one.
		keys := identityKeys(r, c)
		if j, dup := firstClaim(claimed, keys); dup {
			e := rowErr(keys[0].field, CodeConflict, fmt.Sprintf("this row is the same client as row %d of this batch", j))
			e.DuplicateOfIndex = &j
			b.fail(i, e)
			continue
		}
		for _, k := range keys {
			claimed[k.key] = i
		}
		if c != nil {
			b.matched[i] = c
			res.MatchedBy = &by
			res.ClientID = &c.ID
			res.ExistingClient = snapshot(*c)
			switch b.req.OnDuplicate {
			case OnDuplicateFail:
				e := rowErr(matchField(by), CodeExists, fmt.Sprintf("client %d already exists", c.ID))
				e.ExistingClientID = &c.ID
				b.fail(i, e)
				continue
			case OnDuplicateSkip:
				res.Status = StatusSkipped
			default:
				res.Status = StatusUpdated
				if !b.merge(i, r, *c) {
					continue
				}
			}
		} else {
			res.Status = StatusCreated
			if !b.create(i, r) {
				continue
			}
		}
	}
}

// lookup loads the clients the rows can match, by id, phone and e-mail, in
// three queries.
func lookup(ctx context.Context, tx *db.Tx, acct account.Account, ids []int64, nationals, emails []string) (
	byID map[int64]contact.Client, byPhone, byEmail map[string]contact.Client, err error) {
	if byID, err = contact.ByIDs(ctx, tx, acct, ids); err != nil {
		return
	}
	if byPhone, err = contact.ByNationals(ctx, tx, acct, nationals); err != nil {
		return
	}
	byEmail, err = contact.ByEmails(ctx, tx, acct, emails)
	return
}

func (b *batch) fail(i int, e RowError) {
	r := &b.results[i]
	r.Status = StatusFailed
	r.Errors = append(r.Errors, e)
	b.matched[i] = nil
}

func matchField(by string) string {
	switch by {
	case "id":
		return "client_id"
	case "email":
		return "email"
	}
	return "phone_number"
}

// match applies the matching order: client_id, then phone (national digits,
// same country code), then e-mail.
func match(r Row, byID map[int64]contact.Client, byPhone map[string]contact.Client, byEmail map[string]contact.Client) (*contact.Client, string, *RowError) {
	emailOwner, emailTaken := byEmail[contact.NormEmail(r.Email)]
	emailTaken = emailTaken && r.Email != ""
	conflictEmail := func(c contact.Client) *RowError {
		if emailTaken && emailOwner.ID != c.ID {
			e := rowErr("email", CodeConflict, fmt.Sprintf("the e-mail belongs to another client (%d)", emailOwner.ID))
			e.ConflictingClientID = &emailOwner.ID
			return &e
		}
		return nil
	}
	if r.ClientID != nil {
		c, ok := byID[*r.ClientID]
		if !ok {
			e := rowErr("client_id", CodeNotFound, fmt.Sprintf("client %d not found", *r.ClientID))
			return nil, "", &e
		}
		if e := conflictEmail(c); e != nil {
			return nil, "", e
		}
		return &c, "id", nil
	}
	if !r.Phone.IsZero() {
		if c, ok := byPhone[r.Phone.National]; ok {
			if c.Phone.CountryCode != r.Phone.CountryCode {
				e := rowErr("phone_number", CodeConflict, fmt.Sprintf("the same national number is stored as %s for client %d", c.Phone.E164(), c.ID))
				e.ConflictingClientID = &c.ID
				return nil, "", &e
			}
			if e := conflictEmail(c); e != nil {
				return nil, "", e
			}
			return &c, "phone", nil
		}
	}
	if emailTaken {
		// Matched by e-mail; a phone the client does not have yet is not
		// written (phones never change on merge).
		c := emailOwner
		return &c, "email", nil
	}
	return nil, "", nil
}

type identity struct{ key, field string }

// identityKeys are the keys by which two rows of a batch are the same client.
func identityKeys(r Row, c *contact.Client) []identity {
	if c != nil {
		return []identity{{fmt.Sprintf("client:%d", c.ID), matchFieldOf(r)}}
	}
	var keys []identity
	if !r.Phone.IsZero() {
		keys = append(keys, identity{"phone:" + r.Phone.National, "phone_number"})
	}
	if r.Email != "" {
		keys = append(keys, identity{"email:" + contact.NormEmail(r.Email), "email"})
	}
	return keys
}

func matchFieldOf(r Row) string {
	switch {
	case r.ClientID != nil:
		return "client_id"
	case !r.Phone.IsZero():
		return "phone_number"
	}
	return "email"
}

func firstClaim(claimed map[string]int, keys []identity) (int, bool) {
	for _, k := range keys {
		if j, ok := claimed[k.key]; ok {
			return j, true
		}
	}
	return 0, false
}

func snapshot(c contact.Client) *ExistingClient {
	var tz *string
	if c.Timezone != "" {
		tz = &c.Timezone
	}
	return &ExistingClient{ID: c.ID, Name: c.Name(), FirstName: c.FirstName, LastName: c.LastName, Phone: c.PhoneE164(),
		Email: c.EmailOrNil(), Company: c.CompanyOrNil(), Timezone: tz, Data: c.Data, Tags: []Tag{},
		CreatedAt: clock.Format(c.CreatedAt), UpdatedAt: clock.Format(c.UpdatedAt)}
}

// merge applies rule 5 to a matched client; false when the row fails.
func (b *batch) merge(i int, r Row, c contact.Client) bool {
	m := contact.New{FirstName: c.FirstName, LastName: c.LastName, Phone: c.Phone, Email: c.Email, Company: c.Company, Timezone: c.Timezone}
	changed := false
	set := func(dst *string, v string) {
		if v != "" && v != *dst {
			*dst, changed = v, true
		}
	}
	set(&m.FirstName, r.FirstName)
	set(&m.LastName, r.LastName)
	set(&m.Email, r.Email)
	set(&m.Company, r.Company)
	set(&m.Timezone, r.Timezone) // inferred zones never apply to existing clients
	data, dataChanged, size := mergeData(c.Data, b.req.Defaults.Data, r.Data)
	if size >= maxDataBytes {
		b.fail(i, rowErr("data", CodeInvalidFormat, "the merged custom fields would reach 16 KB"))
		return false
	}
	m.Data = data
	b.merged[i] = m
	b.changed[i] = changed || dataChanged
	b.tags[i] = append(append([]Tag{}, b.req.Defaults.Tags...), r.Tags...)
	return true
}

// create prepares a new client; false when the row fails.
func (b *batch) create(i int, r Row) bool {
	data, _, size := mergeData(nil, b.req.Defaults.Data, r.Data)
	if size >= maxDataBytes {
		b.fail(i, rowErr("data", CodeInvalidFormat, "the custom fields would reach 16 KB"))
		return false
	}
	tz := r.Timezone
	if tz == "" {
		tz = b.req.Defaults.Timezone
	}
	if tz == "" {
		tz = zoneOf(r.Phone)
	}
	b.merged[i] = contact.New{FirstName: r.FirstName, LastName: r.LastName, Phone: r.Phone, Email: r.Email, Company: r.Company, Timezone: tz, Data: data}
	if b.node.leadValue > 0 { // a new client has no lead value: it takes the node's
		v := b.node.leadValue
		b.merged[i].LeadValue = &v
	}
	b.tags[i] = append(append([]Tag{}, b.req.Defaults.Tags...), r.Tags...)
	return true
}

// zoneOf infers a client's zone from the phone when its country has one.
func zoneOf(n phone.Number) string {
	if n.IsZero() {
		return ""
	}
	zones, err := phonenumbers.GetTimezonesForPrefix(n.E164())
	if err != nil || len(zones) != 1 || !ValidZone(zones[0]) {
		return ""
	}
	return zones[0]
}

// loadExistingTags fills the snapshots' tags in one query.
func (b *batch) loadExistingTags(ctx context.Context) error {
	var ids []int64
	byClient := map[int64][]*ExistingClient{}
	for i := range b.results {
		if ec := b.results[i].ExistingClient; ec != nil {
			ids = append(ids, ec.ID)
			byClient[ec.ID] = append(byClient[ec.ID], ec)
		}
	}
	if len(ids) == 0 {
		return nil
	}
	in, args := db.In(ids)
	rows, err := b.tx.Query(ctx, `SELECT ct.client_id, t.name, t.color, t.description FROM client_tags ct JOIN tags t ON t.id = ct.tag_id
		WHERE ct.account_id = ? AND ct.client_id IN `+in+` ORDER BY t.name`, append([]any{b.acct.ID}, args...)...)
	if err != nil {
		return err
	}
	defer rows.Close()
	for rows.Next() {
		var (
			id   int64
			t    Tag
			desc sql.NullString
		)
		if err := rows.Scan(&id, &t.Name, &t.Color, &desc); err != nil {
			return err
		}
		if desc.Valid {
			t.Description = &desc.String
		}
		for _, ec := range byClient[id] {
			ec.Tags = append(ec.Tags, t)
		}
	}
	return rows.Err()
}

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
				data, _ := json.Marshal(m.Data)
				updates = append(updates, []any{b.matched[i].ID, m.FirstName, m.LastName, contact.SearchName(m.FirstName, m.LastName),
					db.Null(m.Email), db.Null(contact.NormEmail(m.Email)), db.Null(m.Company), db.Null(m.Timezone), string(data), us})
			}
		}
	}
	ids, err := contact.InsertMany(ctx, b.tx, b.acct, news, b.now)
	if err != nil {
		return err
	}
	for j, i := range newIdx {
		id := ids[j]
		b.results[i].ClientID = &id
	}
	if len(updates) > 0 {
		err := db.UpdateMany(ctx, b.tx, "clients",
			[]string{"id", "first_name", "last_name", "name_search", "email", "email_norm", "company", "timezone", "data", "updated_at"},
			[]string{"BIGINT", "TEXT", "TEXT", "TEXT", "TEXT", "TEXT", "TEXT", "TEXT", "TEXT", "BIGINT"},
			`first_name = v.first_name, last_name = v.last_name, name_search = v.name_search, email = v.email, email_norm = v.email_norm,
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
	seen := map[pair]bool{}
	links := make([][]any, 0, len(pairs))
	for _, p := range pairs {
		if !seen[p] {
			seen[p] = true
			links = append(links, []any{b.acct.ID, p.client, tagID[p.name], "api", us})
		}
	}
	if err := db.InsertMany(ctx, b.tx, `INSERT INTO client_tags (account_id, client_id, tag_id, source, created_at)`, links, `ON CONFLICT (client_id, tag_id) DO NOTHING`); err != nil {
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

func (b *batch) result() *IngestResult {
	res := &IngestResult{Status: "success", DryRun: b.req.DryRun, InputNodeUUID: b.node.uuid, PipelineID: b.node.pipelineID,
		StageID: b.stage.ID, Results: b.results}
	s := &res.Summary
	s.Total = len(b.results)
	for _, r := range b.results {
		switch r.Status {
		case StatusCreated:
			s.Created++
		case StatusUpdated:
			s.Updated++
		case StatusSkipped:
			s.Skipped++
		case StatusFailed:
			s.Failed++
			s.PipelineFailed++
		}
		switch r.Pipeline.Status {
		case Added, Reactivated:
			s.PipelineAdded++
		case AlreadyActive:
			s.PipelineAlreadyActive++
		}
	}
	return res
}

// StatusCounts returns the rows per status (for metrics).
func (r *IngestResult) StatusCounts() map[string]int {
	return map[string]int{StatusCreated: r.Summary.Created, StatusUpdated: r.Summary.Updated, StatusSkipped: r.Summary.Skipped, StatusFailed: r.Summary.Failed}
}

// CheckDefaults refuses batch-wide defaults that cannot apply to any row.
func CheckDefaults(d Defaults) error {
	if d.AreaCode != "" {
		if _, err := phone.ParseCallingCode(d.AreaCode); err != nil {
			return errs.WithDetails(errs.ValidationError, map[string]any{"field": "defaults.area_code"},
				"defaults.area_code %q is not a country calling code such as 34 or +34.", d.AreaCode)
		}
	}
	if d.Timezone != "" && !ValidZone(d.Timezone) {
		return errs.WithDetails(errs.ValidationError, map[string]any{"field": "defaults.timezone"},
			"defaults.timezone %q is not an IANA time zone.", d.Timezone)
	}
	for k := range d.Data {
		if k == "" || len([]rune(k)) > maxDataKeyLen {
			return errs.WithDetails(errs.ValidationError, map[string]any{"field": "defaults.data"}, "defaults.data keys must have 1 to 100 characters.")
		}
	}
	return nil
}

// SingleIngestResult is the 200 body of single-client ingest.
type SingleIngestResult struct {
	Status        string    `json:"status"`
	DryRun        bool      `json:"dry_run"`
	InputNodeUUID string    `json:"input_node_uuid"`
	PipelineID    int64     `json:"pipeline_id"`
	StageID       int64     `json:"stage_id"`
	Result        RowResult `json:"result"`
}

// SingleResult turns a one-row batch into the single-ingest answer; a
// failed row is INGEST_ROW_FAILED.
func SingleResult(res *IngestResult) (*SingleIngestResult, error) {
	row := res.Results[0]
	if row.Status == StatusFailed {
		msg := "The row failed."
		if len(row.Errors) > 0 {
			msg = "The row failed: " + row.Errors[0].Field + ": " + row.Errors[0].Message
		}
		return nil, errs.WithDetails(errs.IngestRowFailed, map[string]any{"result": row}, "%s", msg)
	}
	return &SingleIngestResult{Status: "success", DryRun: res.DryRun, InputNodeUUID: res.InputNodeUUID,
		PipelineID: res.PipelineID, StageID: res.StageID, Result: row}, nil
}
