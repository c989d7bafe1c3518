package channels

import (
	"encoding/json"
	"fmt"
	"strings"
)

// MetaDelivery is what one POST of the WhatsApp Cloud API carries.
type MetaDelivery struct {
	Inbound  []Inbound
	Statuses []StatusUpdate
	// Skipped says where each message or status that cannot be used was
	// and why ("entry[0].changes[0].value.messages[1]: no id"), never its
	// text: the caller logs it and stores the rest.
	Skipped []string
}

// metaDoc is the frame of a delivery. Its items (contacts, messages,
// statuses) stay raw so that one of an unknown shape is skipped alone
// instead of failing the whole delivery.
type metaDoc struct {
	Object string `json:"object"`
	Entry  []struct {
		Changes []struct {
			Field string `json:"field"`
			Value struct {
				Metadata struct {
					DisplayPhoneNumber string `json:"display_phone_number"`
					PhoneNumberID      string `json:"phone_number_id"`
				} `json:"metadata"`
				Contacts []json.RawMessage `json:"contacts"`
				Messages []json.RawMessage `json:"messages"`
				Statuses []json.RawMessage `json:"statuses"`
			} `json:"value"`
		} `json:"changes"`
	} `json:"entry"`
}

type metaContact struct {
	Profile struct {
		Name string `json:"name"`
	} `json:"profile"`
	WaID string `json:"wa_id"`
}

type metaMessage struct {
	From string `json:"from"`
	ID   string `json:"id"`
	Type string `json:"type"`
	Text struct {
		Body string `json:"body"`
	} `json:"text"`
	Button struct {
		Text string `json:"text"`
	} `json:"button"`
	Interactive struct {
		ButtonReply struct {
			Title string `json:"title"`
		} `json:"button_reply"`
	} `json:"interactive"`
	Image    *metaMedia `json:"image"`
	Audio    *metaMedia `json:"audio"`
	Video    *metaMedia `json:"video"`
	Document *metaMedia `json:"document"`
	Sticker  *metaMedia `json:"sticker"`
}

type metaMedia struct {
	ID       string `json:"id"`
	MIME     string `json:"mime_type"`
	Caption  string `json:"caption"`
	Filename string `json:"filename"`
}

type metaStatusItem struct {
	ID     string `json:"id"`
	Status string `json:"status"`
	Errors []struct {
		Code  json.Number `json:"code"`
		Title string      `json:"title"`
	} `json:"errors"`
}

// ParseMetaWebhook reads a POST of the WhatsApp Cloud API: every
// entry[].changes[].value's messages[] and statuses[]. A body that is not
// JSON, or whose frame (entry, changes, value, metadata) is not a
// webhook's, is an error; a message or status that cannot be used (no id,
// no sender, an unknown shape) is left out and named in Skipped, so that
// the good ones of the same delivery are kept (docs/api-notes.md,
// "Channels"). Every text goes through CleanText.
func ParseMetaWebhook(body []byte) (MetaDelivery, error) {
	var doc metaDoc
	if err := json.Unmarshal(body, &doc); err != nil {
		return MetaDelivery{}, fmt.Errorf("body is not a WhatsApp webhook: %w", err)
	}
	var d MetaDelivery
	for i, e := range doc.Entry {
		for j, c := range e.Changes {
			at := fmt.Sprintf("entry[%d].changes[%d].value", i, j)
			v := c.Value
			phoneID, to := CleanText(v.Metadata.PhoneNumberID), CleanText(v.Metadata.DisplayPhoneNumber)
			names := map[string]string{}
			for k, raw := range v.Contacts {
				var ct metaContact
				if err := json.Unmarshal(raw, &ct); err != nil {
					d.Skipped = append(d.Skipped, fmt.Sprintf("%s.contacts[%d]: not a contact object", at, k))
					continue
				}
				names[strings.TrimPrefix(CleanText(ct.WaID), "+")] = CleanText(ct.Profile.Name)
			}
			for k, raw := range v.Messages {
				in, why := metaInbound(raw, names)
				if why != "" {
					d.Skipped = append(d.Skipped, fmt.Sprintf("%s.messages[%d]: %s", at, k, why))
					continue
				}
				in.PhoneNumberID, in.To = phoneID, to
				d.Inbound = append(d.Inbound, in)
			}
			for k, raw := range v.Statuses {
				u, why := metaStatusUpdate(raw)
				if why != "" {
					d.Skipped = append(d.Skipped, fmt.Sprintf("%s.statuses[%d]: %s", at, k, why))
					continue
				}
				u.PhoneNumberID = phoneID
				d.Statuses = append(d.Statuses, u)
			}
		}
	}
	return d, nil
}

// metaInbound reads one message, or says why it cannot be used.
func metaInbound(raw json.RawMessage, names map[string]string) (Inbound, string) {
	var m metaMessage
	if err := json.Unmarshal(raw, &m); err != nil {
		return Inbound{}, "not a message object"
	}
	id, from := CleanText(m.ID), strings.TrimPrefix(CleanText(m.From), "+")
	switch {
	case id == "":
		return Inbound{}, "no id"
	case from == "":
		return Inbound{}, "no from"
	}
	in := Inbound{ProviderID: id, From: "+" + from, Name: names[from]}
	switch m.Type {
	case "text":
		in.Body = m.Text.Body
	case "button":
		in.Body = m.Button.Text
	case "interactive":
		in.Body = m.Interactive.ButtonReply.Title
	}
	in.Body = CleanText(in.Body)
	for _, md := range []struct {
		kind string
		m    *metaMedia
	}{{"image", m.Image}, {"audio", m.Audio}, {"video", m.Video}, {"document", m.Document}, {"sticker", m.Sticker}} {
		if md.m == nil {
			continue
		}
		caption := CleanText(md.m.Caption)
		in.Media = append(in.Media, Media{Kind: md.kind, MIME: CleanText(md.m.MIME), Filename: CleanText(md.m.Filename), Caption: caption})
		if in.Body == "" {
			in.Body = caption
		}
	}
	return in, ""
}

// metaStatusUpdate reads one status report, or says why it cannot be used.
func metaStatusUpdate(raw json.RawMessage) (StatusUpdate, string) {
	var s metaStatusItem
	if err := json.Unmarshal(raw, &s); err != nil {
		return StatusUpdate{}, "not a status object"
	}
	u := StatusUpdate{ProviderID: CleanText(s.ID), Status: metaStatus(s.Status)}
	if u.ProviderID == "" {
		return StatusUpdate{}, "no id"
	}
	if len(s.Errors) > 0 {
		u.ErrorCode, u.Error = CleanText(s.Errors[0].Code.String()), CleanText(s.Errors[0].Title)
	}
	return u, ""
}
