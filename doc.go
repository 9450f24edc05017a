// Package stockade is the domain of the stockade inventory service: stock
// per SKU and location, reservations that expire on their own, all-or-nothing
// orders, and the movement ledger that always balances.
//
// The package holds the nouns and the service interfaces and imports only the
// standard library. Adapters live in their own packages (sqlite, postgres,
// httpapi) and the binary in cmd/stockade wires them together.
package stockade
