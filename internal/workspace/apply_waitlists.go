package workspace

import (
	"context"
	"time"

	"github.com/frontdesk/frontdesk/internal/db"
)

func durationSeconds(s string, def time.Duration) int64 {
	if s == "" {
		return int64(def / time.Second)
	}
	d, _ := ParseDuration(s)
	return int64(d / time.Second)
}

func (ap *applier) waitlists(ctx context.Context) error {
	for _, w := range ap.f.Waitlists {
		horizon, maxOffers := 30, 3
		if w.HorizonDays != nil {
			horizon = *w.HorizonDays
		}
		if w.MaxOffers != nil {
			maxOffers = *w.MaxOffers
		}
		active := boolOr(w.Active, true)
		runEvery := durationSeconds(w.RunEvery, 15*time.Minute)
		var next any
		if active {
			next = db.Micros(ap.now.Add(time.Duration(runEvery) * time.Second))
		}
		has := w.keys.has
		var fs fields
		fs.add(has("name"), "name", w.Name)
		fs.add(has("active"), "active", active)
		fs.add(has("horizon_days"), "horizon_days", horizon)
		fs.add(has("run_every"), "run_every_seconds", runEvery)
		fs.add(has("seat_ttl"), "seat_ttl_seconds", durationSeconds(w.SeatTTL, 2*time.Hour))
		fs.add(has("max_offers"), "max_offers", maxOffers)
		id, err := ap.upsertFields(ctx, "waitlists", "", ap.owned(w.Key), fs,
			column("created_at", db.Micros(ap.now)), column("next_run_at", next))
		if err != nil {
			return err
		}
		// A list switched on or off by the file gets or loses its schedule
		// (from the stored interval: the file may not give it).
		if _, err := ap.tx.Exec(ctx, `UPDATE waitlists SET next_run_at = CASE WHEN active THEN CAST(? AS BIGINT) + CAST(run_every_seconds AS BIGINT) * 1000000 ELSE NULL END
			WHERE account_id = ? AND id = ? AND ((active AND next_run_at IS NULL) OR (NOT active AND next_run_at IS NOT NULL))`, db.Micros(ap.now), ap.acct.ID, id); err != nil {
			return err
		}
		ap.res.IDs.Waitlists[w.Key] = id
		for _, sk := range w.Services {
			sid, err := ap.idOf(ctx, "services", ap.res.IDs.Services, sk)
			if err != nil {
				return err
			}
			if _, err := ap.tx.Exec(ctx, `INSERT INTO waitlist_services (account_id, waitlist_id, service_id) VALUES (?, ?, ?) ON CONFLICT DO NOTHING`, ap.acct.ID, id, sid); err != nil {
				return err
			}
		}
	}
	return nil
}
