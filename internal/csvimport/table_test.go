package csvimport_test

import (
	"os"
	"reflect"
	"strings"
	"testing"

	"github.com/frontdesk/frontdesk/internal/csvimport"
)

func readFile(t *testing.T, path string) *csvimport.Table {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	tab, err := csvimport.Read(f, 0)
	if err != nil {
		t.Fatalf("read %s: %v", path, err)
	}
	return tab
}

func TestReadFiles(t *testing.T) {
	for _, test := range []struct {
		file     string
		delim    rune
		bom      bool
		encoding string
		header   []string
		rows     [][]string // trimmed cells
		nums     []int
		lines    []int
	}{
		{
			file: "testdata/contacts_es.csv", delim: ';', bom: true, encoding: csvimport.EncUTF8,
			header: []string{"ID", "Nombre", "Apellidos", "Teléfono", "Correo electrónico", "Empresa", "Etiquetas", "Plan", "Origen"},
			rows: [][]string{
				{"c-1", "María", "García López", "+34 600 111 222", "maria@example.com", "Clínica; Norte", "vip, oro", "gold", "web"},
				{"c-2", "José", `Pérez "Pepe"`, "612345678", "", "", "", "", "feria\nde mayo"},
				{"c-3", "Ana", "", "", "ana@example.com", "", "", "", ""},
			},
			// Blank lines (and a line of bare delimiters) are not rows; a
			// quoted newline keeps one row over two lines.
			nums: []int{1, 2, 3}, lines: []int{2, 5, 7},
		},
		{
			file: "testdata/patients_en.csv", delim: ',', encoding: csvimport.EncUTF8,
			header: []string{"External ID", "First Name", "Last Name", "Mobile", "Email", "Service", "Priority", "Notes"},
			rows: [][]string{
				{"p-1", "Laura", "Smith", "+44 7700 900123", "laura@example.com", "Limpieza dental", "urgent", "Prefers mornings, if possible"},
				{"p-2", "Tom", "Brown", "+34 620 000 002", "", "1, Fisioterapia", "3", ""},
			},
			nums: []int{1, 2}, lines: []int{2, 3},
		},
		{
			file: "testdata/latin1.csv", delim: ';', encoding: csvimport.EncWindows,
			header: []string{"Nombre", "Teléfono", "Población"},
			rows:   [][]string{{"Iñigo", "+34 600 000 001", "Logroño"}},
			nums:   []int{1}, lines: []int{2},
		},
		{
			file: "testdata/utf16.txt", delim: '\t', bom: true, encoding: csvimport.EncUTF16,
			header: []string{"Nombre", "Móvil"},
			rows:   [][]string{{"Begoña", "+34 600 000 003"}},
			nums:   []int{1}, lines: []int{2},
		},
	} {
		t.Run(test.file, func(t *testing.T) {
			tab := readFile(t, test.file)
			if tab.Delimiter != test.delim || tab.BOM != test.bom || tab.Encoding != test.encoding {
				t.Errorf("delimiter %q bom %v encoding %s, want %q %v %s", tab.Delimiter, tab.BOM, tab.Encoding, test.delim, test.bom, test.encoding)
			}
			if !reflect.DeepEqual(tab.Header, test.header) {
				t.Errorf("header %q, want %q", tab.Header, test.header)
			}
			if len(tab.Rows) != len(test.rows) {
				t.Fatalf("%d rows, want %d", len(tab.Rows), len(test.rows))
			}
			for i, rec := range tab.Rows {
				var cells []string
				for c := range test.header {
					cells = append(cells, rec.Cell(c))
				}
				if !reflect.DeepEqual(cells, test.rows[i]) {
					t.Errorf("row %d: %q, want %q", i, cells, test.rows[i])
				}
				if rec.Num != test.nums[i] || rec.Line != test.lines[i] {
					t.Errorf("row %d: num %d line %d, want %d %d", i, rec.Num, rec.Line, test.nums[i], test.lines[i])
				}
			}
		})
	}
}

func TestReadEdges(t *testing.T) {
	for _, test := range []struct {
		name, in string
		delim    rune // forced; 0 detects
		rows     int
		wantErr  string
		check    func(t *testing.T, tab *csvimport.Table)
	}{
		{name: "empty file", in: "", wantErr: "empty"},
		{name: "only blank lines", in: "\n\n;;\n", wantErr: "empty"},
		{name: "header only", in: "phone,email\n", rows: 0},
		{name: "no final newline", in: "phone\n+34600000001", rows: 1},
		{name: "short and long rows", in: "a,b,c\n1\n1,2,3,4\n", rows: 2, check: func(t *testing.T, tab *csvimport.Table) {
			if tab.Rows[0].Cell(2) != "" || tab.Rows[1].Cell(3) != "4" || tab.Rows[0].Cell(-1) != "" {
				t.Errorf("cells: %q %q", tab.Rows[0].Cells, tab.Rows[1].Cells)
			}
		}},
		{name: "semicolons inside quotes do not decide", in: "\"a;b;c\",x,y\n1,2,3\n", rows: 1, check: func(t *testing.T, tab *csvimport.Table) {
			if tab.Delimiter != ',' || tab.Header[0] != "a;b;c" {
				t.Errorf("delimiter %q header %q", tab.Delimiter, tab.Header)
			}
		}},
		{name: "forced delimiter", in: "a;b,c\n1;2,3\n", delim: ',', rows: 1, check: func(t *testing.T, tab *csvimport.Table) {
			if len(tab.Header) != 2 || tab.Header[0] != "a;b" {
				t.Errorf("header %q", tab.Header)
			}
		}},
		{name: "header cells are trimmed", in: " Teléfono ,\tCorreo\n1,2\n", rows: 1, check: func(t *testing.T, tab *csvimport.Table) {
			if tab.Header[0] != "Teléfono" || tab.Header[1] != "Correo" {
				t.Errorf("header %q", tab.Header)
			}
		}},
		{name: "blank leading lines", in: "\n\nphone\n1\n", rows: 1, check: func(t *testing.T, tab *csvimport.Table) {
			if tab.Header[0] != "phone" || tab.Rows[0].Line != 4 {
				t.Errorf("header %q line %d", tab.Header, tab.Rows[0].Line)
			}
		}},
		{name: "bare quote is reported with its line", in: "a,b\n1,2\n3,x\"y\n", wantErr: "line 3"},
		{name: "unclosed quote is reported", in: "a,b\n1,\"2\n", wantErr: "line"},
	} {
		t.Run(test.name, func(t *testing.T) {
			tab, err := csvimport.Read(strings.NewReader(test.in), test.delim)
			if test.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), test.wantErr) {
					t.Fatalf("err = %v, want %q", err, test.wantErr)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if len(tab.Rows) != test.rows {
				t.Fatalf("%d rows, want %d", len(tab.Rows), test.rows)
			}
			if test.check != nil {
				test.check(t, tab)
			}
		})
	}
}

func TestDetectDelimiter(t *testing.T) {
	for line, want := range map[string]rune{
		"phone,email,name":      ',',
		"phone;email;name":      ';',
		"phone\temail\tname":    '\t',
		"phone|email|name":      '|',
		"phone":                 ',',
		"":                      ',',
		`"a,b";c;d`:             ';',
		"a,b;c":                 ',', // a tie goes to ","
		`"Teléfono, móvil";Nom`: ';',
	} {
		if got := csvimport.DetectDelimiter(line); got != want {
			t.Errorf("DetectDelimiter(%q) = %q, want %q", line, got, want)
		}
	}
}
