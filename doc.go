// Package stockade is the domain of the stockade inventory service: stock
// per SKU and location, reservations that expire on their own, all-or-nothing
// orders, and the movement ledger that always balances; the seats and places
// of events, held and booked; and the payments of what is held, as a payment
// system reports them, whose statuses move only as PaymentTransitions allows.
//
// The package holds the nouns and the service interfaces and imports only the
// standard library. Adapters live in their own packages (sqlite, postgres,
// httpapi) and the binary in cmd/stockade wires them together.
//
// The lock library is the module github.com/stockade/stockade/lock, and the
// binary is the module github.com/stockade/stockade/cmd/stockade, the only
// one that requires the lock benchmark's rival libraries. The test kit that
// starts real servers is the module internal/testkit, required only by
// tests. A program that imports this module or the lock module so resolves
// nothing that is not published.
package stockade
