package apidocs

import (
	"html/template"
	"regexp"
	"strings"
)

// markdown renders the small Markdown subset the document's descriptions
// use: paragraphs, "- " and "1. " lists, `code`, **bold** and *italics*.
// Text is escaped first, so a description cannot inject markup.
func markdown(src string) template.HTML {
	if strings.TrimSpace(src) == "" {
		return ""
	}
	var b strings.Builder
	for _, block := range strings.Split(strings.TrimSpace(src), "\n\n") {
		lines := strings.Split(strings.TrimSpace(block), "\n")
		if !listItem.MatchString(lines[0]) {
			b.WriteString("<p>" + inline(strings.Join(lines, " ")) + "</p>")
			continue
		}
		tag := "ul"
		if ordered.MatchString(lines[0]) {
			tag = "ol"
		}
		b.WriteString("<" + tag + ">")
		for _, l := range lines {
			b.WriteString("<li>" + inline(listItem.ReplaceAllString(l, "")) + "</li>")
		}
		b.WriteString("</" + tag + ">")
	}
	return template.HTML(b.String())
}

var (
	listItem = regexp.MustCompile(`^\s*(?:-|[0-9]+\.)\s+`)
	ordered  = regexp.MustCompile(`^\s*[0-9]+\.\s+`)
	bold     = regexp.MustCompile(`\*\*([^*]+)\*\*`)
	italic   = regexp.MustCompile(`\*([^*\s][^*]*)\*`)
)

// inline renders code spans, and bold and italics outside them.
func inline(s string) string {
	var b strings.Builder
	for i, part := range strings.Split(s, "`") {
		part = template.HTMLEscapeString(part)
		if i%2 == 1 {
			b.WriteString("<code>" + part + "</code>")
			continue
		}
		part = bold.ReplaceAllString(part, "<strong>$1</strong>")
		b.WriteString(italic.ReplaceAllString(part, "<em>$1</em>"))
	}
	return b.String()
}

func slug(s string) string {
	return strings.Trim(nonWord.ReplaceAllString(strings.ToLower(s), "-"), "-")
}

var nonWord = regexp.MustCompile(`[^a-z0-9]+`)
