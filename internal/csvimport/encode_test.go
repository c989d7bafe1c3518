package csvimport_test

import (
	"bytes"
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/frontdesk/frontdesk/internal/csvimport"
)

// mapBody is the batch-ingest body built the plain way: PipelineRow's maps
// and json.Marshal. The importer's encoder must write exactly these bytes.
func mapBody(t testing.TB, j *csvimport.Job, chunk []csvimport.Record) []byte {
	rows := make([]any, len(chunk))
	for i, rec := range chunk {
		rows[i] = j.Mapping.PipelineRow(rec)
	}
	body := csvimport.PipelineOptions(j) // the batch's options, as the old encoder set them
	body["clients"] = rows
	data, err := json.Marshal(body)
	if err != nil {
		t.Fatal(err)
	}
	return data
}

func encodeJob(t testing.TB, csv string, overrides []csvimport.Override) (*csvimport.Job, *csvimport.Table) {
	t.Helper()
	tab, err := csvimport.Read(strings.NewReader(csv), 0)
	if err != nil {
		t.Fatal(err)
	}
	m, _, err := csvimport.Detect(csvimport.Pipeline, tab.Header, overrides)
	if err != nil {
		t.Fatal(err)
	}
	return &csvimport.Job{Kind: csvimport.Pipeline, Table: tab, Mapping: m}, tab
}

func TestEncodePipelineMatchesMaps(t *testing.T) {
	for _, test := range []struct {
		name      string
		csv       string
		overrides []csvimport.Override
		job       func(j *csvimport.Job)
	}{
		{name: "every field and custom data", csv: "ID;Cliente ID;Nombre;Apellidos;Teléfono;Prefijo;Correo;Empresa;Zona horaria;Etiquetas;Plan;Origen\n" +
			"c-1;42;María;García;600 111 222;34;maria@example.com;Clínica Sol;Europe/Madrid;\"vip, gold\";plus;web\n" +
			"c-2;abc;;;;;;;;;;\n" +
			"c-3;-7;  Ana  ;;+34 611;;;;;\" , ; |\";;\n" +
			"c-4;+12;<b>&amp;</b>;\"quote \"\" back\\slash\";;;;\"tab\there\";;a|b;c;\u2028x\u2029\n" +
			";;;;;;;;;;;\n" + // a blank line: skipped by Read
			"c-6;99999999999999999999;x;;;;;;;;;\n",
			job: func(j *csvimport.Job) {
				j.OnDuplicate, j.DryRun, j.AllOrNone, j.StageID, j.AreaCode, j.TriggerAutomations = "skip", true, true, 9, "34", true
			}},
		{name: "no data, only a phone", csv: "phone\n+34600000001\n \n+34600000002\n"},
		{name: "two columns for one data key, the last non-blank wins", csv: "phone,A,B,C\n1,x,y,z\n2,x,,z\n3,,,\n",
			overrides: []csvimport.Override{{Field: "data.k", Column: "A"}, {Field: "data.k", Column: "B"}, {Field: "-", Column: "C"}}},
		{name: "data keys sort as bytes", csv: "phone,b,B,a,é,_,Z<>\n1,1,2,3,4,5,6\n"},
	} {
		t.Run(test.name, func(t *testing.T) {
			j, tab := encodeJob(t, test.csv, test.overrides)
			if test.job != nil {
				test.job(j)
			}
			got, err := csvimport.EncodePipeline(j, tab.Rows)
			if err != nil {
				t.Fatal(err)
			}
			if want := mapBody(t, j, tab.Rows); !bytes.Equal(got, want) {
				t.Errorf("encoded body\n got %s\nwant %s", got, want)
			}
		})
	}
}

// Random cells drawn from the characters JSON and the mapping treat
// specially: quotes, backslashes, HTML, control characters, separators,
// U+2028, invalid UTF-8, digits and signs.
func TestEncodePipelineRandomRows(t *testing.T) {
	const alphabet = "a9-+\"\\<>&\x00\x01\x08\x0c\n\r\t\x7f ,;|é\u2028\u2029\xff\xc3"
	pieces := []string{}
	for _, r := range alphabet {
		pieces = append(pieces, string(r))
	}
	pieces = append(pieces, "\xff", "\xc3", "12", "-3", "  ")
	rng := rand.New(rand.NewPCG(1, 2))
	cell := func() string {
		var b strings.Builder
		for range rng.IntN(6) {
			b.WriteString(pieces[rng.IntN(len(pieces))])
		}
		return b.String()
	}
	header := []string{"external_id", "client_id", "first_name", "last_name", "phone", "area_code", "email", "company", "timezone", "tags", "x", "Y", "z"}
	for round := range 200 {
		rows := 1 + rng.IntN(20)
		recs := make([]csvimport.Record, rows)
		for i := range recs {
			cells := make([]string, rng.IntN(len(header)+2)) // short and long rows too
			for k := range cells {
				cells[k] = cell()
			}
			recs[i] = csvimport.Record{Num: i + 1, Cells: cells}
		}
		m, _, err := csvimport.Detect(csvimport.Pipeline, header, nil)
		if err != nil {
			t.Fatal(err)
		}
		j := &csvimport.Job{Kind: csvimport.Pipeline, Mapping: m, TriggerAutomations: round%2 == 0, AreaCode: cell(),
			AllOrNone: round%3 == 0, DryRun: round%5 == 0, StageID: int64(round % 4), OnDuplicate: []string{"", "skip", "update"}[round%3]}
		got, err := csvimport.EncodePipeline(j, recs)
		if err != nil {
			t.Fatal(err)
		}
		if want := mapBody(t, j, recs); !bytes.Equal(got, want) {
			t.Fatalf("round %d: rows %+v\n got %s\nwant %s", round, recs, got, want)
		}
	}
}

func FuzzEncodePipeline(f *testing.F) {
	f.Add("+34 600 111 222", "vip, gold", "42", "plan \"x\"")
	f.Add("\xff<>&", " ; | ", "-0", "\u2028")
	m, _, err := csvimport.Detect(csvimport.Pipeline, []string{"phone", "tags", "client_id", "Plan"}, nil)
	if err != nil {
		f.Fatal(err)
	}
	f.Fuzz(func(t *testing.T, phone, tags, id, plan string) {
		j := &csvimport.Job{Kind: csvimport.Pipeline, Mapping: m}
		recs := []csvimport.Record{{Num: 1, Cells: []string{phone, tags, id, plan}}}
		got, err := csvimport.EncodePipeline(j, recs)
		if err != nil {
			t.Fatal(err)
		}
		if want := mapBody(t, j, recs); !bytes.Equal(got, want) {
			t.Fatalf("got %s\nwant %s", got, want)
		}
	})
}

var sink []byte

// BenchmarkEncodePipeline compares the importer's encoder with the maps and
// json.Marshal it replaced, per 500-row batch.
func BenchmarkEncodePipeline(b *testing.B) {
	var csv strings.Builder
	csv.WriteString("ID;Nombre;Apellidos;Teléfono;Correo;Empresa;Etiquetas;Plan;Origen\n")
	for i := 1; i <= 500; i++ {
		fmt.Fprintf(&csv, "c-%06d;María;\"García; %d\";+34 610 000 %03d;contacto%d@example.com;Clínica %d;\"csv, lote %d\";plus;web\n", i, i, i%1000, i, i%50, i%7)
	}
	j, tab := encodeJob(b, csv.String(), nil)
	b.Run("encoder", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			sink, _ = csvimport.EncodePipeline(j, tab.Rows)
		}
	})
	b.Run("maps", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			sink = mapBody(b, j, tab.Rows)
		}
	})
}
