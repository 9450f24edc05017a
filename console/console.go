package console

import (
	"crypto/sha256"
	"embed"
	"encoding/hex"
	"io/fs"
	"net/http"
	"path"
	"strings"
)

//go:embed assets
var assets embed.FS

// Path is where Handler expects to be mounted, with its trailing slash.
const Path = "/console/"

// securityHeaders are sent with every answer. The page loads only its own
// files and talks only to its own origin, and no other site may frame it.
var securityHeaders = map[string]string{
	"Content-Security-Policy": "default-src 'none'; script-src 'self'; style-src 'self'; img-src 'self' data:; " +
		"connect-src 'self'; form-action 'none'; base-uri 'none'; frame-ancestors 'none'",
	"X-Content-Type-Options": "nosniff",
	"Referrer-Policy":        "no-referrer",
	"X-Frame-Options":        "DENY",
}

// Handler serves the console's files under Path: the page at Path itself,
// its scripts and styles beside it. Mount it at Path, as
//
//	mux.Handle(console.Path, console.Handler())
//
// Browsers revalidate every file on each load (Cache-Control: no-cache)
// by an ETag made from its content, so a new binary's page is never mixed
// with an old script, and an unchanged file costs a 304. Anything but GET
// and HEAD is refused with 405; a missing file is 404.
func Handler() http.Handler {
	root, err := fs.Sub(assets, "assets")
	if err != nil {
		panic("console: " + err.Error()) // the embed pattern guarantees the directory
	}
	etags := contentTags(root)
	files := http.FileServerFS(root)
	return http.StripPrefix(strings.TrimSuffix(Path, "/"), http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		h := w.Header()
		for k, v := range securityHeaders {
			h.Set(k, v)
		}
		if r.Method != http.MethodGet && r.Method != http.MethodHead {
			h.Set("Allow", "GET, HEAD")
			http.Error(w, "method not allowed", http.StatusMethodNotAllowed)
			return
		}
		name := strings.TrimPrefix(path.Clean(r.URL.Path), "/")
		if name == "" {
			name = "index.html"
		}
		if tag, ok := etags[name]; ok {
			h.Set("ETag", tag)
		}
		h.Set("Cache-Control", "no-cache")
		files.ServeHTTP(w, r)
	}))
}

// contentTags returns an ETag for each file of root, by path, made from
// its content.
func contentTags(root fs.FS) map[string]string {
	tags := map[string]string{}
	err := fs.WalkDir(root, ".", func(name string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		b, err := fs.ReadFile(root, name)
		if err != nil {
			return err
		}
		sum := sha256.Sum256(b)
		tags[name] = `"` + hex.EncodeToString(sum[:12]) + `"`
		return nil
	})
	if err != nil {
		panic("console: " + err.Error()) // embedded files always read
	}
	return tags
}
