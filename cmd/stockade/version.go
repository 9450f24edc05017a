package main

import (
	"flag"
	"fmt"
	"io"
	"runtime/debug"
	"strings"
)

func version(args []string, stdout, stderr io.Writer) error {
	fs := flag.NewFlagSet("version", flag.ContinueOnError)
	fs.SetOutput(stderr)
	fs.Usage = func() {
		fmt.Fprint(fs.Output(), `usage: stockade version

Prints the module version, the Go version it was built with and, when it
was built from a version control checkout, the revision, its time and
"(modified)" if the checkout had uncommitted changes.
`)
	}
	if err := parseFlags(fs, args, stdout); err != nil {
		return fmt.Errorf("version: %w", err)
	}
	if fs.NArg() > 0 {
		return fmt.Errorf("version: unexpected arguments %q", fs.Args())
	}
	info, ok := debug.ReadBuildInfo()
	if !ok {
		return fmt.Errorf("version: the binary holds no build information")
	}
	fmt.Fprintln(stdout, versionLine(info))
	return nil
}

// versionLine describes the build: "stockade VERSION GOVERSION", then
// "rev REVISION TIME (modified)" for as much as the build recorded of its
// version control checkout. REVISION is cut to 12 characters, as in Go's
// pseudo-versions.
func versionLine(info *debug.BuildInfo) string {
	v := info.Main.Version
	if v == "" {
		v = "(devel)"
	}
	parts := []string{"stockade", v, info.GoVersion}
	settings := make(map[string]string)
	for _, s := range info.Settings {
		settings[s.Key] = s.Value
	}
	if rev := settings["vcs.revision"]; rev != "" {
		parts = append(parts, "rev", rev[:min(len(rev), 12)])
		if t := settings["vcs.time"]; t != "" {
			parts = append(parts, t)
		}
		if settings["vcs.modified"] == "true" {
			parts = append(parts, "(modified)")
		}
	}
	return strings.Join(parts, " ")
}
