package bench

import (
	"context"
	"fmt"
	"slices"
	"sync"
	"time"
)

// secondNode is workspace.yaml's other API input node of the account.
const secondNode = "0b7d6c52-5a52-4c1e-9a57-6f4a0f1f3a02"

// Streams compares one ingest stream with two concurrent streams into two
// input nodes of the same account: the rows per second of each, and their
// ratio (1 when the account's batches queue behind each other, 2 when
// they scale perfectly).
type Streams struct {
	Batches, Rows int // per stream and run; rows per batch
	Rounds        int
	One, Two      float64 // rows/s, median over the rounds
	Ratio         float64 // median of the rounds' Two/One
}

// streamsBatches and streamsRounds size the comparison: each round sends
// streamsBatches batches of 500 new rows one stream at a time, then as two
// streams side by side.
const streamsBatches, streamsRounds = 6, 5

// streams measures one stream against two; the rows it creates are deleted
// after each round.
func (r *runner) streams(ctx context.Context, logf func(string, ...any)) (*Streams, error) {
	watermark, err := r.maxClientID(ctx)
	if err != nil {
		return nil, err
	}
	st := &Streams{Batches: streamsBatches, Rows: 500, Rounds: streamsRounds}
	run := func(nodes []string) (float64, error) {
		bodies := make([][][]byte, len(nodes))
		for i := range nodes {
			for range streamsBatches {
				bodies[i] = append(bodies[i], ingestBody(r.fresh(500), nil))
			}
		}
		errs := make(chan error, len(nodes))
		var wg sync.WaitGroup
		start := time.Now()
		for i, node := range nodes {
			wg.Add(1)
			go func() {
				defer wg.Done()
				for _, body := range bodies[i] {
					if _, _, err := r.do("POST", public+"/leadflow/ingest/"+node+"/batch", body); err != nil {
						errs <- err
						return
					}
				}
			}()
		}
		wg.Wait()
		close(errs)
		if err := <-errs; err != nil {
			return 0, err
		}
		return float64(len(nodes)*streamsBatches*500) / time.Since(start).Seconds(), nil
	}
	var ones, twos, ratios []float64
	for round := 0; round <= streamsRounds; round++ {
		one, err := run([]string{inputNode})
		if err != nil {
			return nil, fmt.Errorf("one stream: %w", err)
		}
		two, err := run([]string{inputNode, secondNode})
		if err != nil {
			return nil, fmt.Errorf("two streams: %w", err)
		}
		if err := r.resetAbove(ctx, watermark); err != nil {
			return nil, err
		}
		if round == 0 {
			continue // warm-up
		}
		ones, twos, ratios = append(ones, one), append(twos, two), append(ratios, two/one)
	}
	st.One, st.Two, st.Ratio = median(ones), median(twos), median(ratios)
	logf("ingest streams: one %.0f rows/s, two %.0f rows/s (%.2f×)", st.One, st.Two, st.Ratio)
	return st, nil
}

func median(v []float64) float64 {
	if len(v) == 0 {
		return 0
	}
	s := slices.Clone(v)
	slices.Sort(s)
	return s[len(s)/2]
}
