package pipeline

import (
	"context"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/frontdesk/frontdesk/internal/account"
	"github.com/frontdesk/frontdesk/internal/db"
	"github.com/frontdesk/frontdesk/internal/readcache"
)

// maxCachedRows bounds one snapshot: an account with more pipelines (or a
// pipeline with more stages) is read from the database every time.
const maxCachedRows = 1000

// Pipelines is ListPipelines through the account's in-memory catalogue
// (internal/readcache): every pipeline with its counts, at most
// readcache.MaxAge old at now and current after any write through this
// process (cards placed, moved or removed; a workspace applied), filtered
// and paged in memory.
func Pipelines(ctx context.Context, store *db.DB, acct account.Account, f Filter, now time.Time) ([]Pipeline, int, error) {
	snap, err := readcache.Get(ctx, store, readcache.Pipelines, acct.ID, "pipelines", now, func(ctx context.Context) ([]Pipeline, error) {
		list, total, err := ListPipelines(ctx, store, acct, Filter{Limit: maxCachedRows})
		if err != nil || total > maxCachedRows {
			return nil, err // nil: too many to keep
		}
		return list, nil
	})
	if err != nil {
		return nil, 0, err
	}
	if snap.Value == nil {
		return ListPipelines(ctx, store, acct, f)
	}
	var match []Pipeline
	for _, p := range snap.Value {
		if f.Status == "" || p.Status == f.Status {
			match = append(match, p)
		}
	}
	lo := min(f.Offset, len(match))
	hi := min(lo+f.Limit, len(match))
	return append([]Pipeline{}, match[lo:hi]...), len(match), nil
}

// Stages is ListStages through the account's in-memory catalogue, like
// Pipelines. The list is shared: callers must not modify it.
func Stages(ctx context.Context, store *db.DB, acct account.Account, pipelineID int64, now time.Time) ([]Stage, error) {
	snap, err := readcache.Get(ctx, store, readcache.Pipelines, acct.ID, "stages/"+strconv.FormatInt(pipelineID, 10), now,
		func(ctx context.Context) ([]Stage, error) {
			stages, err := ListStages(ctx, store, acct, pipelineID)
			if err != nil || len(stages) > maxCachedRows {
				return nil, err
			}
			return stages, nil
		})
	if err != nil {
		return nil, err
	}
	if snap.Value == nil {
		return ListStages(ctx, store, acct, pipelineID)
	}
	return snap.Value, nil
}

// arrived records that n cards became active on a stage of a pipeline in
// tx (placed or reactivated; cards already active are not counted). Once
// tx commits, the cached catalogue's counts grow by n instead of being
// counted again: under a stream of ingest batches every read of the
// pipelines or the stages would otherwise count the pipeline's active
// cards anew (docs/performance.md, "Card counts under ingest").
func arrived(tx *db.Tx, acctID, pipelineID, stageID int64, n int) {
	if n == 0 {
		return
	}
	stages := "stages/" + strconv.FormatInt(pipelineID, 10)
	readcache.Adjusted(tx, readcache.Pipelines, acctID, func(name string, snap any) (any, bool) {
		switch {
		case name == "pipelines":
			return readcache.Rewrite(snap, func(list []Pipeline) []Pipeline {
				return counted(list, pipelineID, n, func(p *Pipeline) (int64, *int) { return p.ID, &p.ClientCount })
			})
		case name == stages:
			return readcache.Rewrite(snap, func(list []Stage) []Stage {
				return counted(list, stageID, n, func(s *Stage) (int64, *int) { return s.ID, &s.ClientCount })
			})
		case strings.HasPrefix(name, "stages/"):
			return snap, true // another pipeline's stages
		}
		return nil, false
	})
}

// counted returns a copy of list in which the item whose id is id counts n
// more; of gives an item's id and its count.
func counted[T any](list []T, id int64, n int, of func(*T) (int64, *int)) []T {
	out := slices.Clone(list)
	for i := range out {
		if itemID, count := of(&out[i]); itemID == id {
			*count += n
		}
	}
	return out
}
