package csvimport_test

import (
	"encoding/json"
	"testing"

	"github.com/frontdesk/frontdesk/internal/csvimport"
)

// row builds one record of the given cells.
func row(cells ...string) csvimport.Record {
	return csvimport.Record{Num: 1, Line: 2, Cells: cells}
}

func asJSON(t *testing.T, v any) string {
	t.Helper()
	b, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

func TestPipelineRow(t *testing.T) {
	m, _, err := csvimport.Detect(csvimport.Pipeline,
		[]string{"ID", "Client ID", "Nombre", "Apellidos", "Teléfono", "Prefijo", "Correo", "Empresa", "Zona horaria", "Etiquetas", "Plan", "Origen"}, nil)
	if err != nil {
		t.Fatal(err)
	}
	for _, test := range []struct {
		name  string
		cells []string
		want  string
	}{
		{
			name:  "every field",
			cells: []string{" c-1 ", "17", "María", "García", "600 111 222", "34", "maria@example.com", "Norte", "Europe/Madrid", "vip, oro;;gold|", "gold", "web"},
			want: `{"area_code":"34","client_id":17,"company":"Norte","data":{"Origen":"web","Plan":"gold"},"email":"maria@example.com",` +
				`"external_id":"c-1","first_name":"María","last_name":"García","phone_number":"600 111 222",` +
				`"tags":[{"name":"vip"},{"name":"oro"},{"name":"gold"}],"timezone":"Europe/Madrid"}`,
		},
		{
			// Blank cells are never sent: an absent field leaves the stored
			// value alone, which is what an empty cell means.
			name:  "blank cells are absent",
			cells: []string{"", "", "  ", "", "+34600111222", "", "", "", "", " , ", "", ""},
			want:  `{"phone_number":"+34600111222"}`,
		},
		{
			name:  "a short row",
			cells: []string{"c-9"},
			want:  `{"external_id":"c-9"}`,
		},
		{
			// The server judges the client id; the row fails there with its
			// own message.
			name:  "a client id that is not a number is sent as text",
			cells: []string{"", "abc"},
			want:  `{"client_id":"abc"}`,
		},
	} {
		t.Run(test.name, func(t *testing.T) {
			if got := asJSON(t, m.PipelineRow(row(test.cells...))); got != test.want {
				t.Errorf("\n got %s\nwant %s", got, test.want)
			}
		})
	}
	if got := m.ExternalID(row(" c-1 ")); got != "c-1" {
		t.Errorf("ExternalID = %q", got)
	}
}

func TestWaitlistRow(t *testing.T) {
	m, _, err := csvimport.Detect(csvimport.Waitlist,
		[]string{"Ref", "Nombre", "Apellidos", "Móvil", "Prefijo", "Email", "Servicio", "Prioridad", "Notas", "Desde", "Hasta", "Franja", "Profesional ID"}, nil)
	if err != nil {
		t.Fatal(err)
	}
	for _, test := range []struct {
		name     string
		cells    []string
		services []string
		want     string
	}{
		{
			name:  "every field; the external id stays local",
			cells: []string{"p-1", "Ana", "Ruiz", "+34 600 000 001", "", "ana@example.com", "Limpieza dental", "urgente", "Solo martes", "2026-12-01", "2026-12-31", "Mañana", "7"},
			want: `{"earliest_date":"2026-12-01","email":"ana@example.com","first_name":"Ana","last_name":"Ruiz","latest_date":"2026-12-31",` +
				`"notes":"Solo martes","phone":"+34 600 000 001","preferred_professional_id":7,"priority":0,"service_names":["Limpieza dental"],"time_preference":"morning"}`,
		},
		{
			name:  "numeric services are ids, others names",
			cells: []string{"", "", "", "600000002", "", "", "3; Fisioterapia, 12", "2", "", "", "", "tarde", ""},
			want:  `{"phone":"600000002","priority":2,"service_ids":[3,12],"service_names":["Fisioterapia"],"time_preference":"afternoon"}`,
		},
		{
			name:     "a row naming no service takes --service",
			cells:    []string{"", "", "", "600000003", "", "", "", "Baja", "", "", "", "", ""},
			services: []string{"Revisión", "4"},
			want:     `{"phone":"600000003","priority":3,"service_ids":[4],"service_names":["Revisión"]}`,
		},
		{
			name:     "a row's own service wins over --service",
			cells:    []string{"", "", "", "600000003", "", "", "Fisioterapia", "", "", "", "", "", ""},
			services: []string{"Revisión"},
			want:     `{"phone":"600000003","service_names":["Fisioterapia"]}`,
		},
		{
			name:  "an area code makes national numbers international",
			cells: []string{"", "", "", "600 000 004", "+34", "", "1", "", "", "", "", "", ""},
			want:  `{"phone":"+34 600 000 004","service_ids":[1]}`,
		},
		{
			name:  "an area code leaves international numbers alone",
			cells: []string{"", "", "", "0044 7700 900123", "34", "", "1", "", "", "", "", "", ""},
			want:  `{"phone":"0044 7700 900123","service_ids":[1]}`,
		},
		{
			// The server says what is wrong with these, in its own words.
			name:  "unreadable values are sent for the server to judge",
			cells: []string{"", "", "", "600000005", "x", "", "1", "pronto", "", "01/12/2026", "", "siesta", "Dr. X"},
			want: `{"earliest_date":"01/12/2026","phone":"600000005","preferred_professional_id":"Dr. X","priority":"pronto",` +
				`"service_ids":[1],"time_preference":"siesta"}`,
		},
	} {
		t.Run(test.name, func(t *testing.T) {
			if got := asJSON(t, m.WaitlistRow(row(test.cells...), test.services)); got != test.want {
				t.Errorf("\n got %s\nwant %s", got, test.want)
			}
		})
	}
}
