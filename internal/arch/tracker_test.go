package arch_test

import (
	"bufio"
	"bytes"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

// The repository stands alone: its code and docs cite the project's own
// documents (docs/contract.md, docs/api-notes.md, the README), never the
// work tracker or the files that lived beside the repository. A tracker
// reference names something a reader of the repository cannot open.
var trackerRefs = []*regexp.Regexp{
	regexp.MustCompile(`decisions\.md`),
	regexp.MustCompile(`public-api-v\d`),
	regexp.MustCompile(`\b[Ii]ssues? #?\d+`),
	regexp.MustCompile(`\b[Ww]aves? ?\d+`),
	regexp.MustCompile(`\b[Pp]arts? \d+`),
	regexp.MustCompile(`§ ?\d+`),
}

// rfcSection is a section of a standard ("RFC 8259 §8.1"): a citation a
// reader can follow, not a tracker reference.
var rfcSection = regexp.MustCompile(`RFC ?\d+,? ?$`)

// wrappedRef is a tracker word at the end of a line whose number starts the
// next one ("issue" / "20 asked…"), as text wrapped by an editor leaves it.
var (
	wrappedWord = regexp.MustCompile(`(?:\b[Ii]ssues?|\b[Ww]aves?|\b[Pp]arts?|§)\s*$`)
	wrappedNum  = regexp.MustCompile(`^\s*(?://|--|#+|\*|/\*)?\s*#?\d`)
)

// trackedExts are the kinds of file the rule covers: sources, SQL,
// templates, styles, scripts, configuration and docs.
var trackedExts = map[string]bool{".go": true, ".sql": true, ".html": true, ".toml": true, ".yaml": true,
	".yml": true, ".md": true, ".js": true, ".css": true, ".json": true}

// thisFile holds the patterns themselves.
const thisFile = "internal/arch/tracker_test.go"

// TestNoTrackerReferences reads every source and document of the
// repository and fails, naming file:line, on a reference to the work
// tracker: "decisions.md" and its section signs, the shared API document's
// name, "issue N", "wave N", "part N". Fuzz corpora (testdata/fuzz, files
// without an extension) hold generated inputs and are not read.
func TestNoTrackerReferences(t *testing.T) {
	root := filepath.Join("..", "..")
	files := repositoryFiles(t, root)
	if len(files) < 100 {
		t.Fatalf("found only %d files under %s: is this the repository?", len(files), root)
	}
	for _, name := range files {
		if name == thisFile || !trackedExts[filepath.Ext(name)] || strings.Contains(name, "testdata/fuzz/") {
			continue
		}
		src, err := os.ReadFile(filepath.Join(root, filepath.FromSlash(name)))
		if err != nil {
			if os.IsNotExist(err) {
				continue // deleted in the work tree, not yet in the index
			}
			t.Fatal(err)
		}
		for _, hit := range trackerHits(src) {
			t.Errorf("%s:%d: tracker reference %q: cite docs/contract.md, docs/api-notes.md or the README instead", name, hit.line, hit.text)
		}
	}
}

type trackerHit struct {
	line int
	text string
}

// trackerHits finds the tracker references in one file's text.
func trackerHits(src []byte) []trackerHit {
	var out []trackerHit
	var prev string
	sc := bufio.NewScanner(bytes.NewReader(src))
	sc.Buffer(make([]byte, 0, 64<<10), 16<<20)
	for n := 1; sc.Scan(); n++ {
		line := sc.Text()
		for _, re := range trackerRefs {
			for _, loc := range re.FindAllStringIndex(line, -1) {
				if strings.HasPrefix(line[loc[0]:], "§") && rfcSection.MatchString(line[:loc[0]]) {
					continue
				}
				out = append(out, trackerHit{n, line[loc[0]:loc[1]]})
			}
		}
		if m := wrappedWord.FindString(prev); m != "" && wrappedNum.MatchString(line) {
			out = append(out, trackerHit{n - 1, strings.TrimSpace(m) + " / " + strings.TrimSpace(line)})
		}
		prev = line
	}
	return out
}

// repositoryFiles lists the repository's files, slash-separated and
// relative to root: what git tracks plus new files it does not ignore, or,
// without git, every file outside .git.
func repositoryFiles(t *testing.T, root string) []string {
	cmd := exec.Command("git", "ls-files", "-z", "--cached", "--others", "--exclude-standard")
	cmd.Dir = root
	if out, err := cmd.Output(); err == nil {
		var files []string
		for _, f := range strings.Split(string(out), "\x00") {
			if f != "" {
				files = append(files, f)
			}
		}
		return files
	}
	var files []string
	err := filepath.WalkDir(root, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() && d.Name() == ".git" {
			return filepath.SkipDir
		}
		if !d.IsDir() {
			rel, _ := filepath.Rel(root, path)
			files = append(files, filepath.ToSlash(rel))
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return files
}

// TestTrackerHits keeps the finder honest: it must see each kind of
// reference, wrapped ones included, and leave ordinary English and
// standards' sections alone.
func TestTrackerHits(t *testing.T) {
	for _, test := range []struct {
		name, src string
		want      int
	}{
		{"decisions file", "// see decisions" + ".md for this", 1},
		{"section sign", "// as " + "§" + "8 says", 1},
		{"issue", "// issue " + "21 asked", 1},
		{"issue with hash", "// fixes issue #" + "7", 1},
		{"issues", "// targets of issues " + "10 and 20", 1},
		{"wave", "-- The dashboard, wave" + "2", 1},
		{"part", "/* Inbox (part " + "4) */", 1},
		{"shared document", "// public-api-v" + "2.md, Limits", 1},
		{"wrapped issue", "// before and after issue\n// " + "20 in one session", 1},
		{"wrapped section", "// (decisions" + ".md\n// " + "§" + "10)", 2},
		{"RFC section", "// JSON text is UTF-8 (RFC 8259 " + "§" + "8.1)", 0},
		{"ordinary English", "// part of the batch; in part; an issue with the phone; 3 parts", 0},
		{"the contract", "// docs/contract.md, Booking warnings", 0},
	} {
		t.Run(test.name, func(t *testing.T) {
			if got := trackerHits([]byte(test.src)); len(got) != test.want {
				t.Errorf("%q: %d hits %v, want %d", test.src, len(got), got, test.want)
			}
		})
	}
}
