package main

import (
	"context"
	"errors"
	"go/parser"
	"go/token"
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"runtime"
	"runtime/debug"
	"slices"
	"strings"
	"testing"

	"github.com/jackc/pgx/v5"

	"github.com/stockade/stockade/httpapi"
)

// runCmd runs the command args (without the program name) with env and
// returns its stdout, its stderr and its error.
func runCmd(t *testing.T, env map[string]string, args ...string) (stdout, stderr string, err error) {
	t.Helper()
	var out, errOut strings.Builder
	err = run(t.Context(), append([]string{"stockade"}, args...), func(k string) string { return env[k] }, &out, &errOut)
	return out.String(), errOut.String(), err
}

// TestHelp: -h, -help and --help print the usage to stdout and succeed,
// for the program and for every command; an unknown flag fails and says
// so on stderr.
func TestHelp(t *testing.T) {
	t.Parallel()
	commands := []struct {
		args []string
		want string // the usage's first line
	}{
		{nil, "usage: stockade <command> [flags]"},
		{[]string{"serve"}, "usage: stockade serve [flags]"},
		{[]string{"migrate"}, "usage: stockade migrate [flags]"},
		{[]string{"reconcile"}, "usage: stockade reconcile [flags]"},
		{[]string{"bench"}, "usage: stockade bench [flags]"},
		{[]string{"locks"}, "usage: stockade locks <subcommand> [flags]"},
		{[]string{"locks", "bench"}, "usage: stockade locks bench [flags]"},
		{[]string{"locks", "ls"}, "usage: stockade locks ls [flags]"},
		{[]string{"locks", "show"}, "usage: stockade locks show [flags] KEY"},
		{[]string{"locks", "break"}, "usage: stockade locks break [flags] KEY"},
		{[]string{"payments", "stuck"}, "usage: stockade payments stuck [flags]"},
		{[]string{"version"}, "usage: stockade version"},
	}
	for _, c := range commands {
		name := strings.Join(append([]string{"stockade"}, c.args...), " ")
		for _, h := range []string{"-h", "-help", "--help"} {
			t.Run(name+" "+h, func(t *testing.T) {
				stdout, stderr, err := runCmd(t, nil, append(c.args, h)...)
				if err != nil {
					t.Fatalf("err = %v, want nil", err)
				}
				if !strings.HasPrefix(stdout, c.want+"\n") {
					t.Errorf("stdout does not start with %q:\n%s", c.want, stdout)
				}
				if stderr != "" {
					t.Errorf("stderr not empty:\n%s", stderr)
				}
			})
		}
		if len(c.args) == 0 {
			continue
		}
		t.Run(name+" -no-such-flag", func(t *testing.T) {
			stdout, stderr, err := runCmd(t, nil, append(c.args, "-no-such-flag")...)
			if err == nil || errors.Is(err, errNoSchema) {
				t.Fatalf("err = %v, want a flag error", err)
			}
			if c.args[0] == "locks" && len(c.args) == 1 {
				// "locks" takes a subcommand, not flags.
				if !strings.Contains(err.Error(), `unknown subcommand "-no-such-flag"`) {
					t.Errorf("err = %v", err)
				}
				return
			}
			if !strings.Contains(err.Error(), "flag provided but not defined: -no-such-flag") {
				t.Errorf("err = %v", err)
			}
			if !strings.HasPrefix(stderr, "flag provided but not defined: -no-such-flag\n"+c.want+"\n") {
				t.Errorf("stderr does not give the message, then the usage:\n%s", stderr)
			}
			if stdout != "" {
				t.Errorf("stdout not empty:\n%s", stdout)
			}
		})
	}
}

// TestUsageListsLocksSubcommands: "stockade -h" and the package's doc
// name every subcommand that "stockade locks -h" lists.
func TestUsageListsLocksSubcommands(t *testing.T) {
	t.Parallel()
	top, _, err := runCmd(t, nil, "-h")
	if err != nil {
		t.Fatal(err)
	}
	locksHelp, _, err := runCmd(t, nil, "locks", "-h")
	if err != nil {
		t.Fatal(err)
	}
	f, err := parser.ParseFile(token.NewFileSet(), "main.go", nil, parser.ParseComments|parser.PackageClauseOnly)
	if err != nil {
		t.Fatal(err)
	}
	doc := f.Doc.Text()
	_, list, _ := strings.Cut(locksHelp, "subcommands:\n")
	var subs []string
	for line := range strings.Lines(list) {
		if line == "\n" {
			break
		}
		if rest, ok := strings.CutPrefix(line, "  "); ok && rest != "" && rest[0] != ' ' {
			subs = append(subs, strings.Fields(rest)[0])
		}
	}
	if len(subs) < 4 {
		t.Fatalf("found the subcommands %q in stockade locks -h:\n%s", subs, locksHelp)
	}
	for _, sub := range subs {
		if !strings.Contains(top, `"locks `+sub) {
			t.Errorf("stockade -h does not list locks %s:\n%s", sub, top)
		}
		if !strings.Contains(doc, "locks "+sub) {
			t.Errorf("the package doc does not list locks %s:\n%s", sub, doc)
		}
	}
}

// TestHelpHidesEnvironment: -h shows built-in defaults, not what the
// environment holds (a store URL may carry a password).
func TestHelpHidesEnvironment(t *testing.T) {
	t.Parallel()
	env := map[string]string{"STOCKADE_STORE": "postgres://u:hunter2@db/x?password=hunter2"}
	for _, cmd := range []string{"serve", "migrate", "reconcile", "bench"} {
		t.Run(cmd, func(t *testing.T) {
			stdout, _, err := runCmd(t, env, cmd, "-h")
			if err != nil {
				t.Fatal(err)
			}
			if strings.Contains(stdout, "hunter2") || !strings.Contains(stdout, "(env STOCKADE_STORE)") {
				t.Errorf("help text:\n%s", stdout)
			}
			if cmd != "bench" && !strings.Contains(stdout, `(default "sqlite:stockade.db")`) {
				t.Errorf("help text does not give the built-in default store:\n%s", stdout)
			}
		})
	}
}

func TestVersion(t *testing.T) {
	t.Parallel()
	stdout, stderr, err := runCmd(t, nil, "version")
	if err != nil {
		t.Fatalf("version: %v\n%s", err, stderr)
	}
	// A test binary has no module version and no revision.
	if want := "stockade (devel) " + runtime.Version() + "\n"; !strings.HasPrefix(stdout, strings.TrimSuffix(want, "\n")) {
		t.Errorf("version printed %q, want it to start with %q", stdout, want)
	}
	if _, _, err := runCmd(t, nil, "version", "extra"); err == nil || !strings.Contains(err.Error(), "unexpected arguments") {
		t.Errorf("version extra: %v", err)
	}
}

func TestVersionLine(t *testing.T) {
	t.Parallel()
	rev := "abc1234def5678abc1234def5678abc1234def56"
	tests := []struct {
		name     string
		version  string
		settings map[string]string
		want     string
	}{
		{"no vcs", "", nil, "stockade (devel) go1.26.8"},
		{"tagged", "v1.2.3", nil, "stockade v1.2.3 go1.26.8"},
		{"clean checkout", "(devel)", map[string]string{"vcs.revision": rev, "vcs.time": "2026-11-25T04:00:00Z", "vcs.modified": "false"},
			"stockade (devel) go1.26.8 rev abc1234def56 2026-11-25T04:00:00Z"},
		{"modified checkout", "v1.3.0-0.20261125040000-abc1234def56+dirty", map[string]string{"vcs.revision": rev, "vcs.time": "2026-11-25T04:00:00Z", "vcs.modified": "true"},
			"stockade v1.3.0-0.20261125040000-abc1234def56+dirty go1.26.8 rev abc1234def56 2026-11-25T04:00:00Z (modified)"},
		{"short revision, no time", "", map[string]string{"vcs.revision": "abc"}, "stockade (devel) go1.26.8 rev abc"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			info := &debug.BuildInfo{GoVersion: "go1.26.8", Main: debug.Module{Path: "github.com/stockade/stockade/cmd/stockade", Version: tc.version}}
			for k, v := range tc.settings {
				info.Settings = append(info.Settings, debug.BuildSetting{Key: k, Value: v})
			}
			if got := versionLine(info); got != tc.want {
				t.Errorf("versionLine = %q, want %q", got, tc.want)
			}
		})
	}
}

// TestReconcileWithoutSchema: on a database that was never migrated,
// reconcile fails and says to migrate, and leaves it as it found it.
func TestReconcileWithoutSchema(t *testing.T) {
	t.Parallel()
	const want = "; run `stockade migrate` first"
	check := func(t *testing.T, store string) {
		t.Helper()
		stdout, _, err := runCmd(t, nil, "reconcile", "-store", store)
		if !errors.Is(err, errNoSchema) || !strings.Contains(err.Error(), "no stockade schema in DB ") || !strings.HasSuffix(err.Error(), want) {
			t.Fatalf("reconcile: %v; want no stockade schema in DB …%s", err, want)
		}
		if strings.Contains(err.Error(), "s3cret") {
			t.Errorf("the error shows the password: %v", err)
		}
		if stdout != "" {
			t.Errorf("stdout: %q", stdout)
		}
	}

	t.Run("new sqlite path", func(t *testing.T) {
		path := filepath.Join(t.TempDir(), "typo.db")
		check(t, "sqlite:"+path)
		if _, err := os.Stat(path); !errors.Is(err, fs.ErrNotExist) {
			t.Fatalf("reconcile left a file at the new path: %v", err)
		}
	})
	t.Run("empty sqlite file", func(t *testing.T) {
		path := filepath.Join(t.TempDir(), "empty.db")
		if err := os.WriteFile(path, nil, 0o644); err != nil {
			t.Fatal(err)
		}
		check(t, "sqlite:"+path)
		if b, err := os.ReadFile(path); err != nil || len(b) != 0 {
			t.Fatalf("the empty file holds %d bytes (%v) after reconcile", len(b), err)
		}
	})
	t.Run("empty postgres database", func(t *testing.T) {
		url := emptyDatabase(t)
		check(t, withQuery(url, "password=s3cret"))
		conn, err := pgx.Connect(t.Context(), url)
		if err != nil {
			t.Fatal(err)
		}
		defer conn.Close(context.WithoutCancel(t.Context()))
		var tables int
		err = conn.QueryRow(t.Context(), `SELECT count(*) FROM pg_tables WHERE schemaname NOT IN ('pg_catalog', 'information_schema')`).Scan(&tables)
		if err != nil {
			t.Fatal(err)
		}
		if tables != 0 {
			t.Fatalf("reconcile left %d tables in the empty database", tables)
		}
	})
}

// TestReadOnlyCommandsWithoutSchema: the commands that only read refuse,
// as reconcile does, a SQLite path with no file, whether -store or
// STOCKADE_STORE names it, and leave no file behind.
func TestReadOnlyCommandsWithoutSchema(t *testing.T) {
	t.Parallel()
	for _, args := range [][]string{
		{"reconcile"},
		{"keys", "list"},
		{"payments", "stuck"},
		{"payments", "show", "-id", "pay_nope"},
	} {
		for _, by := range []string{"-store", "STOCKADE_STORE"} {
			t.Run(strings.Join(args, " ")+" "+by, func(t *testing.T) {
				t.Parallel()
				dir := t.TempDir()
				store := "sqlite:" + filepath.Join(dir, "stockade.db")
				args, env := slices.Clone(args), map[string]string{}
				if by == "-store" {
					args = append(args, "-store", store)
				} else {
					env[by] = store
				}
				stdout, _, err := runCmd(t, env, args...)
				if !errors.Is(err, errNoSchema) || !strings.HasSuffix(err.Error(), "; run `stockade migrate` first") {
					t.Errorf("err = %v; want no stockade schema in DB …; run `stockade migrate` first", err)
				}
				if stdout != "" {
					t.Errorf("stdout: %q", stdout)
				}
				if files, err := os.ReadDir(dir); err != nil || len(files) != 0 {
					t.Errorf("left %v behind (%v)", files, err)
				}
			})
		}
	}
}

// withQuery adds the parameter param to the query of url.
func withQuery(url, param string) string {
	if strings.Contains(url, "?") {
		return url + "&" + param
	}
	return url + "?" + param
}

// TestPasswordParamHidden: a password given as ?password= in the store URL
// shows in neither the start-up log nor reconcile's report.
func TestPasswordParamHidden(t *testing.T) {
	t.Parallel()
	// The test server trusts local connections: the password is sent, or
	// not, and ignored.
	store := withQuery(newDatabase(t), "password=s3cret")
	s := startServe(t, map[string]string{"STOCKADE_STORE": store})
	line := regexp.MustCompile(`(?m)^.*msg=listening .*$`).FindString(s.log.String())
	if !strings.Contains(line, `store="postgres://`) || !strings.Contains(line, "password=xxxxx") {
		t.Errorf("start-up line does not show the masked store: %q", line)
	}
	stockUp(t, httpapi.NewClient("http://"+s.addr, nil), "sku-1", 5)
	if err := s.stop(); err != nil {
		t.Fatal(err)
	}
	if strings.Contains(s.log.String(), "s3cret") {
		t.Errorf("the serve log shows the password:\n%s", s.log)
	}

	stdout, stderr, err := runCmd(t, nil, "reconcile", "-store", store)
	if err != nil {
		t.Fatalf("reconcile: %v\n%s", err, stderr)
	}
	if !strings.Contains(stdout, "password=xxxxx") || !strings.HasSuffix(stdout, ": 1 levels, all match the ledger and the records; 0 shows, all match their seat history\n") {
		t.Errorf("reconcile said %q", stdout)
	}
	if strings.Contains(stdout+stderr, "s3cret") {
		t.Errorf("reconcile shows the password:\n%s%s", stdout, stderr)
	}
}
