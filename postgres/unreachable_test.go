package postgres

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"syscall"
	"testing"

	"github.com/jackc/pgx/v5/pgconn"

	"github.com/stockade/stockade"
)

// TestUnreachable classifies the errors that a real server is hard to
// make on cue (a stream cut without a word, a reset), and those that must
// not count as the database being down.
func TestUnreachable(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name string
		err  error
		want bool
	}{
		{"stream ends", fmt.Errorf("failed to receive message: %w", io.ErrUnexpectedEOF), true},
		{"stream ends between messages", io.EOF, true},
		{"connection closed", fmt.Errorf("conn closed: %w", pgconn.ErrConnClosed), true},
		{"connection reset", &net.OpError{Op: "read", Net: "tcp", Err: syscall.ECONNRESET}, true},
		{"connection refused", &net.OpError{Op: "dial", Net: "tcp", Err: syscall.ECONNREFUSED}, true},
		{"connection failure", &pgconn.PgError{Code: "08006"}, true},
		{"admin shutdown", &pgconn.PgError{Code: "57P01"}, true},
		{"crash shutdown", &pgconn.PgError{Code: "57P02"}, true},
		{"cannot connect now", &pgconn.PgError{Code: "57P03"}, true},
		{"serialization failure", &pgconn.PgError{Code: "40001"}, false},
		{"query cancelled", &pgconn.PgError{Code: "57014"}, false},
		{"wrong password", &pgconn.PgError{Code: "28P01"}, false},
		{"syntax error", &pgconn.PgError{Code: "42601"}, false},
		{"other", errors.New("scan: wrong type"), false},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			if got := unreachable(tc.err); got != tc.want {
				t.Errorf("unreachable(%v) = %v, want %v", tc.err, got, tc.want)
			}
			err := mapError(t.Context(), "test", "", tc.err)
			if got := errors.Is(err, stockade.ErrUnavailable); got != tc.want {
				t.Errorf("mapError(%v) = %v: wraps ErrUnavailable %v, want %v", tc.err, err, got, tc.want)
			}
			if !errors.Is(err, tc.err) {
				t.Errorf("mapError(%v) = %v: lost the cause", tc.err, err)
			}
		})
	}

	// Once the caller's context has ended, a broken connection is the
	// deadline's doing.
	ctx, cancel := context.WithCancel(t.Context())
	cancel()
	if err := mapError(ctx, "test", "", io.ErrUnexpectedEOF); errors.Is(err, stockade.ErrUnavailable) || !errors.Is(err, context.Canceled) {
		t.Errorf("mapError after the context ended = %v, want context.Canceled and not ErrUnavailable", err)
	}
}
