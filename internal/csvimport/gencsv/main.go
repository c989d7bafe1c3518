// Command gencsv writes a contacts CSV like a Spanish spreadsheet export
// (BOM, ";" and CRLF, quoted fields, tags, custom columns) for measuring
// `frontdesk import pipeline`:
//
//	go run ./internal/csvimport/gencsv -rows 20000 -o /tmp/contacts.csv
//
// Every row is a new client as long as -first-phone ranges do not overlap
// between files imported into one account.
package main

import (
	"flag"
	"fmt"
	"os"

	"github.com/frontdesk/frontdesk/internal/csvimport"
)

func main() {
	rows := flag.Int("rows", 20000, "data rows to write")
	out := flag.String("o", "contacts.csv", "file to write")
	first := flag.Int("first-phone", 0, "national number offset of the first row (6xx xxx xxx)")
	flag.Parse()
	if err := write(*out, *rows, *first); err != nil {
		fmt.Fprintln(os.Stderr, "gencsv:", err)
		os.Exit(1)
	}
}

func write(path string, rows, first int) error {
	f, err := os.Create(path)
	if err != nil {
		return err
	}
	if err := csvimport.SampleCSV(f, rows, first); err != nil {
		f.Close()
		return err
	}
	return f.Close()
}
