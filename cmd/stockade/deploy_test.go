package main

import (
	"bufio"
	"encoding/json"
	"fmt"
	"io"
	"maps"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/jackc/pgx/v5/pgxpool"
	"github.com/prometheus/client_golang/prometheus"

	"github.com/stockade/stockade"
	"github.com/stockade/stockade/httpapi"
	"github.com/stockade/stockade/internal/testkit"
	"github.com/stockade/stockade/lock/memlock"
)

// The operator's kit in deploy/, checked against the service it runs.

// deployDir is deploy/ from this package's directory.
var deployDir = filepath.Join("..", "..", "deploy")

// outsideMetrics are the metrics the rules and the dashboard may name that
// the service cannot export, and where each comes from.
var outsideMetrics = map[string]string{
	"up":            "Prometheus, for every target it scrapes",
	"probe_success": "the blackbox exporter, probing /readyz: an instance that is not ready still serves /metrics",
}

// TestDeployKit: every metric that deploy/'s alert rules and Grafana
// dashboard name is one that serve exports (or one of outsideMetrics, or
// one that the stuck-payments check writes, run here), the rules and the
// Prometheus configuration pass promtool, the environment file holds only
// variables that serve reads and values it accepts, and the systemd units
// pass systemd-analyze verify. promtool and systemd-analyze are optional:
// without them those parts skip, saying so.
func TestDeployKit(t *testing.T) {
	t.Parallel()
	if testing.Short() {
		t.Skip("runs serve with NATS, and builds the binary for the payments check")
	}
	exported := servedMetrics(t)
	known := func(name string) bool {
		if _, ok := exported[name]; ok {
			return true
		}
		for _, suffix := range []string{"_bucket", "_sum", "_count"} {
			if base, ok := strings.CutSuffix(name, suffix); ok {
				kind := exported[base]
				if kind == "histogram" || (kind == "summary" && suffix != "_bucket") {
					return true
				}
			}
		}
		return false
	}
	var written map[string]bool // by the stuck-payments check
	t.Run("payments check", func(t *testing.T) {
		written = checkPaymentsScript(t)
	})
	check := func(t *testing.T, where, expr string) {
		t.Helper()
		names := promqlMetrics(expr)
		if len(names) == 0 {
			t.Errorf("%s: no metric found in %q", where, expr)
		}
		for _, name := range names {
			if _, ok := outsideMetrics[name]; ok || known(name) || written[name] {
				continue
			}
			t.Errorf("%s: %s is not a metric that stockade serve exports (expression %q)", where, name, expr)
		}
	}

	t.Run("alert rules", func(t *testing.T) {
		rules := alertExprs(t, filepath.Join(deployDir, "prometheus", "stockade-alerts.yml"))
		for alert, expr := range rules {
			check(t, alert, expr)
		}
		for _, want := range []string{"StockadeNotReady", "StockadeHigh5xxRate", "StockadeEventRelayLagging",
			"StockadePaymentsStuck", "StockadeLeasesLost", "StockadeWebhookFailures"} {
			if _, ok := rules[want]; !ok {
				t.Errorf("no alert %s", want)
			}
		}
	})

	t.Run("dashboard", func(t *testing.T) {
		data, err := os.ReadFile(filepath.Join(deployDir, "grafana", "stockade-dashboard.json"))
		if err != nil {
			t.Fatal(err)
		}
		var dash struct {
			UID        string
			Title      string
			Panels     []dashPanel
			Templating struct {
				List []struct {
					Name       string
					Type       string
					Definition string
				}
			}
		}
		if err := json.Unmarshal(data, &dash); err != nil {
			t.Fatalf("not valid JSON: %v", err)
		}
		if dash.UID == "" || dash.Title == "" {
			t.Errorf("uid %q, title %q: want both", dash.UID, dash.Title)
		}
		ids := map[int]string{}
		targets := 0
		var walk func(ps []dashPanel)
		walk = func(ps []dashPanel) {
			for _, p := range ps {
				if other, dup := ids[p.ID]; dup {
					t.Errorf("panels %q and %q share id %d", other, p.Title, p.ID)
				}
				ids[p.ID] = p.Title
				walk(p.Panels)
				if p.Type == "row" {
					continue
				}
				if len(p.Targets) == 0 {
					t.Errorf("panel %q has no target", p.Title)
				}
				for _, tg := range p.Targets {
					targets++
					check(t, fmt.Sprintf("panel %q", p.Title), tg.Expr)
				}
			}
		}
		walk(dash.Panels)
		if targets == 0 {
			t.Error("the dashboard has no targets")
		}
		labelValues := regexp.MustCompile(`^label_values\(\s*([a-zA-Z_:][a-zA-Z0-9_:]*)\s*,\s*\w+\s*\)$`)
		for _, v := range dash.Templating.List {
			if v.Type != "query" {
				continue
			}
			m := labelValues.FindStringSubmatch(v.Definition)
			if m == nil {
				t.Errorf("variable %s: %q is not label_values(metric, label)", v.Name, v.Definition)
				continue
			}
			check(t, "variable "+v.Name, m[1])
		}
	})

	t.Run("promtool", func(t *testing.T) {
		promtool, err := exec.LookPath("promtool")
		if err != nil {
			t.Skip("promtool is not installed (apt-get install prometheus): the rules' syntax is not checked")
		}
		dir := filepath.Join(deployDir, "prometheus")
		for _, args := range [][]string{{"check", "rules", "stockade-alerts.yml"}, {"check", "config", "prometheus.yml"}} {
			cmd := exec.Command(promtool, args...)
			cmd.Dir = dir
			if out, err := cmd.CombinedOutput(); err != nil {
				t.Errorf("promtool %s: %v\n%s", strings.Join(args, " "), err, out)
			}
		}
	})

	t.Run("environment file", checkEnvFile)

	t.Run("systemd-analyze", func(t *testing.T) {
		analyze, err := exec.LookPath("systemd-analyze")
		if err != nil {
			t.Skip("systemd-analyze is not installed: the units are not checked")
		}
		// verify wants the programs the units start to exist: the test's
		// own binary stands in for them.
		self, err := os.Executable()
		if err != nil {
			t.Fatal(err)
		}
		dir := t.TempDir()
		var units []string
		for _, name := range []string{"stockade.service", "stockade-payments-check.service", "stockade-payments-check.timer"} {
			data, err := os.ReadFile(filepath.Join(deployDir, "systemd", name))
			if err != nil {
				t.Fatal(err)
			}
			text := strings.NewReplacer("/usr/local/bin/stockade", self,
				"/usr/local/lib/stockade/stockade-payments-check", self).Replace(string(data))
			if err := os.WriteFile(filepath.Join(dir, name), []byte(text), 0o644); err != nil {
				t.Fatal(err)
			}
			units = append(units, "./"+name)
		}
		cmd := exec.Command(analyze, append([]string{"verify"}, units...)...)
		cmd.Dir = dir
		out, err := cmd.CombinedOutput()
		// Unknown keys and bad values are warnings with exit status 0.
		if err != nil || len(strings.TrimSpace(string(out))) > 0 {
			t.Errorf("systemd-analyze verify: %v\n%s", err, out)
		}
	})
}

// dashPanel is what the test reads of a Grafana panel.
type dashPanel struct {
	ID      int
	Type    string
	Title   string
	Panels  []dashPanel // a collapsed row's
	Targets []struct{ Expr string }
}

// servedMetrics returns the metrics stockade serve exports, by name, with
// their type: those that GET /metrics of a running serve shows (under the
// lock strategy, relaying to NATS, after a checkout), and those that serve
// registers but that show only once something happens (a lease lost, a
// retry, a batch): recorded from the same functions serve registers them
// with.
func servedMetrics(t *testing.T) map[string]string {
	t.Helper()
	nats := testkit.NewNATS(t)
	s := startServe(t, nil, "-store", "sqlite:"+filepath.Join(t.TempDir(), "deploy.db"),
		"-strategy", "lock", "-events", nats.URL())
	c := httpapi.NewClient("http://"+s.addr, httpClient)
	stockUp(t, c, "widget", 5)
	if _, err := c.Checkout(t.Context(), stockade.ReserveRequest{Lines: []stockade.Line{{SKU: "widget", Quantity: 1}}}, nil); err != nil {
		t.Fatal(err)
	}
	code, body := get(t, "http://"+s.addr+"/metrics")
	if code != 200 {
		t.Fatalf("GET /metrics: %d\n%s", code, body)
	}
	metrics := map[string]string{}
	typeLine := regexp.MustCompile(`(?m)^# TYPE ([a-zA-Z_:][a-zA-Z0-9_:]*) (\w+)$`)
	for _, m := range typeLine.FindAllStringSubmatch(body, -1) {
		metrics[m[1]] = m[2]
	}
	// What the rules lean on must be in the scrape itself.
	for _, name := range []string{"stockade_http_requests_total", "stockade_http_request_duration_seconds",
		"stockade_events_relay_lag_seconds", "stockade_webhook_attempts_total", "stockade_lock_acquisitions_total",
		"process_start_time_seconds"} {
		if _, ok := metrics[name]; !ok {
			t.Errorf("GET /metrics has no %s:\n%s", name, body)
		}
	}

	rec := &descRecorder{names: map[string]bool{}}
	engineObserver(rec)
	observeLocker(memlock.New(nil), rec)
	webhookObserver(rec)
	relayMetrics(rec, nil, nil) // their values are read at a scrape, which this registry never has
	for name := range rec.names {
		if _, ok := metrics[name]; !ok {
			metrics[name] = "registered" // its type unknown: no suffixes
		}
	}
	for _, name := range []string{"stockade_lock_lost_total", "stockade_lock_failures_total", "stockade_engine_retries_total"} {
		if !rec.names[name] {
			t.Errorf("serve registers no %s; recorded %v", name, slices.Sorted(maps.Keys(rec.names)))
		}
	}
	return metrics
}

// descRecorder is a prometheus.Registerer that notes the name of every
// metric registered with it.
type descRecorder struct{ names map[string]bool }

var fqName = regexp.MustCompile(`fqName: "([^"]+)"`)

func (r *descRecorder) Register(c prometheus.Collector) error {
	ch := make(chan *prometheus.Desc)
	go func() { c.Describe(ch); close(ch) }()
	for d := range ch {
		if m := fqName.FindStringSubmatch(d.String()); m != nil {
			r.names[m[1]] = true
		}
	}
	return nil
}

func (r *descRecorder) MustRegister(cs ...prometheus.Collector) {
	for _, c := range cs {
		r.Register(c)
	}
}

func (r *descRecorder) Unregister(prometheus.Collector) bool { return true }

// alertExprs reads the alerts of a Prometheus rule file, each one's
// expression by its name. It reads the YAML loosely: an "expr:" is the
// rest of its line, or the more indented lines after a "|" or ">".
func alertExprs(t *testing.T, path string) map[string]string {
	t.Helper()
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	lines := strings.Split(string(data), "\n")
	indent := func(s string) int { return len(s) - len(strings.TrimLeft(s, " ")) }
	exprs := map[string]string{}
	alert := ""
	for i := 0; i < len(lines); i++ {
		line := strings.TrimSpace(lines[i])
		if name, ok := strings.CutPrefix(line, "- alert:"); ok {
			alert = strings.TrimSpace(name)
			continue
		}
		expr, ok := strings.CutPrefix(line, "expr:")
		if !ok || strings.HasPrefix(line, "#") {
			continue
		}
		if alert == "" {
			t.Fatalf("%s:%d: an expr outside an alert", path, i+1)
		}
		expr = strings.TrimSpace(expr)
		if strings.HasPrefix(expr, "|") || strings.HasPrefix(expr, ">") {
			var block []string
			for j := i + 1; j < len(lines) && (strings.TrimSpace(lines[j]) == "" || indent(lines[j]) > indent(lines[i])); j++ {
				block = append(block, strings.TrimSpace(lines[j]))
				i = j
			}
			expr = strings.TrimSpace(strings.Join(block, " "))
		}
		if _, dup := exprs[alert]; dup {
			t.Errorf("%s: alert %s twice, or with two expressions", path, alert)
		}
		exprs[alert] = expr
		alert = ""
	}
	if alerts := strings.Count(string(data), "- alert:"); alerts != len(exprs) || alerts == 0 {
		t.Fatalf("%s: %d alerts, %d expressions read", path, alerts, len(exprs))
	}
	return exprs
}

// The parts of a PromQL expression that name no metric.
var (
	promqlString   = regexp.MustCompile("\"(?:[^\"\\\\]|\\\\.)*\"|'(?:[^'\\\\]|\\\\.)*'|`[^`]*`")
	promqlMatchers = regexp.MustCompile(`\{[^{}]*\}`)
	promqlRange    = regexp.MustCompile(`\[[^\[\]]*\]`)
	promqlGrouping = regexp.MustCompile(`\b(?:by|without|on|ignoring|group_left|group_right)\s*\([^()]*\)`)
	promqlIdent    = regexp.MustCompile(`(?:^|[^a-zA-Z0-9_:.$])([a-zA-Z_:][a-zA-Z0-9_:]*)`)
	promqlWords    = map[string]bool{"by": true, "without": true, "on": true, "ignoring": true, "group_left": true,
		"group_right": true, "bool": true, "and": true, "or": true, "unless": true, "offset": true, "inf": true, "nan": true}
)

// promqlMetrics returns the metric names in a PromQL expression, read
// loosely: what is left once strings, label matchers, ranges and
// groupings are gone, less functions (a name before a parenthesis),
// keywords and numbers.
func promqlMetrics(expr string) []string {
	s := promqlString.ReplaceAllString(expr, `""`)
	s = promqlMatchers.ReplaceAllString(s, " ")
	s = promqlRange.ReplaceAllString(s, " ")
	s = promqlGrouping.ReplaceAllString(s, " ")
	var names []string
	for _, m := range promqlIdent.FindAllStringSubmatchIndex(s, -1) {
		name := s[m[2]:m[3]]
		if strings.HasPrefix(strings.TrimLeft(s[m[3]:], " \t\n"), "(") || promqlWords[strings.ToLower(name)] {
			continue
		}
		names = append(names, name)
	}
	return names
}

// TestPromqlMetrics: the expression reader finds the metrics, and only
// them, so that a misspelt metric in a rule cannot slip past TestDeployKit.
func TestPromqlMetrics(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct{ expr, want string }{
		{`up{job="stockade"} == 0`, "up"},
		{`sum by (instance) (rate(stockade_http_requests_total{status=~"5.."}[5m])) / sum by (instance) (rate(stockade_http_requests_total[5m])) > 0.05`,
			"stockade_http_requests_total stockade_http_requests_total"},
		{`histogram_quantile(0.99, sum by (le) (rate(stockade_nope_seconds_bucket{route!~"/v1/events.*",instance=~"$instance"}[$__rate_interval])))`,
			"stockade_nope_seconds_bucket"},
		{`time() - max(stockade_payments_checked_timestamp_seconds) > 1800 or absent(stockade_payments_checked_timestamp_seconds)`,
			"stockade_payments_checked_timestamp_seconds stockade_payments_checked_timestamp_seconds"},
		{`a_total / on (x) group_left (y) b_info * 1e3 > bool 2`, "a_total b_info"},
		{`sum without (le) (x) unless y offset 5m`, "x y"},
	} {
		if got := strings.Join(promqlMetrics(tc.expr), " "); got != tc.want {
			t.Errorf("promqlMetrics(%q) = %q, want %q", tc.expr, got, tc.want)
		}
	}
}

// checkPaymentsScript runs deploy/'s stuck-payments check twice: on a
// stand-in for the binary that prints a stuck payment and one that needs a
// refund, as `payments stuck -json` does, and on the real binary and an
// empty store. It returns the metrics the check writes.
func checkPaymentsScript(t *testing.T) map[string]bool {
	t.Helper()
	script, err := filepath.Abs(filepath.Join(deployDir, "systemd", "stockade-payments-check.sh"))
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	var list strings.Builder
	enc := json.NewEncoder(&list)
	now := time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)
	for _, p := range []stockade.Payment{
		{ID: "pay_stuck", Status: stockade.PaymentProcessing, StuckAt: now},
		{ID: "pay_refund", Status: stockade.PaymentSucceeded, Resolution: stockade.ResolvedNeedsRefund, StuckAt: now},
	} {
		if err := enc.Encode(p); err != nil {
			t.Fatal(err)
		}
	}
	fake := filepath.Join(dir, "stockade")
	printed := filepath.Join(dir, "stuck.json")
	if err := os.WriteFile(printed, []byte(list.String()), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(fake, []byte("#!/bin/sh\n[ \"$*\" = 'payments stuck -json' ] || exit 3\ncat '"+printed+"'\n"), 0o755); err != nil {
		t.Fatal(err)
	}
	runCheck := func(bin string, env ...string) map[string]string {
		t.Helper()
		out := t.TempDir()
		cmd := exec.Command("sh", script)
		cmd.Env = append(os.Environ(), append(env, "TEXTFILE_DIR="+out, "STOCKADE_BIN="+bin)...)
		if b, err := cmd.CombinedOutput(); err != nil {
			t.Fatalf("%s with %s: %v\n%s", script, bin, err, b)
		}
		f, err := os.Open(filepath.Join(out, "stockade_payments.prom"))
		if err != nil {
			t.Fatal(err)
		}
		defer f.Close()
		return samples(t, f)
	}

	got := runCheck(fake)
	for series, want := range map[string]string{
		`stockade_payments_need_person{needs="stuck"}`:  "1",
		`stockade_payments_need_person{needs="refund"}`: "1",
	} {
		if got[series] != want {
			t.Errorf("%s = %q, want %s; all: %v", series, got[series], want, got)
		}
	}

	store := "sqlite:" + filepath.Join(t.TempDir(), "payments.db")
	if _, errOut, err := runCmd(t, nil, "migrate", "-store", store); err != nil {
		t.Fatalf("migrate: %v\n%s", err, errOut)
	}
	got = runCheck(binary(t), "STOCKADE_STORE="+store)
	names := map[string]bool{}
	for series, v := range got {
		name, _, _ := strings.Cut(series, "{")
		names[name] = true
		if name == "stockade_payments_need_person" && v != "0" {
			t.Errorf("an empty store: %s = %s, want 0", series, v)
		}
	}
	if !names["stockade_payments_need_person"] || !names["stockade_payments_checked_timestamp_seconds"] {
		t.Errorf("the check wrote %v", got)
	}
	return names
}

// samples reads the Prometheus text format: each series' value by the
// series as written.
func samples(t *testing.T, r io.Reader) map[string]string {
	t.Helper()
	out := map[string]string{}
	sc := bufio.NewScanner(r)
	for sc.Scan() {
		line := strings.TrimSpace(sc.Text())
		if line == "" || strings.HasPrefix(line, "#") {
			continue
		}
		i := strings.LastIndexByte(line, ' ')
		if i < 0 {
			t.Fatalf("not a sample: %q", line)
		}
		out[line[:i]] = line[i+1:]
	}
	return out
}

// checkEnvFile: deploy/systemd/stockade.env names only variables that
// serve reads (commented-out ones too), serve accepts its values, and its
// store URL points at every node with the settings docs/operations.md asks
// for, as pgx reads them.
func checkEnvFile(t *testing.T) {
	data, err := os.ReadFile(filepath.Join(deployDir, "systemd", "stockade.env"))
	if err != nil {
		t.Fatal(err)
	}
	reads := map[string]bool{}
	envOf := regexp.MustCompile(`\(env (STOCKADE_[A-Z_]+)\)`)
	for _, help := range serveFlagHelp(t) {
		if m := envOf.FindStringSubmatch(help); m != nil {
			reads[m[1]] = true
		}
	}
	if len(reads) < 20 {
		t.Fatalf("serve -h names %d variables", len(reads))
	}
	env := map[string]string{}
	assignment := regexp.MustCompile(`^#?([A-Z_][A-Z0-9_]*)=(.*)$`)
	for i, line := range strings.Split(string(data), "\n") {
		line = strings.TrimSpace(line)
		m := assignment.FindStringSubmatch(line)
		if m == nil {
			if line != "" && !strings.HasPrefix(line, "#") {
				t.Errorf("stockade.env:%d: not KEY=VALUE nor a comment: %q", i+1, line)
			}
			continue
		}
		if !reads[m[1]] {
			t.Errorf("stockade.env:%d: serve reads no %s", i+1, m[1])
		}
		if !strings.HasPrefix(line, "#") {
			env[m[1]] = m[2]
		}
	}
	c, err := parseServe(nil, func(k string) string { return env[k] }, io.Discard, io.Discard)
	if err != nil {
		t.Fatalf("serve refuses stockade.env: %v", err)
	}
	if c.store.kind != "postgres" || c.strategy != "batch" || c.events == "" {
		t.Errorf("stockade.env: store %s, strategy %s, events %q", c.store, c.strategy, c.events)
	}
	cfg, err := pgxpool.ParseConfig(c.store.url)
	if err != nil {
		t.Fatalf("pgx refuses STOCKADE_STORE: %v", err)
	}
	if cfg.ConnConfig.ValidateConnect == nil || len(cfg.ConnConfig.Fallbacks) != 2 ||
		cfg.ConnConfig.ConnectTimeout != 2*time.Second || cfg.MaxConns != 8 {
		t.Errorf("STOCKADE_STORE: read-write check %t, %d hosts, connect timeout %v, pool %d; want true, 3, 2s, 8",
			cfg.ConnConfig.ValidateConnect != nil, len(cfg.ConnConfig.Fallbacks)+1, cfg.ConnConfig.ConnectTimeout, cfg.MaxConns)
	}
}
