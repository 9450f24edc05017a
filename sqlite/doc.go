// Package sqlite is stockade's embedded store: a single SQLite file opened
// through a pure-Go driver (no cgo), in WAL mode, so the service runs with no
// server to install.
//
// SQLite allows one writer at a time; the store serialises writes through a
// single connection and lets reads run in parallel on others.
package sqlite
