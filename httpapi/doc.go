// Package httpapi serves stockade's HTTP API: JSON in and out, errors as
// RFC 9457 problem+json documents carrying a stable code.
//
// routes.go lists every route on one page; errors.go holds the one table that
// maps stockade error codes to HTTP statuses.
package httpapi
