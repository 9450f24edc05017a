package main

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"net"
	"net/url"
	"os"
	"strings"
	"time"

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
	// idleInTransaction is postgres.Options.IdleInTransaction; 0 for its
	// default.
	idleInTransaction time.Duration
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

// String describes the store for logs and messages, its secrets masked.
// arg is the store as -store takes it, password and all, to pass on to
// another process.
func (s storeSpec) arg() string {
	if s.kind == "sqlite" {
		return "sqlite:" + s.path
	}
	return s.url
}

// local says whether the store is a PostgreSQL on this machine: at a
// loopback address, on a Unix socket, or at no host given.
func (s storeSpec) local() bool {
	if s.kind != "postgres" {
		return false
	}
	u, err := url.Parse(s.url)
	if err != nil {
		return false
	}
	host := u.Query().Get("host") // a socket directory, as libpq takes it
	if host == "" {
		host = u.Hostname()
	}
	if host == "" || host == "localhost" || strings.HasPrefix(host, "/") {
		return true
	}
	ip := net.ParseIP(host)
	return ip != nil && ip.IsLoopback()
}

func (s storeSpec) String() string {
	if s.kind == "sqlite" {
		return redact("sqlite:" + s.path)
	}
	return redact(s.url)
}

// redactURLError drops the URL, which may hold a password, from a parse
// error.
func redactURLError(err error) error {
	if ue, ok := errors.AsType[*url.Error](err); ok {
		return ue.Err
	}
	return err
}

// migratingStore is a store that can bring its schema up to date and say
// how far it is.
type migratingStore interface {
	stockade.Store
	Migrate(ctx context.Context) error
	SchemaVersion(ctx context.Context) (version, latest int, err error)
}

// errNoSchema is the error of a read-only openStore on a database that
// Migrate has not been run on.
var errNoSchema = errors.New("no stockade schema")

// openStore opens the store of spec. With readOnly it changes nothing: a
// missing SQLite file is not created, an existing one is opened read-only,
// and a database whose schema is not this build's is refused, with an
// error wrapping errNoSchema if it has none.
func openStore(ctx context.Context, spec storeSpec, readOnly bool) (migratingStore, error) {
	var st migratingStore
	switch spec.kind {
	case "sqlite":
		if readOnly {
			if _, err := os.Stat(spec.path); errors.Is(err, fs.ErrNotExist) {
				return nil, fmt.Errorf("%w in DB %s (no such file); run `stockade migrate` first", errNoSchema, spec)
			}
		}
		s, err := sqlite.Open(ctx, spec.path, &sqlite.Options{ReadOnly: readOnly})
		if err != nil {
			return nil, err
		}
		st = s
	case "postgres":
		s, err := postgres.Open(ctx, spec.url, &postgres.Options{IdleInTransaction: spec.idleInTransaction})
		if err != nil {
			return nil, fmt.Errorf("store %s: %w", spec, err)
		}
		st = s
	default:
		return nil, fmt.Errorf("unsupported store kind %q", spec.kind)
	}
	if readOnly {
		if err := checkSchema(ctx, st, spec); err != nil {
			st.Close()
			return nil, err
		}
	}
	return st, nil
}

// checkSchema returns an error unless st has been migrated to this
// build's schema, neither less nor more.
func checkSchema(ctx context.Context, st migratingStore, spec storeSpec) error {
	version, latest, err := st.SchemaVersion(ctx)
	switch {
	case err != nil:
		return fmt.Errorf("store %s: %w", spec, err)
	case version == 0:
		return fmt.Errorf("%w in DB %s; run `stockade migrate` first", errNoSchema, spec)
	case version < latest:
		return fmt.Errorf("the stockade schema in DB %s is at version %d of %d; run `stockade migrate` first", spec, version, latest)
	case version > latest:
		return fmt.Errorf("the stockade schema in DB %s is at version %d, newer than this stockade's %d; use a newer stockade", spec, version, latest)
	}
	return nil
}
