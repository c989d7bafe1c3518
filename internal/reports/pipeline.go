package reports

import (
	"context"
	"fmt"
	"time"

	"github.com/frontdesk/frontdesk/internal/account"
	"github.com/frontdesk/frontdesk/internal/db"
)

// Funnel is one pipeline's stages over the period (docs/reports.md,
// Pipelines).
type Funnel struct {
	PipelineID int64
	Name       string
	// Entered is how many cards entered the pipeline in the period (placed
	// or reactivated).
	Entered int
	Stages  []StageNumbers
}

// StageNumbers is one stage's entries and time in it.
type StageNumbers struct {
	StageID int64
	Name    string
	// Entries are the cards that entered the stage in the period (placed
	// into it, reactivated into it or moved into it).
	Entries int
	// MedianTime is the median time cards spent in the stage, over the
	// Left cards that left it (moved or removed) in the period: from the
	// card's previous event to the one that took it out.
	MedianTime time.Duration
	Left       int
}

// Conversion is the stage's entries in percent of the cards that entered
// the pipeline.
func (s StageNumbers) Conversion(f Funnel) float64 { return Rate(s.Entries, f.Entered) }

// ReadFunnels reads every active pipeline's funnel: the stages, one GROUP
// BY of the period's card events by stage, and the times in stage (each
// leaving event with its card's previous event, LAG over card_events).
func ReadFunnels(ctx context.Context, q db.Querier, acct account.Account, f Filter) ([]Funnel, error) {
	rows, err := q.Query(ctx, `SELECT p.id, p.name, s.id, s.name FROM pipelines p JOIN stages s ON s.account_id = p.account_id AND s.pipeline_id = p.id
		WHERE p.account_id = ? AND p.status = 'active' ORDER BY p.name, p.id, s.position, s.id`, acct.ID)
	if err != nil {
		return nil, fmt.Errorf("load stages: %w", err)
	}
	var out []Funnel
	at := map[int64][2]int{} // stage → funnel, stage index
	for rows.Next() {
		var (
			pid, sid    int64
			pname, name string
		)
		if err := rows.Scan(&pid, &pname, &sid, &name); err != nil {
			rows.Close()
			return nil, err
		}
		if len(out) == 0 || out[len(out)-1].PipelineID != pid {
			out = append(out, Funnel{PipelineID: pid, Name: pname})
		}
		fu := &out[len(out)-1]
		at[sid] = [2]int{len(out) - 1, len(fu.Stages)}
		fu.Stages = append(fu.Stages, StageNumbers{StageID: sid, Name: name})
	}
	rows.Close()
	if err := rows.Err(); err != nil || len(out) == 0 {
		return out, err
	}
	from, to := db.Micros(f.From), db.Micros(f.To)
	rows, err = q.Query(ctx, `SELECT to_stage_id, kind, COUNT(*) FROM card_events
		WHERE account_id = ? AND created_at >= ? AND created_at < ? AND to_stage_id IS NOT NULL GROUP BY to_stage_id, kind`, acct.ID, from, to)
	if err != nil {
		return nil, fmt.Errorf("count stage entries: %w", err)
	}
	for rows.Next() {
		var (
			stage int64
			kind  string
			n     int
		)
		if err := rows.Scan(&stage, &kind, &n); err != nil {
			rows.Close()
			return nil, err
		}
		if i, ok := at[stage]; ok {
			out[i[0]].Stages[i[1]].Entries += n
			if kind != "moved" {
				out[i[0]].Entered += n
			}
		}
	}
	rows.Close()
	if err := rows.Err(); err != nil {
		return nil, err
	}
	return out, readStageTimes(ctx, q, acct, from, to, out, at)
}

// readStageTimes takes, for each stage, the median time between a card's
// event that took it out of the stage in the period and the card's event
// before it.
func readStageTimes(ctx context.Context, q db.Querier, acct account.Account, from, to int64, out []Funnel, at map[int64][2]int) error {
	rows, err := q.Query(ctx, `SELECT from_stage_id, created_at - prev FROM (
			SELECT from_stage_id, created_at, LAG(created_at) OVER (PARTITION BY card_id ORDER BY id) AS prev FROM card_events
			WHERE account_id = ? AND card_id IN (SELECT card_id FROM card_events WHERE account_id = ? AND created_at >= ? AND created_at < ? AND from_stage_id IS NOT NULL)
		) e WHERE created_at >= ? AND created_at < ? AND from_stage_id IS NOT NULL AND prev IS NOT NULL`, acct.ID, acct.ID, from, to, from, to)
	if err != nil {
		return fmt.Errorf("read times in stage: %w", err)
	}
	defer rows.Close()
	times := map[int64][]time.Duration{}
	for rows.Next() {
		var stage, micros int64
		if err := rows.Scan(&stage, &micros); err != nil {
			return err
		}
		times[stage] = append(times[stage], time.Duration(micros)*time.Microsecond)
	}
	if err := rows.Err(); err != nil {
		return err
	}
	for stage, ds := range times {
		if i, ok := at[stage]; ok {
			s := &out[i[0]].Stages[i[1]]
			s.Left, s.MedianTime = len(ds), median(ds)
		}
	}
	return nil
}
