package main

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"net/url"
	"os"
	"strings"

	"github.com/stockade/stockade"
	"github.com/stockade/stockade/postgres"
	"github.com/stockade/stockade/sqlite"
)

// storeUsage describes the -store flag.
const storeUsage = "store: sqlite:PATH or postgres://USER@HOST:PORT/DB?…"

// storeSpec is a parsed -store value.
type storeSpec struct {
	kind string // "sqlite" or "postgres"
	path string // sqlite: the file
	url  string // postgres: the connection URL
}

func parseStore(spec string) (storeSpec, error) {
	if path, ok := strings.CutPrefix(spec, "sqlite:"); ok {
		if path == "" {
			return storeSpec{}, fmt.Errorf("-store %q: no file given, want sqlite:PATH", spec)
		}
		return storeSpec{kind: "sqlite", path: path}, nil
	}
	if strings.HasPrefix(spec, "postgres://") || strings.HasPrefix(spec, "postgresql://") {
		if _, err := url.Parse(spec); err != nil {
			return storeSpec{}, fmt.Errorf("-store: bad PostgreSQL URL: %v", redactURLError(err))
		}
		return storeSpec{kind: "postgres", url: spec}, nil
	}
	return storeSpec{}, fmt.Errorf("unsupported -store %q: want sqlite:PATH or postgres://…", redact(spec))
}

// String describes the store for logs, without a password.
func (s storeSpec) String() string {
	if s.kind == "sqlite" {
		return "sqlite:" + s.path
	}
	return redact(s.url)
}

// redact removes the password from a URL, if it parses as one.
func redact(spec string) string {
	u, err := url.Parse(spec)
	if err != nil || u.User == nil {
		if err != nil && strings.Contains(spec, "@") {
			return "(a URL that does not parse)"
		}
		return spec
	}
	return u.Redacted()
}

// redactURLError drops the URL, which may hold a password, from a parse
// error.
func redactURLError(err error) error {
	if ue, ok := errors.AsType[*url.Error](err); ok {
		return ue.Err
	}
	return err
}

// migratingStore is a store that can bring its schema up to date.
type migratingStore interface {
	stockade.Store
	Migrate(ctx context.Context) error
}

// openStore opens the store of spec. With mustExist, a missing SQLite
// file is an error rather than a new, empty database.
func openStore(ctx context.Context, spec storeSpec, mustExist bool) (migratingStore, error) {
	switch spec.kind {
	case "sqlite":
		if mustExist {
			if _, err := os.Stat(spec.path); errors.Is(err, fs.ErrNotExist) {
				return nil, fmt.Errorf("store %s: no such file", spec)
			}
		}
		st, err := sqlite.Open(ctx, spec.path, nil)
		if err != nil {
			return nil, err
		}
		return st, nil
	case "postgres":
		st, err := postgres.Open(ctx, spec.url, nil)
		if err != nil {
			return nil, fmt.Errorf("store %s: %w", spec, err)
		}
		return st, nil
	}
	return nil, fmt.Errorf("unsupported store kind %q", spec.kind)
}
