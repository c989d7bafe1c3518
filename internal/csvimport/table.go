// Package csvimport loads a spreadsheet export (CSV) into the public API's
// batch endpoints: pipeline batch ingest and the waiting-list batch.
//
// It does only what a careful integrator would do by hand: read whatever a
// spreadsheet wrote (BOM, ";" or "," delimiters, quoted fields, Windows-1252
// from older Excel, blank lines), map the columns onto the API's row fields,
// send 500-row batches one at a time (the contract forbids parallel batches
// for one input node), retry only what the contract says converges (5xx and
// network errors; never a 4xx), and write one result line per input row.
// It talks to the server over HTTP only, so it imports nothing from the
// server's own packages but the name folding shared with them.
package csvimport

import (
	"bytes"
	"encoding/csv"
	"errors"
	"fmt"
	"io"
	"strings"
	"unicode/utf8"

	"golang.org/x/text/encoding/charmap"
	"golang.org/x/text/encoding/unicode"
)

// Table is a whole CSV file: its header and its non-empty data rows.
type Table struct {
	Header    []string // trimmed
	Rows      []Record
	Delimiter rune
	BOM       bool // the file started with a byte order mark
	Encoding  string
}

// Record is one data row.
type Record struct {
	// Num is the 1-based data row number: the header and empty lines are not
	// counted. The result file reports rows by this number.
	Num int
	// Line is the file line where the row starts (the header is line 1).
	Line  int
	Cells []string
}

// Cell returns the trimmed value of column i ("" when the row is short).
func (r Record) Cell(i int) string {
	if i < 0 || i >= len(r.Cells) {
		return ""
	}
	return strings.TrimSpace(r.Cells[i])
}

// Encodings reported in Table.Encoding.
const (
	EncUTF8    = "UTF-8"
	EncUTF16   = "UTF-16"
	EncWindows = "Windows-1252"
)

// Read reads a whole CSV file. delim 0 detects the delimiter from the header
// line (",", ";", tab or "|", whichever occurs most outside quotes; "," when
// none does). The whole file is parsed before anything is sent, so a
// malformed line 15,000 stops the import before its first batch, not after
// thirty of them.
func Read(r io.Reader, delim rune) (*Table, error) {
	raw, err := io.ReadAll(r)
	if err != nil {
		return nil, err
	}
	t := &Table{Encoding: EncUTF8}
	text, err := decode(raw, t)
	if err != nil {
		return nil, err
	}
	if delim == 0 {
		delim = DetectDelimiter(firstLine(text))
	}
	t.Delimiter = delim

	cr := csv.NewReader(strings.NewReader(text))
	cr.Comma = delim
	cr.FieldsPerRecord = -1 // short and long rows are the mapping's business
	header := true
	for {
		cells, err := cr.Read()
		if err == io.EOF {
			break
		}
		if err != nil {
			var pe *csv.ParseError
			if errors.As(err, &pe) {
				return nil, fmt.Errorf("line %d, column %d: %v", pe.Line, pe.Column, pe.Err)
			}
			return nil, err
		}
		line, _ := cr.FieldPos(0)
		if blank(cells) {
			continue // ";;;" lines left by spreadsheets are empty lines too
		}
		if header {
			header = false
			t.Header = make([]string, len(cells))
			for i, c := range cells {
				t.Header[i] = strings.TrimSpace(c)
			}
			continue
		}
		t.Rows = append(t.Rows, Record{Num: len(t.Rows) + 1, Line: line, Cells: cells})
	}
	if t.Header == nil {
		return nil, errors.New("the file is empty: the first line must be a header naming the columns")
	}
	return t, nil
}

// decode strips a byte order mark and turns the file into UTF-8 text:
// UTF-16 with a BOM (Excel's "Unicode text"), UTF-8, or, when the bytes are
// not valid UTF-8, Windows-1252 (older Excel's "CSV" on Spanish and English
// systems, where "Teléfono" is one byte per letter).
func decode(raw []byte, t *Table) (string, error) {
	switch {
	case bytes.HasPrefix(raw, []byte{0xEF, 0xBB, 0xBF}):
		t.BOM = true
		raw = raw[3:]
	case bytes.HasPrefix(raw, []byte{0xFF, 0xFE}), bytes.HasPrefix(raw, []byte{0xFE, 0xFF}):
		t.BOM = true
		t.Encoding = EncUTF16
		out, err := unicode.UTF16(unicode.LittleEndian, unicode.ExpectBOM).NewDecoder().Bytes(raw)
		if err != nil {
			return "", fmt.Errorf("decode UTF-16: %w", err)
		}
		return string(out), nil
	}
	if utf8.Valid(raw) {
		return string(raw), nil
	}
	t.Encoding = EncWindows
	out, err := charmap.Windows1252.NewDecoder().Bytes(raw)
	if err != nil {
		return "", fmt.Errorf("decode Windows-1252: %w", err)
	}
	return string(out), nil
}

// firstLine returns the first non-empty line (quoted newlines in a header
// are rare enough to ignore for delimiter detection).
func firstLine(text string) string {
	for text != "" {
		line, rest, _ := strings.Cut(text, "\n")
		if strings.TrimSpace(line) != "" {
			return line
		}
		text = rest
	}
	return ""
}

// DetectDelimiter picks the delimiter of a header line: the candidate that
// occurs most often outside double quotes; "," on a tie or when none occurs.
func DetectDelimiter(line string) rune {
	counts := map[rune]int{}
	quoted := false
	for _, r := range line {
		switch {
		case r == '"':
			quoted = !quoted
		case !quoted && (r == ',' || r == ';' || r == '\t' || r == '|'):
			counts[r]++
		}
	}
	best, n := ',', counts[',']
	for _, r := range []rune{';', '\t', '|'} {
		if counts[r] > n {
			best, n = r, counts[r]
		}
	}
	return best
}

func blank(cells []string) bool {
	for _, c := range cells {
		if strings.TrimSpace(c) != "" {
			return false
		}
	}
	return true
}
