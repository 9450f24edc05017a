package main

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"maps"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/stockade/stockade"
	"github.com/stockade/stockade/httpapi"
)

var listenLine = regexp.MustCompile(`msg=listening addr=(\S+)`)

// waitListening reads log lines from r until the server says where it
// listens, and returns that address. The rest of r is drained in the
// background so the server never blocks on its log.
func waitListening(t *testing.T, r io.Reader) string {
	t.Helper()
	found := make(chan string, 1)
	go func() {
		sc := bufio.NewScanner(r)
		for sc.Scan() {
			if m := listenLine.FindStringSubmatch(sc.Text()); m != nil {
				found <- m[1]
			}
		}
	}()
	select {
	case addr := <-found:
		return addr
	case <-time.After(30 * time.Second):
		t.Fatal("server did not report its listen address")
		return ""
	}
}

func get(t *testing.T, url string) (int, string) {
	t.Helper()
	resp, err := http.Get(url)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	body, err := io.ReadAll(resp.Body)
	if err != nil {
		t.Fatal(err)
	}
	return resp.StatusCode, string(body)
}

func TestServeAnswersAndStopsOnCancel(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	ctx, cancel := context.WithCancel(t.Context())
	defer cancel()
	pr, pw := io.Pipe()
	done := make(chan error, 1)
	go func() {
		args := []string{"stockade", "serve", "-addr", "127.0.0.1:0", "-store", "sqlite:" + filepath.Join(dir, "s.db")}
		done <- run(ctx, args, func(string) string { return "" }, io.Discard, pw)
		pw.Close()
	}()
	addr := waitListening(t, pr)

	for _, path := range []string{"/healthz", "/readyz"} {
		if code, body := get(t, "http://"+addr+path); code != http.StatusOK {
			t.Errorf("GET %s = %d %s, want 200", path, code, body)
		}
	}
	if code, _ := get(t, "http://"+addr+"/no-such-route"); code != http.StatusNotFound {
		t.Errorf("GET /no-such-route = %d, want 404", code)
	}

	cancel()
	select {
	case err := <-done:
		if err != nil {
			t.Fatalf("run returned %v after cancel, want nil", err)
		}
	case <-time.After(20 * time.Second):
		t.Fatal("run did not return after cancel")
	}
	if _, err := os.Stat(filepath.Join(dir, "s.db")); err != nil {
		t.Errorf("store file not created: %v", err)
	}
}

// TestServeQuietWhenClientsGo: an event stream whose client goes away,
// and one that the shutdown ends, log no warning and no error.
func TestServeQuietWhenClientsGo(t *testing.T) {
	t.Parallel()
	s := startServe(t, nil, "-store", "sqlite:"+filepath.Join(t.TempDir(), "q.db"), "-log-level", "debug")
	client := &http.Client{}
	stream := func(ctx context.Context) *http.Response {
		t.Helper()
		req, err := http.NewRequestWithContext(ctx, "GET", "http://"+s.addr+"/v1/events/stream", nil)
		if err != nil {
			t.Fatal(err)
		}
		resp, err := client.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		if resp.StatusCode != http.StatusOK {
			t.Fatalf("GET /v1/events/stream: %s", resp.Status)
		}
		// Its first line: the stream is served, and waits for events.
		if _, err := bufio.NewReader(resp.Body).ReadString('\n'); err != nil {
			t.Fatal(err)
		}
		return resp
	}
	ctx, leave := context.WithCancel(t.Context())
	left := stream(ctx)
	leave()
	left.Body.Close()
	stays := stream(t.Context())
	defer stays.Body.Close()
	if err := s.stop(); err != nil { // the shutdown ends the stream that stays
		t.Fatal(err)
	}
	log := s.log.String()
	if n := strings.Count(log, "route=/v1/events/stream"); n != 2 {
		t.Errorf("%d streams logged as ended, want 2:\n%s", n, log)
	}
	for line := range strings.Lines(log) {
		if (strings.Contains(line, "level=WARN") || strings.Contains(line, "level=ERROR")) && !strings.Contains(line, "open mode") {
			t.Errorf("logged: %s", line)
		}
	}
}

func TestServeReadsEnvironment(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	env := map[string]string{
		"STOCKADE_ADDR":  "127.0.0.1:0",
		"STOCKADE_STORE": "sqlite:" + filepath.Join(dir, "env.db"),
	}
	ctx, cancel := context.WithCancel(t.Context())
	defer cancel()
	pr, pw := io.Pipe()
	done := make(chan error, 1)
	go func() {
		done <- run(ctx, []string{"stockade", "serve"}, func(k string) string { return env[k] }, io.Discard, pw)
		pw.Close()
	}()
	addr := waitListening(t, pr)
	if code, _ := get(t, "http://"+addr+"/healthz"); code != http.StatusOK {
		t.Errorf("GET /healthz = %d, want 200", code)
	}
	cancel()
	if err := <-done; err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(filepath.Join(dir, "env.db")); err != nil {
		t.Errorf("STOCKADE_STORE ignored: %v", err)
	}
}

func TestRunRefusesBadInput(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name string
		args []string
		want string
	}{
		{"no command", []string{"stockade"}, "no command"},
		{"unknown command", []string{"stockade", "frobnicate"}, "unknown command"},
		{"unknown flag", []string{"stockade", "serve", "-bogus"}, "bogus"},
		{"bad store", []string{"stockade", "serve", "-addr", "127.0.0.1:0", "-store", "mysql://x"}, "unsupported -store"},
		{"stray argument", []string{"stockade", "serve", "extra"}, "unexpected arguments"},
		{"bad address", []string{"stockade", "serve", "-addr", "256.0.0.1:99999", "-store", "sqlite:" + filepath.Join(t.TempDir(), "x.db")}, "listen"},
		{"body limit too small", []string{"stockade", "serve", "-max-body-bytes", "10"}, "-max-body-bytes must be between"},
		{"origin with a path", []string{"stockade", "serve", "-cors-origins", "https://shop.example/app"}, `"https://shop.example/app": want an origin`},
		{"origin not http", []string{"stockade", "serve", "-cors-origins", "ftp://shop.example"}, "want an origin"},
		{"any origin and more", []string{"stockade", "serve", "-cors-origins", "*,https://shop.example"}, "give it alone"},
		{"events neither nats nor kafka", []string{"stockade", "serve", "-events", "http://broker:9092"}, "want nats://HOST:PORT"},
		{"events of two brokers", []string{"stockade", "serve", "-events", "nats://n1:4222,kafka://broker:9092"}, "servers of two brokers"},
		{"events of two brokers, kafka first", []string{"stockade", "serve", "-events", "kafka://b1:9092,nats://n1:4222"}, "servers of two brokers"},
		{"kafka broker without a port", []string{"stockade", "serve", "-events", "kafka://b1:9092,b2"}, "want kafka://HOST:PORT"},
		{"kafka broker with a port out of range", []string{"stockade", "serve", "-events", "kafka://b1:99999"}, "want kafka://HOST:PORT"},
		{"kafka broker without a host", []string{"stockade", "serve", "-events", "kafka://:9092"}, "want kafka://HOST:PORT"},
		{"kafka broker with a path", []string{"stockade", "serve", "-events", "kafka://b1:9092/topic"}, "want kafka://HOST:PORT"},
		{"no events partitions", []string{"stockade", "serve", "-events-partitions", "0"}, "-events-partitions must be between 1 and 10000"},
		{"events server without a port", []string{"stockade", "serve", "-events", "nats://n1:4222,nats://n2"}, "want nats://HOST:PORT"},
		{"no events workers", []string{"stockade", "serve", "-events-workers", "0"}, "-events-workers must be between 1 and 10000"},
		{"too many event replicas", []string{"stockade", "serve", "-events-replicas", "6"}, "-events-replicas must be between 1 and 5"},
		{"payment grace not positive", []string{"stockade", "serve", "-payment-grace", "0s"}, "-payment-grace must be positive"},
		{"no webhook secret file", []string{"stockade", "serve", "-webhook-secret-file", filepath.Join(t.TempDir(), "none")}, "no such file"},
		{"webhook secret too short", []string{"stockade", "serve", "-webhook-secret-file", secretFile(t, "# rotated weekly\nshort\n")}, ":2: a secret of 5 bytes"},
		{"no webhook secret", []string{"stockade", "serve", "-webhook-secret-file", secretFile(t, "\n# none yet\n")}, "holds no secret"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			var stderr strings.Builder
			err := run(t.Context(), tc.args, func(string) string { return "" }, io.Discard, &stderr)
			if err == nil {
				t.Fatal("run succeeded")
			}
			if !strings.Contains(err.Error()+stderr.String(), tc.want) {
				t.Fatalf("error %q (stderr %q) does not mention %q", err, stderr.String(), tc.want)
			}
		})
	}
}

// TestBinaryExitsZeroOnSIGTERM runs the real binary, the one the
// end-to-end tests share, and checks the process-level contract: it
// serves, and SIGTERM makes it exit 0.
func TestBinaryExitsZeroOnSIGTERM(t *testing.T) {
	t.Parallel()
	if testing.Short() {
		t.Skip("builds the binary")
	}
	dir := t.TempDir()
	cmd := exec.Command(binary(t), "serve", "-addr", "127.0.0.1:0")
	cmd.Dir = dir // the default store, stockade.db, lands here
	stderr, err := cmd.StderrPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { cmd.Process.Kill() })
	addr := waitListening(t, stderr)
	if code, _ := get(t, "http://"+addr+"/healthz"); code != http.StatusOK {
		t.Fatalf("GET /healthz = %d, want 200", code)
	}
	if err := cmd.Process.Signal(syscall.SIGTERM); err != nil {
		t.Fatal(err)
	}
	waited := make(chan error, 1)
	go func() { waited <- cmd.Wait() }()
	select {
	case err := <-waited:
		if err != nil {
			t.Fatalf("exit after SIGTERM: %v, want status 0", err)
		}
	case <-time.After(20 * time.Second):
		t.Fatal("no exit within 20 s of SIGTERM")
	}
	if _, err := os.Stat(filepath.Join(dir, "stockade.db")); err != nil {
		t.Errorf("default store stockade.db not created in the working directory: %v", err)
	}
}

// TestServeLimitsAndCORS: -max-body-bytes refuses a larger body with 413
// and changes nothing, and -cors-origins lets the named origin's pages
// call the API and no other.
func TestServeLimitsAndCORS(t *testing.T) {
	t.Parallel()
	s := startServe(t, nil, "-store", "sqlite:"+filepath.Join(t.TempDir(), "l.db"),
		"-max-body-bytes", "16384", "-cors-origins", "https://shop.example")
	base := "http://" + s.addr

	big := `{"name":"` + strings.Repeat("x", 20000) + `","lat":1,"lon":2}`
	req, err := http.NewRequestWithContext(t.Context(), http.MethodPut, base+"/v1/locations/w1", strings.NewReader(big))
	if err != nil {
		t.Fatal(err)
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusRequestEntityTooLarge {
		t.Fatalf("PUT with a 20 kB body: %d, want 413", resp.StatusCode)
	}
	// Had the location been stored, stock could be set there.
	_, err = httpapi.NewClient(base, nil).SetStock(t.Context(), stockade.Key{SKU: "a", Location: "w1"}, 1, nil, nil)
	if code := stockade.ErrorCode(err); code != stockade.ENotFound {
		t.Fatalf("stock at the refused location: %v, want %s", err, stockade.ENotFound)
	}

	for origin, want := range map[string]string{"https://shop.example": "https://shop.example", "https://evil.example": ""} {
		req, err := http.NewRequestWithContext(t.Context(), http.MethodOptions, base+"/v1/orders", nil)
		if err != nil {
			t.Fatal(err)
		}
		req.Header.Set("Origin", origin)
		req.Header.Set("Access-Control-Request-Method", "POST")
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
		if got := resp.Header.Get("Access-Control-Allow-Origin"); got != want {
			t.Errorf("preflight from %s: Access-Control-Allow-Origin %q, want %q", origin, got, want)
		}
	}
}

// secretFile writes a webhook secret file of content and returns its path.
func secretFile(t *testing.T, content string) string {
	t.Helper()
	path := filepath.Join(t.TempDir(), "webhook-secrets")
	if err := os.WriteFile(path, []byte(content), 0o600); err != nil {
		t.Fatal(err)
	}
	return path
}

// TestServeWebhook: serve with a file of two webhook secrets (one being
// rotated out) applies outcomes signed with either, and refuses one
// signed with another; the outcome confirms the paid reservation.
func TestServeWebhook(t *testing.T) {
	t.Parallel()
	old, current := strings.Repeat("o", 32), strings.Repeat("c", 40)
	s := startServe(t, nil, "-store", "sqlite:"+filepath.Join(t.TempDir(), "pay.db"),
		"-webhook-secret-file", secretFile(t, "# the one being rotated out, then the new one\n"+old+"\n"+current+"\n"))
	c := httpapi.NewClient("http://"+s.addr, nil)
	ctx := t.Context()
	stockUp(t, c, "widget", 10)
	pay := func() stockade.Payment {
		t.Helper()
		r, err := c.Reserve(ctx, stockade.ReserveRequest{Lines: []stockade.Line{{SKU: "widget", Quantity: 2}}}, nil)
		if err != nil {
			t.Fatal(err)
		}
		p, err := c.CreatePayment(ctx, stockade.NewPaymentRequest{Target: stockade.PaymentTarget{Kind: stockade.PayReservation, ID: r.ID},
			Amount: 1000, Currency: "EUR"}, nil)
		if err != nil {
			t.Fatal(err)
		}
		return p
	}
	for i, secret := range []string{old, current} {
		p := pay()
		got, err := c.Webhook(ctx, []byte(secret), stockade.PaymentOutcome{EventID: fmt.Sprintf("evt-%d", i), PaymentID: p.ID, Status: stockade.PaymentSucceeded})
		if err != nil || got.Resolution != stockade.ResolvedConfirmed || got.Order == "" {
			t.Fatalf("an outcome signed with secret %d: %+v, %v", i, got, err)
		}
	}
	p := pay()
	_, err := c.Webhook(ctx, []byte(strings.Repeat("x", 32)), stockade.PaymentOutcome{EventID: "evt-x", PaymentID: p.ID, Status: stockade.PaymentSucceeded})
	if stockade.ErrorCode(err) != stockade.EUnauthenticated {
		t.Fatalf("an outcome signed with another secret: %v, want %s", err, stockade.EUnauthenticated)
	}
	if got, err := c.Payment(ctx, p.ID); err != nil || got.Status != stockade.PaymentPending {
		t.Errorf("the payment of the refused outcome: %+v, %v", got, err)
	}
}

// serveFlagHelp returns what "serve -h" says of each flag, by name, its
// lines joined with single spaces.
func serveFlagHelp(t *testing.T) map[string]string {
	t.Helper()
	out, _, err := runCmd(t, nil, "serve", "-h")
	if err != nil {
		t.Fatal(err)
	}
	_, list, ok := strings.Cut(out, "\nflags:\n")
	if !ok {
		t.Fatalf("serve -h has no flags:\n%s", out)
	}
	help := map[string]string{}
	var name string
	for line := range strings.Lines(list) {
		if rest, ok := strings.CutPrefix(line, "  -"); ok {
			name, _, _ = strings.Cut(strings.TrimSpace(rest), " ")
			help[name] = ""
			continue
		}
		if name != "" {
			help[name] = strings.TrimSpace(help[name] + " " + strings.Join(strings.Fields(line), " "))
		}
	}
	return help
}

// readmeServeFlags returns the rows of the README's table of serve's
// flags: the environment variable and the rest of each row, by flag name.
func readmeServeFlags(t *testing.T) (env, rest map[string]string) {
	t.Helper()
	readme, err := os.ReadFile(filepath.Join("..", "..", "README.md"))
	if err != nil {
		t.Fatal(err)
	}
	_, after, ok := strings.Cut(string(readme), "`stockade serve` flags")
	start := strings.Index(after, "\n|")
	if !ok || start < 0 {
		t.Fatal("README.md has no table of `stockade serve` flags")
	}
	table, _, _ := strings.Cut(after[start+1:], "\n\n")
	env, rest = map[string]string{}, map[string]string{}
	row := regexp.MustCompile("^\\| `-([a-z-]+)` \\| `([A-Z_]+)` \\| (.*)$")
	for line := range strings.Lines(table) {
		m := row.FindStringSubmatch(strings.TrimSpace(line))
		if m == nil {
			continue
		}
		env[m[1]], rest[m[1]] = m[2], m[3]
	}
	if len(env) == 0 {
		t.Fatalf("no rows in the README's table of serve's flags:\n%s", table)
	}
	return env, rest
}

// TestServeFlagsInREADME: the README's table of serve's flags has a row
// for every flag that "serve -h" prints, with its environment variable and
// a default, and no row for a flag that serve does not have.
func TestServeFlagsInREADME(t *testing.T) {
	t.Parallel()
	help := serveFlagHelp(t)
	readmeEnv, readmeRest := readmeServeFlags(t)
	envOf := regexp.MustCompile(`\(env (\w+)\)`)
	for _, name := range slices.Sorted(maps.Keys(help)) {
		m := envOf.FindStringSubmatch(help[name])
		if m == nil {
			t.Errorf("serve -h names no environment variable for -%s: %s", name, help[name])
			continue
		}
		switch env, ok := readmeEnv[name]; {
		case !ok:
			t.Errorf("the README's table of serve's flags has no row for -%s (%s)", name, m[1])
		case env != m[1]:
			t.Errorf("the README says -%s falls back on %s; serve -h says %s", name, env, m[1])
		case strings.HasPrefix(readmeRest[name], "|"):
			t.Errorf("the README gives no default for -%s", name)
		}
	}
	for _, name := range slices.Sorted(maps.Keys(readmeEnv)) {
		if _, ok := help[name]; !ok {
			t.Errorf("the README's table of serve's flags has a row for -%s, which serve -h does not list", name)
		}
	}
}

// TestWebhookSecretMinimumDocumented: the shortest webhook secret serve
// takes is stated in serve -h, in the README's table of serve's flags and
// in the OpenAPI document's webhookSignature scheme.
func TestWebhookSecretMinimumDocumented(t *testing.T) {
	t.Parallel()
	want := fmt.Sprintf("at least %d bytes", minSecretBytes)
	if help := serveFlagHelp(t)["webhook-secret-file"]; !strings.Contains(help, want) {
		t.Errorf("serve -h of -webhook-secret-file does not say %q: %s", want, help)
	}
	if _, row := readmeServeFlags(t); !strings.Contains(row["webhook-secret-file"], want) {
		t.Errorf("the README's row of -webhook-secret-file does not say %q: %s", want, row["webhook-secret-file"])
	}
	b, err := os.ReadFile(filepath.Join("..", "..", "httpapi", "openapi.json"))
	if err != nil {
		t.Fatal(err)
	}
	var spec struct {
		Components struct {
			SecuritySchemes map[string]struct {
				Description string `json:"description"`
			} `json:"securitySchemes"`
		} `json:"components"`
	}
	if err := json.Unmarshal(b, &spec); err != nil {
		t.Fatal(err)
	}
	if d := spec.Components.SecuritySchemes["webhookSignature"].Description; !strings.Contains(d, want) {
		t.Errorf("openapi.json's webhookSignature does not say %q: %s", want, d)
	}
}

// TestServeEventsCluster: -events takes the servers of a NATS cluster
// separated by commas, HOST:PORT alone as nats://HOST:PORT, and a refusal of such a list shows none of its
// passwords.
func TestServeEventsCluster(t *testing.T) {
	t.Parallel()
	list := "nats://n1:4222,tls://n2:4222,n3:4222"
	c, err := parseServe([]string{"-events", list}, func(string) string { return "" }, io.Discard, io.Discard)
	if err != nil {
		t.Fatal(err)
	}
	if c.events != list {
		t.Errorf("events %q, want %q", c.events, list)
	}
	_, err = parseServe([]string{"-events", "nats://u:hunter2@n1:4222,nats://u:hunter3@n2"}, func(string) string { return "" }, io.Discard, io.Discard)
	if err == nil || strings.Contains(err.Error(), "hunter") {
		t.Errorf("a list with a server without a port: %v, want a refusal without the passwords", err)
	}
}

// TestServeEventsKafka: -events takes the brokers of a Kafka cluster
// separated by commas, the scheme once or on each; and a refusal shows
// no password.
func TestServeEventsKafka(t *testing.T) {
	t.Parallel()
	c, err := parseServe([]string{"-events", "kafka://b1:9092, b2:9093,kafka://10.0.0.3:9094", "-events-partitions", "12"},
		func(string) string { return "" }, io.Discard, io.Discard)
	if err != nil {
		t.Fatal(err)
	}
	if want := []string{"b1:9092", "b2:9093", "10.0.0.3:9094"}; !slices.Equal(c.kafka, want) || c.events != "" || c.eventsParts != 12 {
		t.Errorf("kafka %q, nats %q, partitions %d; want %q, none, 12", c.kafka, c.events, c.eventsParts, want)
	}
	_, err = parseServe([]string{"-events", "kafka://u:hunter2@b1:9092"}, func(string) string { return "" }, io.Discard, io.Discard)
	if err == nil || strings.Contains(err.Error(), "hunter") || !strings.Contains(err.Error(), "want kafka://HOST:PORT") {
		t.Errorf("a broker with a password: %v, want a refusal without the password", err)
	}
}
