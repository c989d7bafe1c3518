// Package locale holds every text Frontdesk shows or sends a person, one
// catalogue file per language (locales/<lang>.toml), read with go-i18n: the
// dashboard's pages and refusals, the areas' refusals (errs keys) and the
// messages patients receive. A key is the English text ("context|text" for
// a word whose translation depends on what it describes); English files
// hold only what reads differently from its key. A third language is one
// more file. It is a leaf: the areas' texts and the doors read it.
package locale

import (
	"embed"
	"fmt"
	"io/fs"
	"path"
	"slices"
	"sync"

	"github.com/BurntSushi/toml"
	"github.com/nicksnyder/go-i18n/v2/i18n"
	xlanguage "golang.org/x/text/language"
)

//go:embed locales/*.toml
var files embed.FS

// catalogue is read at its first use, not at start-up: a CLI command that
// shows no text does not parse the files (about 6 ms).
var catalogue = sync.OnceValue(func() map[string]map[string]string { return mustLoad(files) })

// Catalogue is every language's texts by key. Callers read it, never
// change it.
func Catalogue() map[string]map[string]string { return catalogue() }

// Text is key's text in lang, and whether the catalogue has one.
func Text(lang, key string) (string, bool) {
	t, ok := catalogue()[lang][key]
	return t, ok
}

// Languages are the catalogue's languages, sorted.
func Languages() []string {
	var out []string
	for l := range catalogue() {
		out = append(out, l)
	}
	slices.Sort(out)
	return out
}

// Load parses every locales/<lang>.toml of files with go-i18n (TOML refuses
// a key written twice; go-i18n reads the language from the file name and
// the message forms, plural ones included) into plain maps: a page makes
// hundreds of lookups, and a map read is all a text without a plural needs.
func Load(files fs.FS) (map[string]map[string]string, error) {
	bundle := i18n.NewBundle(xlanguage.English)
	bundle.RegisterUnmarshalFunc("toml", toml.Unmarshal)
	names, err := fs.Glob(files, "locales/*.toml")
	if err != nil {
		return nil, err
	}
	out := map[string]map[string]string{}
	for _, name := range names {
		data, err := fs.ReadFile(files, name)
		if err != nil {
			return nil, err
		}
		mf, err := bundle.ParseMessageFileBytes(data, path.Base(name))
		if err != nil {
			return nil, fmt.Errorf("%s: %w", name, err)
		}
		base, _ := mf.Tag.Base()
		texts := map[string]string{}
		for _, m := range mf.Messages {
			texts[m.ID] = m.Other
		}
		out[base.String()] = texts
	}
	return out, nil
}

func mustLoad(files fs.FS) map[string]map[string]string {
	c, err := Load(files)
	if err != nil {
		panic("locale: the language catalogue does not load: " + err.Error())
	}
	return c
}
