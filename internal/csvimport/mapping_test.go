package csvimport_test

import (
	"reflect"
	"strings"
	"testing"

	"github.com/frontdesk/frontdesk/internal/csvimport"
)

// roles summarises a mapping as header -> role, the way Describe shows it.
func roles(m *csvimport.Mapping) map[string]string {
	out := map[string]string{}
	for _, c := range m.Columns {
		switch {
		case c.Field != "":
			out[c.Header] = c.Field
		case c.DataKey != "":
			out[c.Header] = "data." + c.DataKey
		default:
			out[c.Header] = "-"
		}
	}
	return out
}

func overrides(t *testing.T, specs ...string) []csvimport.Override {
	t.Helper()
	var out []csvimport.Override
	for _, s := range specs {
		o, err := csvimport.ParseOverride(s)
		if err != nil {
			t.Fatal(err)
		}
		out = append(out, o)
	}
	return out
}

func TestDetect(t *testing.T) {
	for _, test := range []struct {
		name    string
		kind    csvimport.Kind
		header  []string
		maps    []string
		want    map[string]string
		notices []string // substrings, in order
	}{
		{
			name: "spanish headers, any case and accents", kind: csvimport.Pipeline,
			header: []string{"ID", "NOMBRE", "apellidos", "Teléfono Móvil", "Correo electrónico", "Empresa", "Prefijo", "Zona horaria", "Etiquetas", "Plan"},
			want: map[string]string{"ID": "external_id", "NOMBRE": "first_name", "apellidos": "last_name", "Teléfono Móvil": "phone",
				"Correo electrónico": "email", "Empresa": "company", "Prefijo": "area_code", "Zona horaria": "timezone",
				"Etiquetas": "tags", "Plan": "data.Plan"},
		},
		{
			name: "english headers with separators", kind: csvimport.Pipeline,
			header: []string{"External-ID", "First Name", "last_name", "Phone Number", "E-mail", "Company", "Country Code", "Time Zone", "Tags", "Client ID"},
			want: map[string]string{"External-ID": "external_id", "First Name": "first_name", "last_name": "last_name", "Phone Number": "phone",
				"E-mail": "email", "Company": "company", "Country Code": "area_code", "Time Zone": "timezone", "Tags": "tags", "Client ID": "client_id"},
		},
		{
			name: "movil, mobile, telefono are all phones: the first wins", kind: csvimport.Pipeline,
			header:  []string{"Móvil", "Telefono", "email"},
			want:    map[string]string{"Móvil": "phone", "Telefono": "data.Telefono", "email": "email"},
			notices: []string{`"Móvil" and "Telefono" both look like phone_number; using "Móvil"`},
		},
		{
			name: "keywords rescue headers no alias names, after the aliases", kind: csvimport.Pipeline,
			header:  []string{"Email secundario", "Teléfono de contacto", "Email"},
			want:    map[string]string{"Email secundario": "data.Email secundario", "Teléfono de contacto": "phone", "Email": "email"},
			notices: []string{`"Email" and "Email secundario" both look like email`},
		},
		{
			name: "a full name stands in for the first name", kind: csvimport.Pipeline,
			header: []string{"Nombre completo", "Tel"},
			want:   map[string]string{"Nombre completo": "first_name", "Tel": "phone"},
		},
		{
			name: "a full name beside a first name is just data", kind: csvimport.Pipeline,
			header: []string{"Name", "First name", "Phone"},
			want:   map[string]string{"Name": "data.Name", "First name": "first_name", "Phone": "phone"},
		},
		{
			name: "waiting list: fields of its own, other columns ignored", kind: csvimport.Waitlist,
			header: []string{"Paciente", "Móvil", "Servicio", "Prioridad", "Observaciones", "Desde", "Hasta", "Franja", "Profesional ID", "Empresa", "", "Ref"},
			want: map[string]string{"Paciente": "first_name", "Móvil": "phone", "Servicio": "service", "Prioridad": "priority",
				"Observaciones": "notes", "Desde": "earliest_date", "Hasta": "latest_date", "Franja": "time_preference",
				"Profesional ID": "preferred_professional_id", "Empresa": "-", "": "-", "Ref": "external_id"},
		},
		{
			name: "pipeline: waiting-list columns are data", kind: csvimport.Pipeline,
			header: []string{"phone", "Servicio", "Notas"},
			want:   map[string]string{"phone": "phone", "Servicio": "data.Servicio", "Notas": "data.Notas"},
		},
		{
			name: "overrides: API names, aliases, data keys, skipping, folded column names", kind: csvimport.Pipeline,
			header: []string{"Teléfono", "Fijo", "Correo", "Cod", "Secreto", "Nota interna"},
			maps:   []string{"phone_number=Fijo", "data.codigo=cod", "-=Secreto", "correo=Nota interna"},
			want: map[string]string{"Teléfono": "data.Teléfono", "Fijo": "phone", "Correo": "data.Correo", "Cod": "data.codigo",
				"Secreto": "-", "Nota interna": "email"},
		},
		{
			name: "override of a waiting-list service by its API name", kind: csvimport.Waitlist,
			header: []string{"Tel", "Tratamiento deseado"},
			maps:   []string{"service_names=Tratamiento deseado"},
			want:   map[string]string{"Tel": "phone", "Tratamiento deseado": "service"},
		},
		{
			name: "two identical headers: the second is not a second data key", kind: csvimport.Pipeline,
			header: []string{"phone", "Plan", "Plan"},
			want:   map[string]string{"phone": "phone", "Plan": "data.Plan"},
		},
	} {
		t.Run(test.name, func(t *testing.T) {
			m, notices, err := csvimport.Detect(test.kind, test.header, overrides(t, test.maps...))
			if err != nil {
				t.Fatal(err)
			}
			got := roles(m)
			if test.name == "two identical headers: the second is not a second data key" {
				if m.Columns[2].DataKey != "" || m.Columns[2].Field != "" || m.Columns[1].DataKey != "Plan" {
					t.Errorf("columns: %+v", m.Columns)
				}
				return
			}
			if !reflect.DeepEqual(got, test.want) {
				t.Errorf("roles:\n got %v\nwant %v", got, test.want)
			}
			if len(notices) != len(test.notices) {
				t.Fatalf("notices %q, want %q", notices, test.notices)
			}
			for i, n := range test.notices {
				if !strings.Contains(notices[i], n) {
					t.Errorf("notice %q lacks %q", notices[i], n)
				}
			}
		})
	}
}

func TestDetectErrors(t *testing.T) {
	long := strings.Repeat("x", 101)
	for _, test := range []struct {
		name   string
		kind   csvimport.Kind
		header []string
		maps   []string
		want   string
	}{
		{"unknown column", csvimport.Pipeline, []string{"phone"}, []string{"email=Correo"}, `no column named "Correo"`},
		{"unknown field", csvimport.Pipeline, []string{"phone", "x"}, []string{"colour=x"}, `unknown field "colour"`},
		{"waiting-list field in a pipeline", csvimport.Pipeline, []string{"phone", "x"}, []string{"priority=x"}, `unknown field "priority"`},
		{"data keys only in pipelines", csvimport.Waitlist, []string{"phone", "x"}, []string{"data.x=x"}, "only in pipeline imports"},
		{"column mapped twice", csvimport.Pipeline, []string{"phone", "x"}, []string{"email=x", "company=x"}, "mapped twice"},
		{"field mapped twice", csvimport.Pipeline, []string{"a", "b"}, []string{"email=a", "email=b"}, "two columns"},
		{"data key too long", csvimport.Pipeline, []string{"phone", long}, nil, "at most 100"},
		{"override key too long", csvimport.Pipeline, []string{"phone", "x"}, []string{"data." + long + "=x"}, "1 to 100"},
	} {
		t.Run(test.name, func(t *testing.T) {
			_, _, err := csvimport.Detect(test.kind, test.header, overrides(t, test.maps...))
			if err == nil || !strings.Contains(err.Error(), test.want) {
				t.Errorf("err = %v, want %q", err, test.want)
			}
		})
	}
	for _, bad := range []string{"phone", "=x", "phone=", " = "} {
		if _, err := csvimport.ParseOverride(bad); err == nil {
			t.Errorf("ParseOverride(%q) accepted", bad)
		}
	}
}

func TestCheck(t *testing.T) {
	for _, test := range []struct {
		name     string
		kind     csvimport.Kind
		header   []string
		services bool
		want     string // "" for ok
	}{
		{"pipeline with phone", csvimport.Pipeline, []string{"Teléfono"}, false, ""},
		{"pipeline with e-mail only", csvimport.Pipeline, []string{"Correo"}, false, ""},
		{"pipeline with client id only", csvimport.Pipeline, []string{"client_id"}, false, ""},
		{"pipeline with nothing to match", csvimport.Pipeline, []string{"Nombre", "Plan"}, false, `no column looks like a phone number, an e-mail or a client id`},
		{"waiting list without service", csvimport.Waitlist, []string{"phone"}, false, "no column names the service"},
		{"waiting list with --service", csvimport.Waitlist, []string{"phone"}, true, ""},
		{"waiting list without contact", csvimport.Waitlist, []string{"Nombre", "Servicio"}, false, "phone number or an e-mail"},
	} {
		t.Run(test.name, func(t *testing.T) {
			m, _, err := csvimport.Detect(test.kind, test.header, nil)
			if err != nil {
				t.Fatal(err)
			}
			err = m.Check(test.services)
			if test.want == "" {
				if err != nil {
					t.Errorf("Check: %v", err)
				}
				return
			}
			if err == nil || !strings.Contains(err.Error(), test.want) || !strings.Contains(err.Error(), `"`+test.header[0]+`"`) {
				t.Errorf("Check = %v, want %q and the header listed", err, test.want)
			}
		})
	}
}

func TestDescribe(t *testing.T) {
	m, _, err := csvimport.Detect(csvimport.Waitlist, []string{"Ref", "Tel", "Servicio", "Empresa"}, nil)
	if err != nil {
		t.Fatal(err)
	}
	want := []string{`"Ref" → external id (result file only)`, `"Tel" → phone`, `"Servicio" → service_ids / service_names`,
		`"Empresa" → ignored (not a waiting-list field)`}
	if got := m.Describe(); !reflect.DeepEqual(got, want) {
		t.Errorf("Describe:\n got %q\nwant %q", got, want)
	}
	m, _, _ = csvimport.Detect(csvimport.Pipeline, []string{"Tel", "Plan"}, nil)
	if got := m.Describe(); got[0] != `"Tel" → phone_number` || got[1] != `"Plan" → data["Plan"]` {
		t.Errorf("Describe: %q", got)
	}
}
