package testserver

import (
	"bufio"
	"bytes"
	"context"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"net"
)

// pgQuery runs one statement on the PostgreSQL server at addr as user
// postgres, which the server trusts, and returns the first column of each
// row. It speaks just enough of the frontend/backend protocol (version 3,
// simple query) to check readiness and create databases without a driver.
func pgQuery(ctx context.Context, addr, database, query string) ([]string, error) {
	var d net.Dialer
	conn, err := d.DialContext(ctx, "tcp", addr)
	if err != nil {
		return nil, err
	}
	defer conn.Close()
	if deadline, ok := ctx.Deadline(); ok {
		conn.SetDeadline(deadline)
	}
	br := bufio.NewReader(conn)

	// StartupMessage: length, protocol 3.0, name/value pairs, terminator.
	msg := binary.BigEndian.AppendUint32(nil, 0)
	msg = binary.BigEndian.AppendUint32(msg, 3<<16)
	for _, s := range []string{"user", "postgres", "database", database, "application_name", "testserver"} {
		msg = append(append(msg, s...), 0)
	}
	msg = append(msg, 0)
	binary.BigEndian.PutUint32(msg, uint32(len(msg)))
	if _, err := conn.Write(msg); err != nil {
		return nil, err
	}
	if _, err := pgReadUntilReady(br); err != nil {
		return nil, err
	}

	// Query: type, length, statement.
	msg = append([]byte{'Q'}, binary.BigEndian.AppendUint32(nil, uint32(4+len(query)+1))...)
	msg = append(append(msg, query...), 0)
	if _, err := conn.Write(msg); err != nil {
		return nil, err
	}
	rows, err := pgReadUntilReady(br)
	conn.Write([]byte{'X', 0, 0, 0, 4}) // Terminate
	return rows, err
}

// pgReadUntilReady reads backend messages up to ReadyForQuery and returns
// the first column of every DataRow, or the first ErrorResponse.
func pgReadUntilReady(br *bufio.Reader) ([]string, error) {
	var rows []string
	var pgErr error
	for {
		var head [5]byte
		if _, err := io.ReadFull(br, head[:]); err != nil {
			return nil, err
		}
		n := binary.BigEndian.Uint32(head[1:])
		if n < 4 || n > 1<<24 {
			return nil, fmt.Errorf("postgres protocol: message %q of length %d", head[0], n)
		}
		body := make([]byte, n-4)
		if _, err := io.ReadFull(br, body); err != nil {
			return nil, err
		}
		switch head[0] {
		case 'R': // Authentication request
			if len(body) < 4 || binary.BigEndian.Uint32(body) != 0 {
				return nil, errors.New("postgres protocol: server asks for a password; want trust authentication")
			}
		case 'E': // ErrorResponse; a FATAL one ends the session
			e := pgParseError(body)
			if e.severity == "FATAL" || e.severity == "PANIC" {
				return nil, e
			}
			if pgErr == nil {
				pgErr = e
			}
		case 'D': // DataRow: column count, then length-prefixed values
			if len(body) >= 6 && binary.BigEndian.Uint16(body) > 0 {
				l := int32(binary.BigEndian.Uint32(body[2:]))
				if l >= 0 && int(l) <= len(body)-6 {
					rows = append(rows, string(body[6:6+l]))
				} else {
					rows = append(rows, "")
				}
			}
		case 'Z': // ReadyForQuery
			return rows, pgErr
		}
	}
}

// pgError is an ErrorResponse from the server.
type pgError struct {
	severity, code, message string
}

func (e *pgError) Error() string {
	return fmt.Sprintf("postgres: %s %s: %s", e.severity, e.code, e.message)
}

// pgParseError decodes an ErrorResponse body: fields of a type byte and a
// NUL-terminated value, ending with a NUL.
func pgParseError(body []byte) *pgError {
	var e pgError
	for len(body) > 1 {
		field := body[0]
		value, rest, _ := bytes.Cut(body[1:], []byte{0})
		body = rest
		switch field {
		case 'V': // severity, never localized
			e.severity = string(value)
		case 'S':
			if e.severity == "" {
				e.severity = string(value)
			}
		case 'C':
			e.code = string(value)
		case 'M':
			e.message = string(value)
		}
	}
	return &e
}
