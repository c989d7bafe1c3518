package pipeline

import (
	"encoding/json"
	"testing"
)

// The typed event data and job payload of a placement encode as the maps
// they replaced did, byte for byte: integrators' webhook bodies and the
// worker's payloads do not change.
func TestPlacedJSONMatchesMaps(t *testing.T) {
	seven := int64(7)
	for _, tc := range []struct {
		name        string
		typed, maps any
	}{
		{"placed, assigned",
			placedData{ClientStateID: 901, ClientID: 12, PipelineID: 3, StageID: 44, Status: Reactivated, EntrySource: SourceAPI, AssignedUserID: &seven},
			map[string]any{"client_state_id": int64(901), "client_id": int64(12), "pipeline_id": int64(3), "stage_id": int64(44),
				"status": Reactivated, "entry_source": SourceAPI, "assigned_user_id": &seven}},
		{"placed, nobody assigned",
			placedData{ClientStateID: 1, ClientID: 2, PipelineID: 3, StageID: 4, Status: Added, EntrySource: "<api & co>"},
			map[string]any{"client_state_id": int64(1), "client_id": int64(2), "pipeline_id": int64(3), "stage_id": int64(4),
				"status": Added, "entry_source": "<api & co>", "assigned_user_id": (*int64)(nil)}},
		{"on-arrival job",
			arrivalPayload{CardID: 901, ClientID: 12, PipelineID: 3, StageID: 44},
			map[string]any{"card_id": int64(901), "client_id": int64(12), "stage_id": int64(44), "pipeline_id": int64(3)}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got, err := json.Marshal(tc.typed)
			if err != nil {
				t.Fatal(err)
			}
			want, err := json.Marshal(tc.maps)
			if err != nil {
				t.Fatal(err)
			}
			if string(got) != string(want) {
				t.Errorf("typed %s\n maps %s", got, want)
			}
		})
	}
}
