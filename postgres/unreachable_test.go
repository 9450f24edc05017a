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
// make on cue (a stream cut without a word, a reset, a late cancel
// request), and those that must not count as the database being down.
// unavailable is whether mapError makes the error stockade.ErrUnavailable:
// every unreachable one, and a statement cancelled by the server.
func TestUnreachable(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name        string
		err         error
		unreachable bool
		unavailable bool
	}{
		{"stream ends", fmt.Errorf("failed to receive message: %w", io.ErrUnexpectedEOF), true, true},
		{"stream ends between messages", io.EOF, true, true},
		{"connection closed", fmt.Errorf("conn closed: %w", pgconn.ErrConnClosed), true, true},
		{"connection reset", &net.OpError{Op: "read", Net: "tcp", Err: syscall.ECONNRESET}, true, true},
		{"connection refused", &net.OpError{Op: "dial", Net: "tcp", Err: syscall.ECONNREFUSED}, true, true},
		{"connection failure", &pgconn.PgError{Code: "08006"}, true, true},
		{"admin shutdown", &pgconn.PgError{Code: "57P01"}, true, true},
		{"crash shutdown", &pgconn.PgError{Code: "57P02"}, true, true},
		{"cannot connect now", &pgconn.PgError{Code: "57P03"}, true, true},
		{"serialization failure", &pgconn.PgError{Code: "40001"}, false, false},
		{"query cancelled", &pgconn.PgError{Code: "57014"}, false, true},
		{"wrong password", &pgconn.PgError{Code: "28P01"}, false, false},
		{"syntax error", &pgconn.PgError{Code: "42601"}, false, false},
		{"other", errors.New("scan: wrong type"), false, false},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			if got := unreachable(tc.err); got != tc.unreachable {
				t.Errorf("unreachable(%v) = %v, want %v", tc.err, got, tc.unreachable)
			}
			err := mapError(t.Context(), "test", "", tc.err)
			if got := errors.Is(err, stockade.ErrUnavailable); got != tc.unavailable {
				t.Errorf("mapError(%v) = %v: wraps ErrUnavailable %v, want %v", tc.err, err, got, tc.unavailable)
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
	for _, cause := range []error{io.ErrUnexpectedEOF, &pgconn.PgError{Code: "57014"}} {
		if err := mapError(ctx, "test", "", cause); errors.Is(err, stockade.ErrUnavailable) || !errors.Is(err, context.Canceled) {
			t.Errorf("mapError(%v) after the context ended = %v, want context.Canceled and not ErrUnavailable", cause, err)
		}
	}
}
