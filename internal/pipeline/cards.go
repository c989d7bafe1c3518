package pipeline

import (
	"context"
	"fmt"
	"slices"
	"time"

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

// Result is the body of add, remove and move.
type Result struct {
	Status           string  `json:"status"`
	Message          string  `json:"message"`
	SuccessCount     int     `json:"success_count"`
	SkippedCount     int     `json:"skipped_count"`
	NotFoundClientID []int64 `json:"not_found_client_ids,omitempty"`
	// Said is Message as a catalogue text, for doors that answer in the
	// reader's language.
	Said errs.Text `json:"-"`
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
			if _, err := tx.Exec(ctx, `UPDATE cards SET status = 'removed', removed_at = ?, updated_at = ? WHERE account_id = ? AND id IN `+in,
				append([]any{us, us, acct.ID}, args...)...); err != nil {
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
			res.Said = errs.Say("The client is already in that stage.")
			res.Message = res.Said.String()
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
		if _, err := tx.Exec(ctx, `UPDATE cards SET stage_id = ?, stage_entered_at = ?, updated_at = ? WHERE account_id = ? AND id = ?`, targetStageID, us, us, acct.ID, cardID); err != nil {
			return err
		}
		readcache.Changed(tx, readcache.Pipelines, acct.ID)
		res.SuccessCount = 1
		res.Said = errs.Say("Client moved to stage %q.", target.Name)
		res.Message = res.Said.String()
		if err := insertEvents(ctx, tx, [][]any{{acct.ID, cardID, "moved", fromID, targetStageID, source, us}}); err != nil {
			return err
		}
		return jobs.Emit(ctx, tx, acct, now, jobs.Event{Type: jobs.EventPipelineClientMoved, SourceID: cardID, Data: map[string]any{
			"client_state_id": cardID, "client_id": clientID, "pipeline_id": pipelineID, "from_stage_id": fromID, "to_stage_id": targetStageID}})
	})
	res.Status = "success"
	return res, err
}
