package pipeline

import (
	"context"
	"database/sql"
	"fmt"
	"slices"
	"time"

	"github.com/frontdesk/frontdesk/internal/clock"

	"github.com/frontdesk/frontdesk/internal/account"
	"github.com/frontdesk/frontdesk/internal/contact"
	"github.com/frontdesk/frontdesk/internal/db"
	"github.com/frontdesk/frontdesk/internal/errs"
	"github.com/frontdesk/frontdesk/internal/jobs"
	"github.com/frontdesk/frontdesk/internal/readcache"
)

// Card sources, written to cards.entry_source and card_events.source.
const (
	SourceAPI       = "api"
	SourceWorkspace = "workspace"
	SourceDashboard = "dashboard"
)

// User is an assignee; Email is null when the user has none (as in chat's
// assigned_users).
type User struct {
	ID    int64   `json:"id"`
	Name  string  `json:"name"`
	Email *string `json:"email"`
}

// CardView is one client of a pipeline as listed (decisions.md §4).
type CardView struct {
	ClientID       int64           `json:"client_id"`
	CardID         int64           `json:"client_state_id"`
	StageID        int64           `json:"stage_id"`
	StageName      string          `json:"stage_name"`
	LeadValue      *float64        `json:"lead_value"`
	EntrySource    string          `json:"entry_source"`
	AssignedUsers  []User          `json:"assigned_users"`
	AddedAt        string          `json:"added_at"`
	StageEnteredAt string          `json:"stage_entered_at"`
	Client         contact.Summary `json:"client"`
}

// ClientFilter narrows a pipeline's client listing.
type ClientFilter struct {
	StageID       int64 // 0: every stage
	Limit, Offset int
}

// ListClients lists the active cards of a pipeline by stage position, newest
// arrivals in a stage first.
func ListClients(ctx context.Context, q db.Querier, acct account.Account, pipelineID int64, f ClientFilter) ([]CardView, int, error) {
	if err := mustPipeline(ctx, q, acct, pipelineID); err != nil {
		return nil, 0, err
	}
	where, args := "k.account_id = ? AND k.pipeline_id = ? AND k.status = 'active'", []any{acct.ID, pipelineID}
	if f.StageID != 0 {
		where += " AND k.stage_id = ?"
		args = append(args, f.StageID)
	}
	var total int
	if err := q.QueryRow(ctx, "SELECT COUNT(*) FROM cards k WHERE "+where, args...).Scan(&total); err != nil {
		return nil, 0, fmt.Errorf("count cards: %w", err)
	}
	rows, err := q.Query(ctx, `SELECT k.id, k.stage_id, s.name, k.lead_value, k.entry_source, k.added_at, k.stage_entered_at,
			u.id, u.name, u.email, `+contact.Columns+`
		FROM cards k JOIN stages s ON s.id = k.stage_id JOIN clients c ON c.id = k.client_id
		LEFT JOIN users u ON u.id = k.assigned_user_id
		WHERE `+where+` ORDER BY s.position, s.id, k.stage_entered_at DESC, k.id DESC LIMIT ? OFFSET ?`,
		append(args, f.Limit, f.Offset)...)
	if err != nil {
		return nil, 0, fmt.Errorf("list cards: %w", err)
	}
	defer rows.Close()
	out := []CardView{}
	for rows.Next() {
		var (
			v              CardView
			lead           sql.NullFloat64
			added, entered int64
			uid            sql.NullInt64
			uname, uemail  sql.NullString
		)
		cl, err := contact.Scan(scanPrefix{rows, []any{&v.CardID, &v.StageID, &v.StageName, &lead, &v.EntrySource, &added, &entered, &uid, &uname, &uemail}})
		if err != nil {
			return nil, 0, err
		}
		if lead.Valid {
			v.LeadValue = &lead.Float64
		}
		v.AssignedUsers = []User{}
		if uid.Valid {
			u := User{ID: uid.Int64, Name: uname.String}
			if uemail.String != "" {
				u.Email = &uemail.String
			}
			v.AssignedUsers = append(v.AssignedUsers, u)
		}
		v.ClientID = cl.ID
		v.Client = cl.Summary()
		v.AddedAt, v.StageEnteredAt = clock.Format(db.Time(added)), clock.Format(db.Time(entered))
		out = append(out, v)
	}
	return out, total, rows.Err()
}

// scanPrefix scans leading columns into prefix and the rest into dest, so
// contact.Scan can read a client that follows other columns.
type scanPrefix struct {
	row    interface{ Scan(...any) error }
	prefix []any
}

func (s scanPrefix) Scan(dest ...any) error { return s.row.Scan(append(s.prefix, dest...)...) }

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
	readcache.Changed(tx, readcache.Pipelines, acct.ID) // the counts
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
		cardIDs, err := tx.Dialect().ReserveIDs(ctx, tx, "cards", len(fresh))
		if err != nil {
			return nil, err
		}
		insert := make([][]any, len(fresh))
		for j, i := range fresh {
			out[i].cardID = cardIDs[j]
			insert[j] = []any{cardIDs[j], acct.ID, pipelineID, want[i].clientID, stage.ID, opt.source, nullFloat(want[i].leadValue),
				nullInt(out[i].assignee), us, us, us}
		}
		// A client is locked by the batch only when its stored values change
		// (or it is new), so another batch of the account may be placing the
		// same existing client on this pipeline right now: the active-card
		// index decides, and the loser reports the winner's card.
		n, err := db.InsertManyCount(ctx, tx, `INSERT INTO cards (id, account_id, pipeline_id, client_id, stage_id, entry_source, lead_value,
			assigned_user_id, added_at, stage_entered_at, updated_at)`, insert, `ON CONFLICT (pipeline_id, client_id) WHERE status = 'active' DO NOTHING`)
		if err != nil {
			return nil, fmt.Errorf("insert cards: %w", err)
		}
		if int(n) < len(fresh) {
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
		done, err := db.UpdateManyWhere(ctx, tx, "cards", []string{"id", "assignee", "lead"}, []string{"BIGINT", "BIGINT", "DOUBLE PRECISION"},
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
				Payload: map[string]any{"card_id": out[i].cardID, "client_id": want[i].clientID, "stage_id": stage.ID, "pipeline_id": pipelineID}})
		}
		if err := jobs.Enqueue(ctx, tx, acct, now, queued...); err != nil {
			return nil, fmt.Errorf("queue automations: %w", err)
		}
	}
	placedEvents := make([]jobs.Event, 0, len(arrivals))
	for _, i := range arrivals {
		placedEvents = append(placedEvents, jobs.Event{Type: jobs.EventPipelineClientPlaced, SourceID: out[i].cardID, Data: map[string]any{
			"client_state_id": out[i].cardID, "client_id": want[i].clientID, "pipeline_id": pipelineID, "stage_id": stage.ID,
			"status": out[i].status, "entry_source": opt.source, "assigned_user_id": out[i].assignee}})
	}
	if err := jobs.Emit(ctx, tx, acct, now, placedEvents...); err != nil {
		return nil, err
	}
	return out, nil
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

// Result is the body of add, remove and move.
type Result struct {
	Status           string  `json:"status"`
	Message          string  `json:"message"`
	SuccessCount     int     `json:"success_count"`
	SkippedCount     int     `json:"skipped_count"`
	NotFoundClientID []int64 `json:"not_found_client_ids,omitempty"`
}

// AddClients places existing clients on a stage (default: the entry point).
// Active clients are skipped; removed ones are reactivated; unknown ids
// (or other accounts') are skipped and listed.
func AddClients(ctx context.Context, store *db.DB, acct account.Account, pipelineID int64, clientIDs []int64, stageID int64, now time.Time) (Result, error) {
	var res Result
	err := store.Transact(ctx, func(tx *db.Tx) error {
		if err := mustPipeline(ctx, tx, acct, pipelineID); err != nil {
			return err
		}
		stage, err := targetStage(ctx, tx, acct, pipelineID, stageID)
		if err != nil {
			return err
		}
		known, err := contact.ByIDs(ctx, tx, acct, clientIDs)
		if err != nil {
			return err
		}
		var want []placement
		seen := map[int64]bool{}
		res.NotFoundClientID = []int64{}
		for _, id := range clientIDs {
			switch {
			case seen[id]:
				res.SkippedCount++
			case known[id].ID == 0:
				res.SkippedCount++
				res.NotFoundClientID = append(res.NotFoundClientID, id)
			default:
				want = append(want, placement{clientID: id})
			}
			seen[id] = true
		}
		out, err := place(ctx, tx, acct, pipelineID, stage, want, placeOptions{source: SourceAPI, automations: true, jobSource: "add"}, now)
		if err != nil {
			return err
		}
		for _, p := range out {
			if p.status == AlreadyActive {
				res.SkippedCount++
			} else {
				res.SuccessCount++
			}
		}
		return nil
	})
	res.Status = "success"
	res.Message = fmt.Sprintf("%d client(s) added to the pipeline, %d skipped.", res.SuccessCount, res.SkippedCount)
	return res, err
}

// targetStage resolves an optional stage of the pipeline (0: the default).
func targetStage(ctx context.Context, q db.Querier, acct account.Account, pipelineID, stageID int64) (Stage, error) {
	if stageID == 0 {
		return defaultStage(ctx, q, acct, pipelineID)
	}
	s, ok, err := stageByID(ctx, q, acct, stageID)
	if err != nil {
		return Stage{}, err
	}
	if !ok || s.pipelineID != pipelineID {
		return Stage{}, errs.WithDetails(errs.StageNotInPipeline, map[string]any{"field": "stage_id", "stage_id": stageID, "pipeline_id": pipelineID},
			"Stage %d is not a stage of pipeline %d.", stageID, pipelineID)
	}
	return s, nil
}

// RemoveClients archives the active cards of these clients; the clients
// themselves are kept. Ids without an active card are skipped.
func RemoveClients(ctx context.Context, store *db.DB, acct account.Account, pipelineID int64, clientIDs []int64, now time.Time) (Result, error) {
	var res Result
	err := store.Transact(ctx, func(tx *db.Tx) error {
		if err := mustPipeline(ctx, tx, acct, pipelineID); err != nil {
			return err
		}
		in, args := db.In(clientIDs)
		rows, err := tx.Query(ctx, `SELECT id, stage_id, client_id FROM cards WHERE account_id = ? AND pipeline_id = ? AND status = 'active' AND client_id IN `+in,
			append([]any{acct.ID, pipelineID}, args...)...)
		if err != nil {
			return err
		}
		var cardIDs, removedClients []int64
		var events [][]any
		us := db.Micros(now)
		for rows.Next() {
			var id, stageID, clientID int64
			if err := rows.Scan(&id, &stageID, &clientID); err != nil {
				rows.Close()
				return err
			}
			cardIDs = append(cardIDs, id)
			removedClients = append(removedClients, clientID)
			events = append(events, []any{acct.ID, id, "removed", stageID, nil, SourceAPI, us})
		}
		rows.Close()
		if err := rows.Err(); err != nil {
			return err
		}
		if len(cardIDs) > 0 {
			in, args := db.In(cardIDs)
			if _, err := tx.Exec(ctx, `UPDATE cards SET status = 'removed', removed_at = ?, updated_at = ? WHERE id IN `+in,
				append([]any{us, us}, args...)...); err != nil {
				return err
			}
			readcache.Changed(tx, readcache.Pipelines, acct.ID)
			if err := insertEvents(ctx, tx, events); err != nil {
				return err
			}
			emitted := make([]jobs.Event, len(events))
			for i, e := range events {
				emitted[i] = jobs.Event{Type: jobs.EventPipelineClientRemoved, SourceID: e[1].(int64), Data: map[string]any{
					"client_state_id": e[1], "client_id": removedClients[i], "pipeline_id": pipelineID, "stage_id": e[3]}}
			}
			if err := jobs.Emit(ctx, tx, acct, now, emitted...); err != nil {
				return err
			}
		}
		res.SuccessCount = len(cardIDs)
		res.SkippedCount = len(dedupeIDs(clientIDs)) - len(cardIDs) + (len(clientIDs) - len(dedupeIDs(clientIDs)))
		return nil
	})
	res.Status = "success"
	res.Message = fmt.Sprintf("%d client(s) removed from the pipeline, %d skipped.", res.SuccessCount, res.SkippedCount)
	return res, err
}

func dedupeIDs(ids []int64) []int64 {
	seen := map[int64]bool{}
	out := ids[:0:0]
	for _, id := range ids {
		if !seen[id] {
			seen[id] = true
			out = append(out, id)
		}
	}
	return out
}

// MoveClient moves a client's active card to another stage of the same
// pipeline, under the stages' rules; the card's timeline records the API as
// the source.
func MoveClient(ctx context.Context, store *db.DB, acct account.Account, pipelineID, clientID, targetStageID int64, now time.Time) (Result, error) {
	return MoveClientFrom(ctx, store, acct, pipelineID, clientID, targetStageID, SourceAPI, now)
}

// MoveClientFrom is MoveClient with the source written to the card's
// timeline (SourceAPI, SourceDashboard).
func MoveClientFrom(ctx context.Context, store *db.DB, acct account.Account, pipelineID, clientID, targetStageID int64, source string, now time.Time) (Result, error) {
	var res Result
	err := store.Transact(ctx, func(tx *db.Tx) error {
		if err := mustPipeline(ctx, tx, acct, pipelineID); err != nil {
			return err
		}
		target, ok, err := stageByID(ctx, tx, acct, targetStageID)
		if err != nil {
			return err
		}
		if !ok || target.pipelineID != pipelineID {
			return errs.WithDetails(errs.NotFound, map[string]any{"field": "target_stage_id"}, "Stage %d not found in pipeline %d.", targetStageID, pipelineID)
		}
		var cardID, fromID int64
		err = tx.QueryRow(ctx, `SELECT id, stage_id FROM cards WHERE account_id = ? AND pipeline_id = ? AND client_id = ? AND status = 'active'`+tx.Dialect().ForUpdate(),
			acct.ID, pipelineID, clientID).Scan(&cardID, &fromID)
		if db.IsNoRows(err) {
			return errs.New(errs.NotFound, "Client %d is not on pipeline %d.", clientID, pipelineID)
		}
		if err != nil {
			return err
		}
		if fromID == targetStageID {
			res.SkippedCount = 1
			res.Message = "The client is already in that stage."
			return nil
		}
		from, _, err := stageByID(ctx, tx, acct, fromID)
		if err != nil {
			return err
		}
		if from.allowedTargets != nil && !slices.Contains(from.allowedTargets, targetStageID) {
			return errs.WithDetails(errs.MoveNotAllowed, map[string]any{"from_stage_id": fromID, "target_stage_id": targetStageID, "allowed_target_stage_ids": from.allowedTargets},
				"Moving from stage %q to stage %q is not allowed by the pipeline's stage rules.", from.Name, target.Name)
		}
		us := db.Micros(now)
		if _, err := tx.Exec(ctx, `UPDATE cards SET stage_id = ?, stage_entered_at = ?, updated_at = ? WHERE id = ?`, targetStageID, us, us, cardID); err != nil {
			return err
		}
		readcache.Changed(tx, readcache.Pipelines, acct.ID)
		res.SuccessCount = 1
		res.Message = fmt.Sprintf("Client moved to stage %q.", target.Name)
		if err := insertEvents(ctx, tx, [][]any{{acct.ID, cardID, "moved", fromID, targetStageID, source, us}}); err != nil {
			return err
		}
		return jobs.Emit(ctx, tx, acct, now, jobs.Event{Type: jobs.EventPipelineClientMoved, SourceID: cardID, Data: map[string]any{
			"client_state_id": cardID, "client_id": clientID, "pipeline_id": pipelineID, "from_stage_id": fromID, "to_stage_id": targetStageID}})
	})
	res.Status = "success"
	return res, err
}
