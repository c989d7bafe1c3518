package chat

// The lookups of a round of channel messages, for TestRoundLookupsProbeTheirIndexes.
var (
	RecordedQuery = recordedQuery
	OpenQuery     = openQuery
)
