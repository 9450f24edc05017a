package main

import (
	"bytes"
	"io"
	"net/http"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stockade/stockade"
	"github.com/stockade/stockade/httpapi"
)

// keysRun runs "stockade keys args…" and returns its stdout and stderr.
func keysRun(t *testing.T, args ...string) (string, string, error) {
	t.Helper()
	var stdout, stderr bytes.Buffer
	err := run(t.Context(), append([]string{"stockade", "keys"}, args...), func(string) string { return "" }, &stdout, &stderr)
	return stdout.String(), stderr.String(), err
}

// TestKeysCommand: a key made by "stockade keys create" is printed alone
// on stdout, is the only way into a server that is not open, and shows in
// no list or log.
func TestKeysCommand(t *testing.T) {
	t.Parallel()
	store := "sqlite:" + filepath.Join(t.TempDir(), "keys.db")
	s := startServe(t, nil, "-open=false", "-store", store, "-log-level", "debug")
	if !strings.Contains(s.log.String(), "no API keys yet") {
		t.Errorf("serve on a store without keys does not say how to make one:\n%s", s.log)
	}
	resp, err := http.Get("http://" + s.addr + "/v1/stock")
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != 401 || resp.Header.Get("WWW-Authenticate") == "" {
		t.Fatalf("no key: %s, WWW-Authenticate %q; want 401 with a challenge", resp.Status, resp.Header.Get("WWW-Authenticate"))
	}

	secret, msg, err := keysRun(t, "create", "-store", store, "-role", "admin", "-name", "ops")
	if err != nil {
		t.Fatalf("keys create: %v\n%s", err, msg)
	}
	secret = strings.TrimSuffix(secret, "\n")
	if _, ok := stockade.KeyIDOfSecret(secret); !ok || strings.ContainsAny(secret, " \n") {
		t.Fatalf("keys create printed %q, want the secret alone", secret)
	}
	if strings.Contains(msg, secret) || !strings.Contains(msg, `admin key "ops"`) {
		t.Errorf("keys create said %q on stderr", msg)
	}
	for _, bad := range [][]string{
		{"create", "-store", store, "-role", "admin", "-name", "ops"},
		{"create", "-store", store, "-role", "root", "-name", "x"},
		{"create", "-store", store, "-role", "reader"},
		{"create", "-store", store, "-role", "reader", "-name", "y", "-rate-limit", "-3"},
		{"revoke", "-store", store, "-id", "key_nope"},
		{"rotate"},
	} {
		if out, _, err := keysRun(t, bad...); err == nil || out != "" {
			t.Errorf("keys %q: %v, stdout %q; want an error and nothing printed", bad, err, out)
		}
	}

	c := httpapi.NewClient("http://"+s.addr, nil).WithKey(secret)
	if _, err := c.PutLocation(t.Context(), stockade.Location{ID: "east", Name: "East"}, nil); err != nil {
		t.Fatalf("with the key: %v", err)
	}
	reader, _, err := c.CreateKey(t.Context(), stockade.NewKeyRequest{Name: "audit", Role: stockade.RoleReader})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := httpapi.NewClient("http://"+s.addr, nil).PutLocation(t.Context(), stockade.Location{ID: "west"}, nil); stockade.ErrorCode(err) != stockade.EUnauthenticated {
		t.Errorf("without the key: %v, want %s", err, stockade.EUnauthenticated)
	}

	list, _, err := keysRun(t, "list", "-store", store)
	if err != nil {
		t.Fatal(err)
	}
	random := secret[strings.LastIndex(secret, "_")+1:]
	if strings.Contains(list, random) || !strings.Contains(list, "ops") || !strings.Contains(list, reader.ID) {
		t.Errorf("keys list:\n%s", list)
	}
	out, _, err := keysRun(t, "revoke", "-store", store, "-id", reader.ID)
	if err != nil || !strings.Contains(out, "revoked reader key \"audit\"") {
		t.Errorf("keys revoke: %q, %v", out, err)
	}
	if list, _, _ = keysRun(t, "list", "-store", store); !strings.Contains(list, "audit") || strings.Count(list, "\n") != 3 {
		t.Errorf("keys list after the revocation:\n%s", list)
	}
	if err := s.stop(); err != nil {
		t.Fatal(err)
	}
	if strings.Contains(s.log.String(), random) {
		t.Errorf("the secret is in serve's log:\n%s", s.log)
	}
}

// TestServeOpenOnLoopbackOnly: -open refuses an address that is not a
// loopback one, before it serves anything.
func TestServeOpenOnLoopbackOnly(t *testing.T) {
	t.Parallel()
	err := run(t.Context(), []string{"stockade", "serve", "-open", "-addr", "0.0.0.0:0",
		"-store", "sqlite:" + filepath.Join(t.TempDir(), "o.db")}, func(string) string { return "" }, io.Discard, io.Discard)
	if err == nil || !strings.Contains(err.Error(), "loopback") {
		t.Errorf("serve -open on 0.0.0.0: %v, want a refusal naming loopback", err)
	}
}
