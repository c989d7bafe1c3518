package pipeline

import (
	"context"
	"database/sql"
	"encoding/json"
	"errors"
	"fmt"
	"hash/fnv"
	"reflect"
	"sync"
	"time"

	"github.com/jackc/pgx/v5/pgconn"

	"github.com/frontdesk/frontdesk/internal/account"
	"github.com/frontdesk/frontdesk/internal/clock"
	"github.com/frontdesk/frontdesk/internal/contact"
	"github.com/frontdesk/frontdesk/internal/db"
	"github.com/frontdesk/frontdesk/internal/errs"
	"github.com/frontdesk/frontdesk/internal/jobs"
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

// BatchWait bounds how long a batch waits for another batch of the same
// input node before BATCH_IN_PROGRESS (serve --batch-wait; 30 s, the
// contract's, by default): 100 ms (an integrator that would rather retry
// than wait) to a minute, well within the server's write timeout.
var BatchWait = clock.Range{Min: 100 * time.Millisecond, Max: time.Minute}

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
// of statements, all in one transaction. The phases have a file each:
// ingest_rows.go decodes and checks rows, ingest_match.go matches them to
// clients, ingest_merge.go merges or creates, ingest_write.go writes and
// places them (with their effects), ingest_result.go answers.
func (in *Ingester) Ingest(ctx context.Context, acct account.Account, req IngestRequest, now time.Time) (*IngestResult, error) {
	// The webhooks are read beside the node and stage, on a connection of
	// their own, and before the node's lock: a batch holding the lock then
	// has one statement less to wait for (docs/performance.md, "The input
	// node's lock").
	type loaded struct {
		hooks *jobs.Hooks
		err   error
	}
	hooksRead := make(chan loaded, 1)
	if !req.DryRun {
		go func() {
			h, err := jobs.LoadHooks(ctx, in.DB, acct)
			hooksRead <- loaded{h, err}
		}()
	} else {
		hooksRead <- loaded{}
	}
	n, err := loadNode(ctx, in.DB, acct, req.NodeUUID)
	if err != nil {
		<-hooksRead
		return nil, err
	}
	stage, err := in.stage(ctx, acct, n, req.StageID)
	hooks := <-hooksRead
	if err != nil {
		return nil, err
	}
	if hooks.err != nil {
		return nil, hooks.err
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
		b := &batch{tx: tx, acct: acct, req: req, node: n, stage: stage, now: now, hooks: hooks.hooks, deadline: deadline}
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

// lockAcrossInstances takes, on PostgreSQL, the node's advisory lock,
// waiting at most until the batch's deadline, then the locks of its
// clients' keys (contact.KeyLocks), which wait as long as another batch
// holds one: one round trip for both. The select list is evaluated left
// to right, the key locks' subquery included (PostgreSQL evaluates it when
// its column is reached), so the timeout applies to the node's lock only
// and is lifted before the keys are taken. SQLite's write transactions run
// one at a time and need neither.
func (b *batch) lockAcrossInstances(ctx context.Context, keys []int64) error {
	if b.tx.Dialect().Engine != db.Postgres {
		return nil
	}
	ms := max(time.Until(b.deadline).Milliseconds(), 1)
	h := fnv.New64a()
	h.Write([]byte("ingest/" + b.node.uuid))
	_, err := b.tx.Exec(ctx, `SELECT set_config('lock_timeout', ?, true), pg_advisory_xact_lock(?), set_config('lock_timeout', '0', true),
		(SELECT COUNT(pg_advisory_xact_lock(k)) FROM unnest(?::bigint[]) AS t(k))`,
		fmt.Sprintf("%dms", ms), int64(h.Sum64()), keys)
	var pgErr *pgconn.PgError
	if errors.As(err, &pgErr) && pgErr.Code == "55P03" {
		return batchInProgress(b.node.uuid)
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
	hooks *jobs.Hooks // read before the lock; nil on a dry run
	// deadline ends the wait for the node's lock (then BATCH_IN_PROGRESS)
	deadline time.Time

	results []RowResult
	// decided per row
	matched []*contact.Client // nil: new client
	merged  []contact.New     // final values for created and updated rows
	changed []bool            // updated row whose stored values change
	tags    [][]Tag
	cardIDs []int64 // reserved with the new clients' ids, for their cards
}

// lockRewrites locks the clients of ids (PostgreSQL) and says whether one
// the batch matched was written since its lookup: by its row version where
// the engine keeps one (contact.RowVersions: one column per client instead
// of all of them), else by reading it whole again.
func (b *batch) lockRewrites(ctx context.Context, ids []int64) (stale bool, err error) {
	if contact.RowVersions(b.tx.Dialect()) {
		versions, err := contact.LockVersions(ctx, b.tx, b.acct, ids)
		if err != nil {
			return false, err
		}
		for _, c := range b.matched {
			if c == nil {
				continue
			}
			if v, ok := versions[c.ID]; ok && v != c.Version {
				return true, nil
			}
		}
		return false, nil
	}
	fresh, err := contact.LockByIDs(ctx, b.tx, b.acct, ids)
	if err != nil {
		return false, err
	}
	for _, c := range b.matched {
		if c == nil {
			continue
		}
		if f, ok := fresh[c.ID]; ok && !reflect.DeepEqual(f, *c) {
			return true, nil
		}
	}
	return false, nil
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
		if err := b.lockAcrossInstances(ctx, contact.KeyLocks(b.acct, contact.Keys{Nationals: nationals, Emails: emails, IDs: ids})); err != nil {
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
		stale, err := b.lockRewrites(ctx, rewrite)
		if err != nil {
			return nil, err
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
