package csvimport

import (
	"fmt"
	"sort"
	"strings"
	"unicode"

	"github.com/frontdesk/frontdesk/internal/names"
)

// Kind is the endpoint a file is imported into.
type Kind string

// Kinds of import.
const (
	Pipeline Kind = "pipeline" // POST /leadflow/ingest/{input_node_uuid}/batch
	Waitlist Kind = "waitlist" // POST /calendar/waitlist/entries/batch
)

// Fields a column can feed. They are the API's row field names, except
// FieldPhone (phone_number in ingest, phone in the waiting list) and
// FieldService (service_ids or service_names, decided per value).
const (
	FieldExternalID     = "external_id"
	FieldClientID       = "client_id"
	FieldFirstName      = "first_name"
	FieldLastName       = "last_name"
	FieldFullName       = "full_name" // read as first_name when no first-name column exists
	FieldPhone          = "phone"
	FieldAreaCode       = "area_code"
	FieldEmail          = "email"
	FieldCompany        = "company"
	FieldTimezone       = "timezone"
	FieldTags           = "tags"
	FieldService        = "service"
	FieldPriority       = "priority"
	FieldNotes          = "notes"
	FieldEarliestDate   = "earliest_date"
	FieldLatestDate     = "latest_date"
	FieldTimePreference = "time_preference"
	FieldProfessional   = "preferred_professional_id"
)

// fieldsOf lists, in display order, the fields each kind sends.
var fieldsOf = map[Kind][]string{
	Pipeline: {FieldExternalID, FieldClientID, FieldFirstName, FieldLastName, FieldFullName, FieldPhone, FieldAreaCode,
		FieldEmail, FieldCompany, FieldTimezone, FieldTags},
	// external_id is not sent to the waiting list: it only labels the
	// result rows. area_code turns national numbers into international ones.
	Waitlist: {FieldExternalID, FieldFirstName, FieldLastName, FieldFullName, FieldPhone, FieldAreaCode, FieldEmail,
		FieldService, FieldPriority, FieldNotes, FieldEarliestDate, FieldLatestDate, FieldTimePreference, FieldProfessional},
}

// aliases maps folded header names (see foldHeader) to fields: English and
// Spanish, singular and plural, with and without separators.
var aliases = buildAliases()

func buildAliases() map[string]string {
	aliases := map[string]string{}
	for field, list := range map[string][]string{
		FieldExternalID: {"external_id", "externalid", "external_ref", "id", "ext_id", "ref", "reference", "referencia",
			"record_id", "crm_id", "codigo", "id_externo"},
		FieldClientID: {"client_id", "clientid", "contact_id", "id_cliente", "cliente_id", "frontdesk_id"},
		FieldFirstName: {"first_name", "firstname", "first", "given_name", "forename", "nombre", "nombre_de_pila",
			"primer_nombre"},
		FieldLastName: {"last_name", "lastname", "last", "surname", "surnames", "family_name", "apellido", "apellidos",
			"primer_apellido"},
		FieldFullName: {"name", "full_name", "fullname", "contact_name", "nombre_completo", "nombre_y_apellidos",
			"nombre_apellidos", "contacto", "cliente", "paciente", "patient", "patient_name", "client_name"},
		FieldPhone: {"phone", "phone_number", "phonenumber", "telephone", "tel", "telefono", "numero_de_telefono",
			"numero_telefono", "n_telefono", "movil", "telefono_movil", "numero_movil", "mobile", "mobile_phone",
			"mobile_number", "cell", "cell_phone", "cellphone", "celular", "whatsapp", "phone_e164"},
		FieldAreaCode: {"area_code", "areacode", "country_code", "calling_code", "dial_code", "prefix", "prefijo",
			"prefijo_pais", "codigo_pais", "codigo_de_pais", "indicativo"},
		FieldEmail: {"email", "e_mail", "mail", "email_address", "correo", "correo_electronico", "e_mail_address",
			"direccion_de_correo", "emails"},
		FieldCompany:  {"company", "company_name", "organization", "organisation", "business", "empresa", "compania", "negocio"},
		FieldTimezone: {"timezone", "time_zone", "tz", "zona_horaria", "huso_horario"},
		FieldTags:     {"tags", "tag", "labels", "label", "etiquetas", "etiqueta"},
		FieldService: {"service", "services", "service_name", "service_names", "service_id", "service_ids", "servicio",
			"servicios", "tratamiento", "tratamientos"},
		FieldPriority:       {"priority", "prioridad"},
		FieldNotes:          {"notes", "note", "notas", "nota", "comments", "comment", "comentarios", "comentario", "observaciones"},
		FieldEarliestDate:   {"earliest_date", "earliest", "from_date", "available_from", "desde", "fecha_desde"},
		FieldLatestDate:     {"latest_date", "latest", "to_date", "available_until", "hasta", "fecha_hasta"},
		FieldTimePreference: {"time_preference", "preferred_time", "preferencia_horaria", "franja", "horario", "turno"},
		FieldProfessional: {"preferred_professional_id", "professional_id", "calendar_profile_id", "profesional_id",
			"id_profesional"},
	} {
		for _, a := range list {
			aliases[a] = field
		}
	}
	return aliases
}

// keywords rescue headers no alias names exactly ("Teléfono de contacto",
// "Email principal"): a header containing one of these words feeds the field
// when no column matched it by alias.
var keywords = map[string]string{
	"telefono": FieldPhone, "phone": FieldPhone, "movil": FieldPhone, "mobile": FieldPhone, "celular": FieldPhone,
	"email": FieldEmail, "correo": FieldEmail, "mail": FieldEmail,
}

// foldHeader folds a header for alias lookup: trim, strip accents, case-fold,
// and turn every run of other characters into one "_" ("Teléfono Móvil" and
// "telefono-movil" both give "telefono_movil").
func foldHeader(h string) string {
	f := names.Fold(h)
	var b strings.Builder
	sep := false
	for _, r := range f {
		if unicode.IsLetter(r) || unicode.IsDigit(r) {
			if sep && b.Len() > 0 {
				b.WriteByte('_')
			}
			sep = false
			b.WriteRune(r)
			continue
		}
		sep = true
	}
	return b.String()
}

// Column says what one CSV column feeds: a field, a custom data key
// (pipelines), or nothing.
type Column struct {
	Index   int
	Header  string
	Field   string // "" when the column is not a field
	DataKey string // pipelines: the data key an unmapped column fills
	// Reason tells why a column is ignored (shown to the user).
	Reason string
}

// Mapping is every column's role for one kind of import.
type Mapping struct {
	Kind    Kind
	Columns []Column
	byField map[string]int // field -> column index
}

// Override is one --map FIELD=COLUMN.
type Override struct {
	Field  string // a field, an alias of one, "data.KEY", or "-" to ignore the column
	Column string
}

// ParseOverride reads "FIELD=COLUMN".
func ParseOverride(s string) (Override, error) {
	field, col, ok := strings.Cut(s, "=")
	field, col = strings.TrimSpace(field), strings.TrimSpace(col)
	if !ok || field == "" || col == "" {
		return Override{}, fmt.Errorf("--map %q: want FIELD=COLUMN, e.g. phone_number=Teléfono", s)
	}
	return Override{Field: field, Column: col}, nil
}

// MaxDataKeyLen is the contract's limit on custom field keys.
const MaxDataKeyLen = 100

// Detect maps a header. Overrides come first; then each remaining column is
// matched by alias, then by keyword; the first column wins a field and a
// later one that looks the same is reported in notices. In a pipeline
// import every column that feeds no field becomes a custom data key named
// after its header; in a waiting-list import it is ignored.
func Detect(kind Kind, header []string, overrides []Override) (*Mapping, []string, error) {
	allowed := map[string]bool{}
	for _, f := range fieldsOf[kind] {
		allowed[f] = true
	}
	m := &Mapping{Kind: kind, byField: map[string]int{}}
	m.Columns = make([]Column, len(header))
	for i, h := range header {
		m.Columns[i] = Column{Index: i, Header: h}
	}
	var notices []string
	fixed := make([]bool, len(header)) // decided by an override

	for _, o := range overrides {
		i, err := findColumn(header, o.Column)
		if err != nil {
			return nil, nil, err
		}
		if fixed[i] {
			return nil, nil, fmt.Errorf("--map: column %q is mapped twice", header[i])
		}
		c := &m.Columns[i]
		switch {
		case o.Field == "-":
			c.Reason = "ignored by --map"
		case strings.HasPrefix(o.Field, "data."):
			if kind != Pipeline {
				return nil, nil, fmt.Errorf("--map %s=%s: custom data fields exist only in pipeline imports", o.Field, o.Column)
			}
			key := strings.TrimPrefix(o.Field, "data.")
			if key == "" || len([]rune(key)) > MaxDataKeyLen {
				return nil, nil, fmt.Errorf("--map %s=%s: a data key has 1 to %d characters", o.Field, o.Column, MaxDataKeyLen)
			}
			c.DataKey = key
		default:
			field, ok := resolveField(o.Field)
			if !ok || !allowed[field] {
				return nil, nil, fmt.Errorf("--map %s=%s: unknown field %q for a %s import; fields: %s", o.Field, o.Column, o.Field, kind, strings.Join(fieldNames(kind), ", "))
			}
			if _, taken := m.byField[field]; taken {
				return nil, nil, fmt.Errorf("--map: field %s is mapped to two columns", field)
			}
			c.Field = field
			m.byField[field] = i
		}
		fixed[i] = true
	}

	// Aliases first, over every column, then keywords: an exact "Email"
	// column must win over an earlier "Email secundario".
	noticed := map[int]bool{}
	for pass := 0; pass < 2; pass++ {
		for i, h := range header {
			c := &m.Columns[i]
			if fixed[i] || c.Field != "" {
				continue
			}
			key := foldHeader(h)
			field, ok := aliases[key]
			if pass == 1 {
				field, ok = keywordField(key)
			}
			if !ok || !allowed[field] {
				continue
			}
			if j, taken := m.byField[field]; taken {
				if !fixed[j] && !noticed[i] { // an explicit --map needs no second opinion
					noticed[i] = true
					notices = append(notices, fmt.Sprintf("columns %q and %q both look like %s; using %q (choose with --map %s=COLUMN)",
						header[j], h, displayField(kind, field), header[j], displayField(kind, field)))
				}
				continue
			}
			c.Field = field
			m.byField[field] = i
		}
	}

	// A full-name column stands in for the first name when there is none;
	// otherwise it is just another column.
	if i, ok := m.byField[FieldFullName]; ok {
		delete(m.byField, FieldFullName)
		m.Columns[i].Field = ""
		if _, has := m.byField[FieldFirstName]; !has {
			m.Columns[i].Field = FieldFirstName
			m.byField[FieldFirstName] = i
		}
	}

	seenKey := map[string]bool{}
	for i := range m.Columns {
		c := &m.Columns[i]
		if c.DataKey != "" {
			seenKey[c.DataKey] = true
		}
	}
	for i := range m.Columns {
		c := &m.Columns[i]
		if c.Field != "" || c.DataKey != "" || c.Reason != "" {
			continue
		}
		switch {
		case c.Header == "":
			c.Reason = "no header"
		case kind != Pipeline:
			c.Reason = "not a waiting-list field"
		case len([]rune(c.Header)) > MaxDataKeyLen:
			return nil, nil, fmt.Errorf("column %q: a custom data key has at most %d characters; rename the column or skip it with --map -=COLUMN", c.Header, MaxDataKeyLen)
		case seenKey[c.Header]:
			c.Reason = "repeats the header of an earlier column"
		default:
			c.DataKey = c.Header
			seenKey[c.Header] = true
		}
	}
	return m, notices, nil
}

// findColumn finds a header by its exact text, else by its folded form.
func findColumn(header []string, name string) (int, error) {
	for i, h := range header {
		if h == name {
			return i, nil
		}
	}
	want := foldHeader(name)
	for i, h := range header {
		if foldHeader(h) == want {
			return i, nil
		}
	}
	quoted := make([]string, len(header))
	for i, h := range header {
		quoted[i] = fmt.Sprintf("%q", h)
	}
	return 0, fmt.Errorf("--map: no column named %q; the header has %s", name, strings.Join(quoted, ", "))
}

// resolveField accepts a field name, the API's own names (phone_number,
// service_ids, service_names) or any header alias.
func resolveField(name string) (string, bool) {
	f, ok := aliases[foldHeader(name)]
	return f, ok
}

func keywordField(folded string) (string, bool) {
	for _, word := range strings.Split(folded, "_") {
		if f, ok := keywords[word]; ok {
			return f, true
		}
	}
	return "", false
}

// fieldNames lists the names --map accepts for a kind, as the API spells them.
func fieldNames(kind Kind) []string {
	var out []string
	for _, f := range fieldsOf[kind] {
		out = append(out, displayField(kind, f))
	}
	if kind == Pipeline {
		out = append(out, "data.KEY")
	}
	return append(out, "- (ignore the column)")
}

// displayField names a field the way the endpoint spells it.
func displayField(kind Kind, field string) string {
	switch {
	case field == FieldPhone && kind == Pipeline:
		return "phone_number"
	case field == FieldService:
		return "service"
	}
	return field
}

// Has reports whether some column feeds field.
func (m *Mapping) Has(field string) bool {
	_, ok := m.byField[field]
	return ok
}

// Describe lists every column's role, one per line, for the user to check.
func (m *Mapping) Describe() []string {
	out := make([]string, 0, len(m.Columns))
	for _, c := range m.Columns {
		var role string
		switch {
		case c.Field != "":
			role = displayField(m.Kind, c.Field)
			if c.Field == FieldService {
				role = "service_ids / service_names"
			}
			if c.Field == FieldExternalID && m.Kind == Waitlist {
				role = "external id (result file only)"
			}
		case c.DataKey != "":
			role = fmt.Sprintf("data[%q]", c.DataKey)
		default:
			role = "ignored (" + c.Reason + ")"
		}
		out = append(out, fmt.Sprintf("%q → %s", c.Header, role))
	}
	return out
}

// Check reports a mapping that cannot work: no way to identify a contact,
// or (waiting list) no service when none is given on the command line.
func (m *Mapping) Check(defaultServices bool) error {
	var missing []string
	switch m.Kind {
	case Pipeline:
		if !m.Has(FieldPhone) && !m.Has(FieldEmail) && !m.Has(FieldClientID) {
			missing = append(missing, "no column looks like a phone number, an e-mail or a client id (map one with --map phone_number=COLUMN)")
		}
	case Waitlist:
		if !m.Has(FieldPhone) && !m.Has(FieldEmail) {
			missing = append(missing, "no column looks like a phone number or an e-mail (map one with --map phone=COLUMN)")
		}
		if !m.Has(FieldService) && !defaultServices {
			missing = append(missing, "no column names the service (map one with --map service=COLUMN, or give --service NAME)")
		}
	}
	if len(missing) == 0 {
		return nil
	}
	headers := make([]string, len(m.Columns))
	for i, c := range m.Columns {
		headers[i] = fmt.Sprintf("%q", c.Header)
	}
	sort.Strings(missing)
	return fmt.Errorf("%s; the header has %s", strings.Join(missing, "; "), strings.Join(headers, ", "))
}
