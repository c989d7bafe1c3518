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
	"bufio"
	"flag"
	"fmt"
	"os"
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

var (
	firstNames = []string{"María", "José", "Lucía", "Javier", "Carmen", "Pablo", "Sofía", "Álvaro", "Elena", "Íñigo"}
	lastNames  = []string{"García", "Fernández", "López", "Martínez", "Sánchez", "Pérez", "Gómez", "Muñoz", "Díaz", "Ruiz Ortega"}
	plans      = []string{"básico", "plus", "premium"}
	sources    = []string{"web", "feria 2026", "recomendación", "\"Campaña\" verano"}
)

func write(path string, rows, first int) error {
	f, err := os.Create(path)
	if err != nil {
		return err
	}
	w := bufio.NewWriter(f)
	w.WriteString("\uFEFFID;Nombre;Apellidos;Teléfono;Correo;Empresa;Etiquetas;Plan;Origen\r\n")
	for i := 1; i <= rows; i++ {
		n := first + i
		src := sources[i%len(sources)]
		if src[0] == '"' {
			src = `"""Campaña"" verano"`
		}
		fmt.Fprintf(w, "c-%06d;%s;\"%s; %d\";+34 6%02d %03d %03d;contacto%d@example.com;Clínica %d;\"csv, lote %d\";%s;%s\r\n",
			n, firstNames[i%len(firstNames)], lastNames[i%len(lastNames)], i,
			10+n/1000000%90, n/1000%1000, n%1000, n, i%50, i%7, plans[i%len(plans)], src)
		if i%5000 == 0 {
			w.WriteString("\r\n;;;;;;;;\r\n") // spreadsheets leave blank lines
		}
	}
	if err := w.Flush(); err != nil {
		f.Close()
		return err
	}
	return f.Close()
}
