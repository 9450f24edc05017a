package main

import (
	"strings"
	"testing"
)

func TestReport(t *testing.T) {
	t.Parallel()
	var out strings.Builder
	if err := run([]string{"-modules", "example.com/m example.com/m/sub", "testdata/events.json"}, &out); err != nil {
		t.Fatal(err)
	}
	// Modules by wall time: example.com/m/sub ran from 10:00:02 to 10:00:22
	// (b and c overlap), example.com/m from 10:00:00 to 10:00:10;
	// example.com/other is in no module given, so it stands alone. The
	// package without tests is left out.
	want := `
module             wall      sum of packages  packages
example.com/m/sub    20.0 s    22.0 s         2
example.com/m        10.0 s    10.0 s         1
example.com/other     3.0 s     3.0 s         1

package              time      result
example.com/m/sub/b    20.0 s  fail
example.com/m/a        10.0 s  pass
example.com/other       3.0 s  pass
example.com/m/sub/c     2.0 s  pass
`
	if got := "\n" + out.String(); got != want {
		t.Errorf("report:%s\nwant:%s", got, want)
	}
}

func TestUsage(t *testing.T) {
	t.Parallel()
	for _, args := range [][]string{nil, {"a.json", "b.json"}, {"-nope", "a.json"}, {"testdata/missing.json"}} {
		if err := run(args, &strings.Builder{}); err == nil {
			t.Errorf("run %q: no error", args)
		}
	}
}
