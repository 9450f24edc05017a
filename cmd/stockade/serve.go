package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"log/slog"
	"net"
	"net/http"
	"strings"
	"time"

	"github.com/stockade/stockade/httpapi"
	"github.com/stockade/stockade/sqlite"
)

func serve(ctx context.Context, args []string, getenv func(string) string, stdout, stderr io.Writer) error {
	fs := flag.NewFlagSet("serve", flag.ContinueOnError)
	fs.SetOutput(stderr)
	addr := fs.String("addr", envDefault(getenv, "STOCKADE_ADDR", ":8080"),
		"listen address (env STOCKADE_ADDR)")
	store := fs.String("store", envDefault(getenv, "STOCKADE_STORE", "sqlite:stockade.db"),
		"store: sqlite:PATH (env STOCKADE_STORE)")
	shutdownTimeout := fs.Duration("shutdown-timeout", 15*time.Second,
		"how long in-flight requests may finish after SIGINT/SIGTERM")
	if err := fs.Parse(args); err != nil {
		return err
	}
	if fs.NArg() > 0 {
		return fmt.Errorf("serve: unexpected arguments %q", fs.Args())
	}
	log := slog.New(slog.NewTextHandler(stderr, nil))

	path, ok := strings.CutPrefix(*store, "sqlite:")
	if !ok {
		return fmt.Errorf("serve: unsupported -store %q: want sqlite:PATH", *store)
	}
	db, err := sqlite.Open(ctx, path, nil)
	if err != nil {
		return fmt.Errorf("serve: %w", err)
	}
	defer db.Close()
	if err := db.Migrate(ctx); err != nil {
		return fmt.Errorf("serve: %w", err)
	}

	ln, err := net.Listen("tcp", *addr)
	if err != nil {
		return fmt.Errorf("serve: %w", err)
	}
	srv := &http.Server{
		Handler:           httpapi.NewServer(log, db),
		ReadHeaderTimeout: 5 * time.Second,
		ReadTimeout:       30 * time.Second,
		WriteTimeout:      30 * time.Second,
		IdleTimeout:       2 * time.Minute,
		ErrorLog:          slog.NewLogLogger(log.Handler(), slog.LevelWarn),
		BaseContext:       func(net.Listener) context.Context { return context.WithoutCancel(ctx) },
	}
	log.Info("listening", "addr", ln.Addr().String(), "store", *store)

	errc := make(chan error, 1)
	go func() { errc <- srv.Serve(ln) }()
	select {
	case err := <-errc:
		return fmt.Errorf("serve: %w", err)
	case <-ctx.Done():
	}
	log.Info("shutting down", "timeout", *shutdownTimeout)
	sctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), *shutdownTimeout)
	defer cancel()
	if err := srv.Shutdown(sctx); err != nil {
		return fmt.Errorf("serve: shutdown: %w", err)
	}
	if err := <-errc; !errors.Is(err, http.ErrServerClosed) {
		return fmt.Errorf("serve: %w", err)
	}
	log.Info("stopped")
	return nil
}
