package workspace

import (
	"context"

	"github.com/frontdesk/frontdesk/internal/db"
)

func (ap *applier) agents(ctx context.Context) error {
	for _, a := range ap.f.AIAgents {
		var fs fields
		fs.add(a.keys.has("name"), "name", a.Name)
		id, err := ap.upsertFields(ctx, "ai_agents", "", ap.owned(a.Key), fs, column("created_at", db.Micros(ap.now)))
		if err != nil {
			return err
		}
		ap.res.IDs.AIAgents[a.Key] = id
	}
	return nil
}

func (ap *applier) dispositions(ctx context.Context) error {
	for _, d := range ap.f.DispositionTags {
		var fs fields
		fs.add(d.keys.has("name"), "name", d.Name)
		fs.add(d.keys.has("color"), "color", d.Color)
		id, err := ap.upsertFields(ctx, "disposition_tags", "", ap.owned(d.Key), fs)
		if err != nil {
			return err
		}
		ap.res.IDs.DispositionTags[d.Key] = id
	}
	return nil
}

func (ap *applier) conversations(ctx context.Context) error {
	if len(ap.f.Conversations) == 0 {
		return nil
	}
	refs := ConversationRefs{Agents: ap.res.IDs.AIAgents, Users: ap.res.IDs.Users, Dispositions: ap.res.IDs.DispositionTags}
	for _, cv := range ap.f.Conversations {
		id, err := UpsertConversation(ctx, ap.tx, ap.acct, cv, refs, ap.now)
		if err != nil {
			return err
		}
		ap.res.IDs.Conversations[cv.Key] = id
	}
	return nil
}
