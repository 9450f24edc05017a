// Command testreport reads the events of a test run (go test -json, as
// gotestsum --jsonfile writes them) and prints how long each module and
// each package took, so that growth shows when it happens:
//
//	go run ./internal/testkit/cmd/testreport -modules "$(go list -m)" tests.json
//
// A module's wall time runs from the start of its first package's tests to
// the end of its last one's; when modules run at once, their wall times
// overlap. A package's time is its test binary's, as go test reports it.
// Packages without tests are left out.
package main

import (
	"bufio"
	"cmp"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"maps"
	"os"
	"slices"
	"strings"
	"text/tabwriter"
	"time"
)

func main() {
	if err := run(os.Args[1:], os.Stdout); err != nil {
		fmt.Fprintln(os.Stderr, "testreport:", err)
		os.Exit(1)
	}
}

func run(args []string, stdout io.Writer) error {
	fs := flag.NewFlagSet("testreport", flag.ContinueOnError)
	fs.SetOutput(io.Discard) // the error says what is wrong
	modules := fs.String("modules", "", "module paths, separated by white space; a package belongs to the longest that prefixes it")
	if err := fs.Parse(args); err != nil {
		return err
	}
	if fs.NArg() != 1 {
		return errors.New("usage: testreport -modules 'mod1 mod2…' events.json")
	}
	f, err := os.Open(fs.Arg(0))
	if err != nil {
		return err
	}
	defer f.Close()
	pkgs, err := readPackages(f)
	if err != nil {
		return fmt.Errorf("%s: %w", fs.Arg(0), err)
	}
	report(stdout, pkgs, strings.Fields(*modules))
	return nil
}

// event is the part of a go test -json event that the report reads.
type event struct {
	Time    time.Time
	Action  string
	Package string
	Test    string
	Elapsed float64 // seconds
}

// pkg is one package's run.
type pkg struct {
	path       string
	start, end time.Time
	elapsed    time.Duration
	result     string // pass, fail or skip
}

// readPackages returns the packages whose tests ran, from their start and
// end events. Lines that are not JSON (a build's output) are skipped.
func readPackages(r io.Reader) ([]*pkg, error) {
	byPath := map[string]*pkg{}
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 0, 64*1024), 16*1024*1024)
	for sc.Scan() {
		var ev event
		if json.Unmarshal(sc.Bytes(), &ev) != nil || ev.Package == "" || ev.Test != "" {
			continue
		}
		p := byPath[ev.Package]
		if p == nil {
			p = &pkg{path: ev.Package}
			byPath[ev.Package] = p
		}
		switch ev.Action {
		case "start":
			p.start = ev.Time
		case "pass", "fail", "skip":
			p.end = ev.Time
			p.elapsed = time.Duration(ev.Elapsed * float64(time.Second))
			p.result = ev.Action
		}
	}
	if err := sc.Err(); err != nil {
		return nil, err
	}
	var pkgs []*pkg
	for _, p := range byPath {
		if p.result == "" || p.result == "skip" && p.elapsed == 0 {
			continue // no test files, or did not finish
		}
		if p.start.IsZero() {
			p.start = p.end.Add(-p.elapsed)
		}
		pkgs = append(pkgs, p)
	}
	return pkgs, nil
}

// moduleOf returns the longest of modules that is path or a prefix of it
// at a slash, or path itself if none is.
func moduleOf(path string, modules []string) string {
	best := ""
	for _, m := range modules {
		if (path == m || strings.HasPrefix(path, m+"/")) && len(m) > len(best) {
			best = m
		}
	}
	if best == "" {
		return path
	}
	return best
}

func report(w io.Writer, pkgs []*pkg, modules []string) {
	type module struct {
		path       string
		start, end time.Time
		packages   int
		sum        time.Duration
	}
	byPath := map[string]*module{}
	for _, p := range pkgs {
		path := moduleOf(p.path, modules)
		m := byPath[path]
		if m == nil {
			m = &module{path: path, start: p.start, end: p.end}
			byPath[path] = m
		}
		if p.start.Before(m.start) {
			m.start = p.start
		}
		if p.end.After(m.end) {
			m.end = p.end
		}
		m.packages++
		m.sum += p.elapsed
	}
	mods := slices.Collect(maps.Values(byPath))
	slices.SortFunc(mods, func(a, b *module) int { return cmp.Compare(b.end.Sub(b.start), a.end.Sub(a.start)) })
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	fmt.Fprintln(tw, "module\twall\tsum of packages\tpackages")
	for _, m := range mods {
		fmt.Fprintf(tw, "%s\t%s\t%s\t%d\n", m.path, seconds(m.end.Sub(m.start)), seconds(m.sum), m.packages)
	}
	tw.Flush()
	fmt.Fprintln(w)
	slices.SortFunc(pkgs, func(a, b *pkg) int { return cmp.Or(cmp.Compare(b.elapsed, a.elapsed), cmp.Compare(a.path, b.path)) })
	tw = tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	fmt.Fprintln(tw, "package\ttime\tresult")
	for _, p := range pkgs {
		fmt.Fprintf(tw, "%s\t%s\t%s\n", p.path, seconds(p.elapsed), p.result)
	}
	tw.Flush()
}

func seconds(d time.Duration) string { return fmt.Sprintf("%6.1f s", d.Seconds()) }
