package csvimport

import (
	"bufio"
	"fmt"
	"io"
)

var (
	firstNames = []string{"María", "José", "Lucía", "Javier", "Carmen", "Pablo", "Sofía", "Álvaro", "Elena", "Íñigo"}
	lastNames  = []string{"García", "Fernández", "López", "Martínez", "Sánchez", "Pérez", "Gómez", "Muñoz", "Díaz", "Ruiz Ortega"}
	plans      = []string{"básico", "plus", "premium"}
	sources    = []string{"web", "feria 2026", "recomendación", "\"Campaña\" verano"}
)

// SampleCSV writes rows contacts like a Spanish spreadsheet export (BOM, ";"
// and CRLF, quoted fields, tags, custom columns, blank lines) for measuring
// imports (gencsv, frontdesk bench compare). Rows get the national numbers
// after first, so files with distinct ranges import as new clients.
func SampleCSV(out io.Writer, rows, first int) error {
	w := bufio.NewWriter(out)
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
	return w.Flush()
}
