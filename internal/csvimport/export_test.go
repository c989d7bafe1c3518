package csvimport

// OnPrepared lets tests see a batch encoded before it is sent.
func OnPrepared(j *Job, f func(batch int)) { j.onPrepared = f }

// EncodePipeline encodes one batch-ingest body the way Run does.
func EncodePipeline(j *Job, chunk []Record) ([]byte, error) {
	e, err := j.newPipelineEncoder()
	if err != nil {
		return nil, err
	}
	return e.encode(chunk), nil
}

// PipelineOptions exposes a batch-ingest body's options to the encoder's
// equivalence tests.
func PipelineOptions(j *Job) map[string]any { return j.pipelineOptions() }
