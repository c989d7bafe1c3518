package jobs

import (
	"context"

	"github.com/frontdesk/frontdesk/internal/db"
)

// StillOurs exposes the recorder's ownership check to the tests.
func (w *Worker) StillOurs(ctx context.Context, tx *db.Tx, jobs []Job) (map[int64]bool, error) {
	return w.stillOurs(ctx, tx, jobs)
}
