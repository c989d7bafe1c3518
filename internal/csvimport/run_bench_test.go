package csvimport_test

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/frontdesk/frontdesk/client"
	"github.com/frontdesk/frontdesk/internal/csvimport"
)

// BenchmarkRunPipeline is the importer's own cost: 20,000 rows like
// gencsv's, through Run, against a server that answers every batch at once
// with a canned 500-row answer (the shape of the real one). ns/row is what
// the importer spends on a row between reading the file and the result
// file; the server's time is not in it.
func BenchmarkRunPipeline(b *testing.B) {
	const rows = 20000
	var csv strings.Builder
	csv.WriteString("\uFEFFID;Nombre;Apellidos;Teléfono;Correo;Empresa;Etiquetas;Plan;Origen\r\n")
	for i := 1; i <= rows; i++ {
		fmt.Fprintf(&csv, "c-%06d;María;\"García; %d\";+34 610 %03d %03d;contacto%d@example.com;Clínica %d;\"csv, lote %d\";plus;web\r\n",
			i, i, i/1000%1000, i%1000, i, i%50, i%7)
	}
	list := make([]any, csvimport.MaxBatch)
	for i := range list {
		list[i] = map[string]any{"index": i, "external_id": fmt.Sprintf("c-%06d", i), "status": "created", "matched_by": nil,
			"client_id": 100000 + i, "errors": []any{}, "pipeline": map[string]any{"status": "added", "client_state_id": 200000 + i}}
	}
	answer, _ := json.Marshal(map[string]any{"status": "success", "dry_run": false, "input_node_uuid": "6f1c9a52-3b7e-4d2a-9c41-2f8e5d7a1b01",
		"pipeline_id": 1, "stage_id": 1, "summary": map[string]int{"total": 500, "created": 500}, "results": list})
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		io.Copy(io.Discard, r.Body)
		w.Header().Set("Content-Type", "application/json")
		w.Write(answer)
	}))
	defer srv.Close()
	b.ReportAllocs()
	for b.Loop() {
		tab, err := csvimport.Read(strings.NewReader(csv.String()), 0)
		if err != nil {
			b.Fatal(err)
		}
		m, _, err := csvimport.Detect(csvimport.Pipeline, tab.Header, nil)
		if err != nil {
			b.Fatal(err)
		}
		var out bytes.Buffer
		rw, err := csvimport.NewResultWriter(&out, csvimport.Pipeline, tab.Delimiter, true)
		if err != nil {
			b.Fatal(err)
		}
		job := &csvimport.Job{Kind: csvimport.Pipeline, Table: tab, Mapping: m, Results: rw, TriggerAutomations: true,
			Client: client.New(srv.URL, "pk_bench"), NodeUUID: "6f1c9a52-3b7e-4d2a-9c41-2f8e5d7a1b01"}
		if sum, err := job.Run(context.Background()); err != nil || !sum.Complete {
			b.Fatalf("%+v %v", sum, err)
		}
	}
	b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N*rows), "ns/row")
}
