// Package console is stockade's operator console: a web page, built into
// the binary, that shows stock, reservations, orders, shows with their
// seat maps, waiting rooms, the live event feed and the locks, and lets
// an admin adjust stock, release or cancel what is held, and close or
// open again a waiting room.
//
// The page is plain HTML, CSS and JavaScript in assets/, embedded in the
// binary: building it needs no JavaScript toolchain, and there is nothing
// to rebuild. It uses only the public HTTP API (package
// httpapi), with the operator's API key, which it keeps in the browser
// tab's sessionStorage and sends as a Bearer token; it never reaches the
// server in a URL. An admin key sees the buttons that change things; a
// reader key sees the same pages without them. Other keys are refused at
// sign-in.
//
// It stays current through the event stream (GET /v1/events/stream),
// read with fetch so that the key goes in a header (EventSource cannot
// send one). It starts at the end of the feed (?after=latest) and, when
// the stream drops, reconnects with the id of the last event it applied
// as Last-Event-ID, so it misses nothing and applies nothing twice.
// Pages change with the events they show; none re-reads a list on a
// timer, but for the waiting rooms': visitors join and are admitted
// without an event, so the rooms page and a room's page read the rooms
// (GET /v1/rooms, GET /v1/rooms/{id}) every second while they are open
// and the tab is in view, and measure the admissions per minute from the
// change of the admitted count between those reads. The overview reads
// /metrics every few seconds for latency.
//
// A show's page reads only the seats it draws: every seat of a show of
// up to 2,000, or else none until a section is chosen, and then that
// section's. Its counts by section and category are the service's
// (GET /v1/shows/{id}), read again as seat events arrive.
//
// stockade serve mounts Handler at Path:
//
//	mux.Handle(console.Path, console.Handler())
package console
