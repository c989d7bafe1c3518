package dashboard

import (
	"strings"

	"github.com/frontdesk/frontdesk/internal/contact"
)

// Spanish of the clients pages (issue 22, part 3).
func init() {
	addSpanish(map[string]string{
		// The clients list and the new client form.
		"New client":                             "Nuevo cliente",
		"Search by name, phone or e-mail":        "Buscar por nombre, teléfono o correo electrónico",
		"Search":                                 "Buscar",
		"1 client":                               "1 cliente",
		"%d clients":                             "%d clientes",
		"; showing the %d most recently updated": "; se muestran los %d actualizados más recientemente",
		"Name":                                   "Nombre",
		"Phone":                                  "Teléfono",
		"E-mail":                                 "Correo electrónico",
		"Company":                                "Empresa",
		"Updated":                                "Actualizado",
		"Client %d":                              "Cliente %d",
		"No client matches “%s”.":                "Ningún cliente coincide con «%s».",
		"No clients yet. They arrive through bookings, waiting lists and pipeline ingest, or create one with “New client”.":                           "Aún no hay clientes. Llegan con las reservas, las listas de espera y la entrada de los embudos, o cree uno con «Nuevo cliente».",
		"A client needs a first or last name, and a phone or an e-mail. A phone without a country code is read as a number of the account's country.": "Un cliente necesita nombre o apellidos, y un teléfono o un correo electrónico. Un teléfono sin prefijo de país se lee como un número del país de la cuenta.",
		"First name":                                 "Nombre",
		"Last name":                                  "Apellidos",
		"Tags (optional, separated by commas)":       "Etiquetas (opcional, separadas por comas)",
		"Notes (optional)":                           "Notas (opcional)",
		"Create client":                              "Crear cliente",
		"Open %s":                                    "Abrir %s",
		"Client %s created.":                         "Cliente %s creado.",
		"The phone %s already belongs to %s.":        "El teléfono %s ya pertenece a %s.",
		"The e-mail %s already belongs to %s.":       "El correo electrónico %s ya pertenece a %s.",
		contact.MsgNameRequired:                      "Un cliente necesita nombre o apellidos.",
		contact.MsgContactRequired:                   "Un cliente necesita un teléfono o un correo electrónico.",
		contact.MsgInvalidPhone:                      "Este no es un número de teléfono al que podamos llegar: revise los dígitos y el prefijo de país.",
		contact.MsgInvalidEmail:                      "Esta no es una dirección de correo electrónico.",
		contact.MsgTooLong:                           "Nombre y apellidos admiten como máximo 100 caracteres; correo electrónico y empresa, 255; notas, 2000.",
		contact.MsgPhoneTaken:                        "Este teléfono ya pertenece a un cliente.",
		contact.MsgEmailTaken:                        "Este correo electrónico ya pertenece a un cliente.",
		"A tag needs a name of 1 to 100 characters.": "Una etiqueta necesita un nombre de 1 a 100 caracteres.",

		// The client's page: details and tags.
		"On this page":                        "En esta página",
		"Details":                             "Datos",
		"Empty a field and save to clear it.": "Vacíe un campo y guarde para borrarlo.",
		"phone|none":                          "ninguno",
		"(the phone identifies the client and is not edited here)": "(el teléfono identifica al cliente y no se edita aquí)",
		"Time zone":                   "Zona horaria",
		"e.g. Europe/Madrid":          "p. ej. Europe/Madrid",
		"Custom fields (JSON object)": "Campos personalizados (objeto JSON)",
		"Save client":                 "Guardar cliente",
		"Tags":                        "Etiquetas",
		"No tags.":                    "Sin etiquetas.",
		"Remove tag %s":               "Quitar la etiqueta %s",
		"Add a tag":                   "Añadir una etiqueta",
		"Add tag":                     "Añadir etiqueta",
		"Created %s · updated %s":     "Creado %s · actualizado %s",
		"Client saved.":               "Cliente guardado.",
		"Tag added.":                  "Etiqueta añadida.",
		"Tag removed.":                "Etiqueta quitada.",
		"Custom fields must be a JSON object, e.g. {\"plan\": \"gold\"}.": "Los campos personalizados deben ser un objeto JSON, p. ej. {\"plan\": \"gold\"}.",

		// Appointments.
		"Appointments": "Citas",
		"When":         "Cuándo",
		"Service":      "Servicio",
		"Professional": "Profesional",
		"Status":       "Estado",
		"Confirmation": "Confirmación",
		"Upcoming":     "Próximas",
		"Past":         "Pasadas",

		// Waiting lists.
		"List":                             "Lista",
		"Priority":                         "Prioridad",
		"Since":                            "Desde",
		"Notes":                            "Notas",
		"position %d":                      "puesto %d",
		"Not on any waiting list.":         "No está en ninguna lista de espera.",
		"Add to a waiting list":            "Añadir a una lista de espera",
		"Waiting list":                     "Lista de espera",
		"The list that holds each service": "La lista que incluye cada servicio",
		"Services":                         "Servicios",
		"Time of day":                      "Momento del día",
		"Add to waiting list":              "Añadir a la lista de espera",
		"No active waiting list holds a service: set one up before adding clients.":                                            "Ninguna lista de espera activa incluye un servicio: configure una antes de añadir clientes.",
		"Added to the waiting list for %s.":                                                                                    "Añadido a la lista de espera de %s.",
		"Already waiting for %s: the entry keeps its place and takes the preferences sent.":                                    "Ya espera por %s: la entrada conserva su puesto y toma las preferencias enviadas.",
		"Choose the services the client waits for.":                                                                            "Elija los servicios que espera el cliente.",
		"Choose a priority: urgent, high, normal or low.":                                                                      "Elija una prioridad: urgente, alta, normal o baja.",
		"Choose a time of day: any, morning, afternoon or evening.":                                                            "Elija un momento del día: cualquiera, mañana, tarde o noche.",
		"That waiting list is paused: entries cannot be added to it.":                                                          "Esa lista de espera está en pausa: no se le pueden añadir entradas.",
		"That waiting list does not hold this service: choose another list, or let each service go to the list that holds it.": "Esa lista de espera no incluye este servicio: elija otra lista, o deje que cada servicio vaya a la lista que lo incluye.",
		"No active waiting list holds this service.":                                                                           "Ninguna lista de espera activa incluye este servicio.",
		"That service does not exist or is no longer offered.":                                                                 "Ese servicio no existe o ya no se ofrece.",

		// Pipelines, conversations, consent.
		"Pipeline":             "Embudo",
		"Stage":                "Etapa",
		"In stage since":       "En la etapa desde",
		"Card":                 "Tarjeta",
		"Open card %d":         "Abrir la tarjeta %d",
		"Not on any pipeline.": "No está en ningún embudo.",
		"Conversation":         "Conversación",
		"Conversation %d":      "Conversación %d",
		"Last message":         "Último mensaje",
		"Messages":             "Mensajes",
		"No conversations.":    "Sin conversaciones.",
		"Channel":              "Canal",
		"Consent":              "Consentimiento",
		"Opted out":            "Baja",
		"Opted back in":        "Alta de nuevo",
		"inactive":             "inactivo",
		"opted out":            "dado de baja",
		"messages on this channel are suppressed":                             "los mensajes por este canal no se envían",
		"receives messages":                                                   "recibe mensajes",
		"No opt-out on any channel: the client receives messages everywhere.": "Sin bajas en ningún canal: el cliente recibe mensajes por todos.",
		"Type": "Tipo",
	})
}

// valueSpanish is the Spanish of the stored values the client's page shows
// (statuses, priorities, times of day). They are not registered with
// addSpanish: one English word ("booked", "new") reads differently in
// Spanish by what it describes, and other pages may describe other things.
var valueSpanish = map[string]string{
	"urgent": "urgente", "high": "alta", "normal": "normal", "low": "baja",
	"any": "cualquiera", "morning": "mañana", "afternoon": "tarde", "evening": "noche",
	// appointments
	"booked": "reservada", "cancelled": "cancelada", "completed": "completada", "no_show": "no se presentó",
	"pending": "pendiente", "confirmed": "confirmada", "declined": "rechazada",
	// waiting-list entries (statuses the appointments do not share)
	"waiting": "en espera", "queued": "en cola", "snoozed": "pospuesta", "removed": "retirada", "expired": "caducada",
	// cards and conversations
	"active": "activa", "new": "nueva", "ai_handling": "atendida por IA", "human_handling": "atendida por una persona", "resolved": "resuelta",
}

// valueLabel returns the function templates call to show a stored value in
// the session's language: its Spanish, or the value with spaces for
// underscores.
func valueLabel(s *session) func(string) string {
	return func(v string) string {
		if s.Lang == "es" {
			if es, ok := valueSpanish[v]; ok {
				return es
			}
		}
		return strings.ReplaceAll(v, "_", " ")
	}
}
