package pipeline

// Placing clients on a pipeline in a few statements: which cards exist,
// reactivation, races with concurrent batches, and the cards' history.

import (
	"context"
	"database/sql"
	"fmt"
	"slices"
	"time"

	"github.com/frontdesk/frontdesk/internal/account"
	"github.com/frontdesk/frontdesk/internal/db"
	"github.com/frontdesk/frontdesk/internal/jobs"
)

// Outcome is what happened to a card on placement.
const (
	Added         = "added"
	Reactivated   = "reactivated"
	AlreadyActive = "already_active"
	NotAttempted  = "not_attempted"
)

// placement asks for one client on a stage.
type placement struct {
	clientID  int64
	leadValue *float64 // written when the card has none
	// newClient is a client created in this transaction: it has no card
	// to look up.
	newClient bool
}

// placed is the result of one placement.
type placed struct {
	status   string
	cardID   int64
	assignee *int64
}

// placeOptions carry what differs between add and ingest.
type placeOptions struct {
	source      string
	automations bool        // record the stage's on-arrival automations
	assign      *assignment // nil: no assignment rules (add)
	jobSource   string      // jobs.source_type: "add" or "ingest"
	// cardIDs are ids the caller reserved for new cards (with its clients'
	// ids, in one round trip); place reserves only those it needs beyond.
	cardIDs []int64
	// hooks are the account's webhooks read before the transaction; nil:
	// place reads them (jobs.Emit).
	hooks *jobs.Hooks
}

// freshIDs returns n ids for new cards: the caller's reserved ones first.
func freshIDs(ctx context.Context, tx *db.Tx, reserved []int64, n int) ([]int64, error) {
	if len(reserved) >= n {
		return reserved[:n], nil
	}
	more, err := tx.Dialect().ReserveIDs(ctx, tx, "cards", n-len(reserved))
	if err != nil {
		return nil, err
	}
	return append(slices.Clip(reserved), more...), nil
}

// raced handles placements another transaction beat this one to: of the
// placements idx (indexes into want), those whose card is not among written
// (the card ids this transaction inserted or reactivated) report the
// client's active card as already active. It returns the placements that
// did happen here.
func raced(ctx context.Context, tx *db.Tx, acct account.Account, pipelineID int64, want []placement, out []placed, idx []int, written []int64) ([]int, error) {
	mine := make(map[int64]bool, len(written))
	if len(written) > 0 {
		// written may be the reserved ids of an insert: keep those that
		// exist (the others were skipped on conflict).
		in, args := db.In(written)
		rows, err := tx.Query(ctx, `SELECT id FROM cards WHERE account_id = ? AND id IN `+in, append([]any{acct.ID}, args...)...)
		if err != nil {
			return nil, err
		}
		found, err := db.Int64s(rows)
		if err != nil {
			return nil, err
		}
		for _, id := range found {
			mine[id] = true
		}
	}
	var kept []int
	var lost []int64
	for _, i := range idx {
		if mine[out[i].cardID] {
			kept = append(kept, i)
		} else {
			lost = append(lost, want[i].clientID)
		}
	}
	active := map[int64]placed{}
	if err := loadCards(ctx, tx, acct, pipelineID, lost, active, map[int64]int64{}); err != nil {
		return nil, err
	}
	for _, i := range idx {
		if !mine[out[i].cardID] {
			out[i] = active[want[i].clientID]
			if out[i].cardID == 0 {
				return nil, fmt.Errorf("place client %d: its card was neither written nor found active", want[i].clientID)
			}
		}
	}
	return kept, nil
}

// loadCards fills active (client -> its active card) and removed (client ->
// its newest removed card) for clients on the pipeline, in one query.
func loadCards(ctx context.Context, tx *db.Tx, acct account.Account, pipelineID int64, ids []int64, active map[int64]placed, removed map[int64]int64) error {
	if len(ids) == 0 {
		return nil
	}
	in, args := db.In(ids)
	rows, err := tx.Query(ctx, `SELECT id, client_id, status, assigned_user_id FROM cards
		WHERE account_id = ? AND pipeline_id = ? AND client_id IN `+in,
		append([]any{acct.ID, pipelineID}, args...)...)
	if err != nil {
		return fmt.Errorf("load cards: %w", err)
	}
	for rows.Next() {
		var (
			id, clientID int64
			status       string
			assignee     sql.NullInt64
		)
		if err := rows.Scan(&id, &clientID, &status, &assignee); err != nil {
			rows.Close()
			return err
		}
		if status == "active" {
			p := placed{status: AlreadyActive, cardID: id}
			if assignee.Valid {
				p.assignee = &assignee.Int64
			}
			active[clientID] = p
		} else {
			if id > removed[clientID] {
				removed[clientID] = id // the newest removed card wins
			}
		}
	}
	rows.Close()
	return rows.Err()
}

// place puts clients on a stage of a pipeline in a constant number of
// statements: active cards are left untouched, removed cards are
// reactivated, the rest get new cards. Every change is recorded in the
// card's timeline and, when asked, queues the stage's automations.
func place(ctx context.Context, tx *db.Tx, acct account.Account, pipelineID int64, stage Stage, want []placement, opt placeOptions, now time.Time) ([]placed, error) {
	out := make([]placed, len(want))
	if len(want) == 0 {
		return out, nil
	}
	ids := make([]int64, 0, len(want))
	for _, p := range want {
		if !p.newClient {
			ids = append(ids, p.clientID)
		}
	}
	active, removed := map[int64]placed{}, map[int64]int64{}
	if err := loadCards(ctx, tx, acct, pipelineID, ids, active, removed); err != nil {
		return nil, err
	}

	var fresh, revived []int // indexes into want
	for i, p := range want {
		switch {
		case active[p.clientID].cardID != 0:
			out[i] = active[p.clientID]
		case removed[p.clientID] != 0:
			out[i] = placed{status: Reactivated, cardID: removed[p.clientID]}
			revived = append(revived, i)
		default:
			out[i] = placed{status: Added}
			fresh = append(fresh, i)
		}
	}
	arrivals := append(append([]int{}, fresh...), revived...)
	slices.Sort(arrivals)
	if opt.assign != nil && len(arrivals) > 0 {
		assignees, err := opt.assign.pick(ctx, tx, acct, pipelineID, len(arrivals))
		if err != nil {
			return nil, err
		}
		for j, i := range arrivals {
			out[i].assignee = assignees[j]
		}
	}

	us := db.Micros(now)
	if len(fresh) > 0 {
		cardIDs, err := freshIDs(ctx, tx, opt.cardIDs, len(fresh))
		if err != nil {
			return nil, err
		}
		// A client is locked by the batch only when its stored values change
		// (or it is new), so another batch of the account may be placing the
		// same existing client on this pipeline right now: the active-card
		// index decides, and the loser reports the winner's card. The card
		// of a client created in this transaction cannot conflict with
		// anything and skips the check (docs/performance.md, "Rows that
		// cannot conflict"). A batch never places a new client twice (the
		// second row naming it is a duplicate and fails); were it to, only
		// the first card would skip the check, and it is inserted first.
		var plain, guarded [][]any
		first := make(map[int64]bool, len(fresh))
		for j, i := range fresh {
			out[i].cardID = cardIDs[j]
			row := []any{cardIDs[j], acct.ID, pipelineID, want[i].clientID, stage.ID, opt.source, nullFloat(want[i].leadValue),
				nullInt(out[i].assignee), us, us, us}
			if want[i].newClient && !first[want[i].clientID] {
				first[want[i].clientID] = true
				plain = append(plain, row)
			} else {
				guarded = append(guarded, row)
			}
		}
		const head = `INSERT INTO cards (id, account_id, pipeline_id, client_id, stage_id, entry_source, lead_value,
			assigned_user_id, added_at, stage_entered_at, updated_at)`
		n, err := db.InsertManyCount(ctx, tx, head, plain, "")
		if err != nil {
			return nil, fmt.Errorf("insert cards: %w", err)
		}
		m, err := db.InsertManyCount(ctx, tx, head, guarded, `ON CONFLICT (account_id, pipeline_id, client_id) WHERE status = 'active' DO NOTHING`)
		if err != nil {
			return nil, fmt.Errorf("insert cards: %w", err)
		}
		if n += m; int(n) < len(fresh) {
			if fresh, err = raced(ctx, tx, acct, pipelineID, want, out, fresh, cardIDs); err != nil {
				return nil, err
			}
		}
	}
	if len(revived) > 0 {
		// One statement for every reactivated card: the per-card values
		// (assignee, lead value) come from a VALUES list. Reactivation has
		// the effects of a placement (the contract's state table), so the
		// card also takes this placement's entry_source.
		values := make([][]any, len(revived))
		for j, i := range revived {
			values[j] = []any{out[i].cardID, nullInt(out[i].assignee), nullFloat(want[i].leadValue)}
		}
		done, err := db.UpdateManyWhere(ctx, tx, acct.ID, "cards", []string{"id", "assignee", "lead"}, []string{"BIGINT", "BIGINT", "DOUBLE PRECISION"},
			`status = 'active', stage_id = ?, stage_entered_at = ?, removed_at = NULL, updated_at = ?, entry_source = ?,
			 assigned_user_id = COALESCE(v.assignee, cards.assigned_user_id), lead_value = COALESCE(cards.lead_value, v.lead)`,
			[]any{stage.ID, us, us, opt.source}, `cards.status <> 'active'`, values)
		if err != nil {
			return nil, fmt.Errorf("reactivate cards: %w", err)
		}
		if len(done) < len(revived) { // another batch reactivated some first
			if revived, err = raced(ctx, tx, acct, pipelineID, want, out, revived, done); err != nil {
				return nil, err
			}
		}
	}
	arrivals = append(append(arrivals[:0], fresh...), revived...)
	slices.Sort(arrivals)
	events := make([][]any, 0, len(arrivals))
	for _, i := range arrivals {
		kind := "placed"
		if out[i].status == Reactivated {
			kind = "reactivated"
		}
		events = append(events, []any{acct.ID, out[i].cardID, kind, nil, stage.ID, opt.source, us})
	}
	if err := insertEvents(ctx, tx, events); err != nil {
		return nil, err
	}
	if opt.automations && len(arrivals) > 0 && stage.automations != "" && stage.automations != "[]" {
		queued := make([]jobs.New, 0, len(arrivals))
		for _, i := range arrivals {
			queued = append(queued, jobs.New{Kind: jobs.KindStageArrival, SourceType: opt.jobSource, SourceID: out[i].cardID,
				Payload: arrivalPayload{CardID: out[i].cardID, ClientID: want[i].clientID, PipelineID: pipelineID, StageID: stage.ID}})
		}
		if err := jobs.Enqueue(ctx, tx, acct, now, queued...); err != nil {
			return nil, fmt.Errorf("queue automations: %w", err)
		}
	}
	placedEvents := make([]jobs.Event, 0, len(arrivals))
	for _, i := range arrivals {
		placedEvents = append(placedEvents, jobs.Event{Type: jobs.EventPipelineClientPlaced, SourceID: out[i].cardID, Data: placedData{
			ClientStateID: out[i].cardID, ClientID: want[i].clientID, PipelineID: pipelineID, StageID: stage.ID,
			Status: out[i].status, EntrySource: opt.source, AssignedUserID: out[i].assignee}})
	}
	emit := jobs.Emit
	if opt.hooks != nil {
		emit = opt.hooks.Emit
	}
	if err := emit(ctx, tx, acct, now, placedEvents...); err != nil {
		return nil, err
	}
	arrived(tx, acct.ID, pipelineID, stage.ID, len(arrivals))
	return out, nil
}

// placedData is the data of a pipeline.client_placed event, and
// arrivalPayload the payload of an on-arrival job: one value each instead
// of a map of boxed values (a 500-row batch built 500 of each). Their
// fields are in the order encoding/json writes a map's keys, so the JSON
// is the same byte for byte (TestPlacedJSONMatchesMaps).
type placedData struct {
	AssignedUserID *int64 `json:"assigned_user_id"`
	ClientID       int64  `json:"client_id"`
	ClientStateID  int64  `json:"client_state_id"`
	EntrySource    string `json:"entry_source"`
	PipelineID     int64  `json:"pipeline_id"`
	StageID        int64  `json:"stage_id"`
	Status         string `json:"status"`
}

type arrivalPayload struct {
	CardID     int64 `json:"card_id"`
	ClientID   int64 `json:"client_id"`
	PipelineID int64 `json:"pipeline_id"`
	StageID    int64 `json:"stage_id"`
}

func insertEvents(ctx context.Context, tx *db.Tx, events [][]any) error {
	if err := db.InsertMany(ctx, tx, `INSERT INTO card_events (account_id, card_id, kind, from_stage_id, to_stage_id, source, created_at)`, events, ""); err != nil {
		return fmt.Errorf("record card history: %w", err)
	}
	return nil
}

func nullInt(p *int64) any {
	if p == nil {
		return nil
	}
	return *p
}

func nullFloat(p *float64) any {
	if p == nil {
		return nil
	}
	return *p
}
