package bookingpage

import (
	"os"
	"path/filepath"
	"regexp"
	"sort"
	"strconv"
	"strings"
	"testing"

	"github.com/frontdesk/frontdesk/internal/locale"
)

// The texts the sources hand to the translator: {{t "…"}} in templates,
// .Translate("…") in handlers, page titles given to render, and the form
// decoders' problems (msg… constants).
var (
	templateText = regexp.MustCompile(`\{\{-?\s*t\s+("(?:[^"\\]|\\.)*")`)
	handlerText  = regexp.MustCompile(`\.Translate\(("(?:[^"\\]|\\.)*")`)
	titleText    = regexp.MustCompile(`p\.render\(w, r, [^,]+, [^,]+, "[a-z_]+", ("(?:[^"\\]|\\.)*")`)
	problemText  = regexp.MustCompile(`(?m)^\s*msg[A-Za-z]+\s*=\s*("(?:[^"\\]|\\.)*")`)
	// anyTranslate finds every call of Translate, literal or not.
	anyTranslate = regexp.MustCompile(`\.Translate\(`)
)

// TestEveryPageTextHasSpanish reads the templates and handlers: every text
// they translate has a Spanish entry (a Spanish clinic's patient never
// meets an English word the page could have translated), and every
// handler's text is a literal the scan can read — except the decoders'
// problems, which are constants read above.
func TestEveryPageTextHasSpanish(t *testing.T) {
	files, _ := filepath.Glob("templates/*.html")
	gofiles, _ := filepath.Glob("*.go")
	spanish := locale.Catalogue()["es"]
	seen := 0
	var missing []string
	for _, f := range append(files, gofiles...) {
		if strings.HasSuffix(f, "_test.go") {
			continue
		}
		src, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		for _, re := range []*regexp.Regexp{templateText, handlerText, titleText, problemText} {
			for _, m := range re.FindAllSubmatch(src, -1) {
				text, err := strconv.Unquote(string(m[1]))
				if err != nil {
					t.Fatalf("%s: %s: %v", f, m[1], err)
				}
				seen++
				if _, ok := spanish[text]; !ok {
					missing = append(missing, strconv.Quote(text)+" ("+f+")")
				}
			}
		}
		literal := len(handlerText.FindAll(src, -1))
		if all := len(anyTranslate.FindAll(src, -1)); all != literal {
			// the one exception: a decoder's problem, translated where the form is shown
			if got := strings.Count(string(src), ".Translate(bad["); all-literal != got {
				t.Errorf("%s: %d Translate calls do not pass a literal", f, all-literal-got)
			}
		}
	}
	if seen < 50 {
		t.Fatalf("found only %d texts: the patterns no longer match the sources", seen)
	}
	sort.Strings(missing)
	for _, m := range slicesCompact(missing) {
		t.Errorf("no Spanish for %s", m)
	}
}

func slicesCompact(list []string) []string {
	var out []string
	for i, s := range list {
		if i == 0 || s != list[i-1] {
			out = append(out, s)
		}
	}
	return out
}
