package sqlite

import (
	"embed"
	"strings"
)

// The statements, one per file in queries/, each file saying what it does
// and what its parameters are. Parameters are numbered (?1, ?2, …) so that
// a statement may use one twice. A few files end where the store appends
// what varies in length: the rows of a multi-row INSERT (insertRows) and
// the WHERE clauses of movements.sql, events.sql and the list_*.sql
// files.
//
//go:embed queries/*.sql
var queryFiles embed.FS

// query returns the statement in queries/name as it is sent: without the
// comment lines, which SQLite would tokenize again on every call, and
// without the closing semicolon, ending in a line break so that the store
// may append to it. The driver takes whatever follows a semicolon, even a
// line break, for one more statement to prepare on every call, which
// measurably slows every statement (see docs/benchmarks.md).
func query(name string) string {
	b, err := queryFiles.ReadFile("queries/" + name)
	if err != nil {
		panic("sqlite: " + err.Error()) // embedded: cannot happen
	}
	var q strings.Builder
	for line := range strings.Lines(string(b)) {
		if !strings.HasPrefix(strings.TrimSpace(line), "--") {
			q.WriteString(line)
		}
	}
	return strings.TrimRight(strings.TrimSpace(q.String()), ";") + "\n"
}

var (
	putLocationSQL                    = query("put_location.sql")
	locationsSQL                      = query("locations.sql")
	skuTotalsSQL                      = query("sku_totals.sql")
	locationExistsSQL                 = query("location_exists.sql")
	levelsSQL                         = query("levels.sql")
	skuLevelSQL                       = query("sku_level.sql")
	skuLevelsSQL                      = query("sku_levels.sql")
	allLevelsSQL                      = query("all_levels.sql")
	setOnHandSQL                      = query("set_on_hand.sql")
	setOnHandNewSQL                   = query("set_on_hand_new.sql")
	setOnHandAtSQL                    = query("set_on_hand_at.sql")
	updateLevelSQL                    = query("update_level.sql")
	appendMovementsSQL                = query("append_movements.sql")
	movementsSQL                      = query("movements.sql")
	ledgerSumsSQL                     = query("ledger_sums.sql")
	recordSumsSQL                     = query("record_sums.sql")
	insertReservationsSQL             = query("insert_reservations.sql")
	insertReservationAllocationsSQL   = query("insert_reservation_allocations.sql")
	reservationSQL                    = query("reservation.sql")
	reservationsSQL                   = query("reservations.sql")
	setReservationStatusSQL           = query("set_reservation_status.sql")
	reservationLapseCandidatesSQL     = query("reservation_lapse_candidates.sql")
	reservationLapseCandidatesKeysSQL = query("reservation_lapse_candidates_keys.sql")
	insertOrdersSQL                   = query("insert_orders.sql")
	orderSQL                          = query("order.sql")
	setOrderStatusSQL                 = query("set_order_status.sql")
	listReservationsSQL               = query("list_reservations.sql")
	listOrdersSQL                     = query("list_orders.sql")
	listHoldsSQL                      = query("list_holds.sql")
	locationLevelsSQL                 = query("location_levels.sql")
	listBookingsSQL                   = query("list_bookings.sql")
	insertKeySQL                      = query("insert_key.sql")
	keySQL                            = query("key.sql")
	keyNamedSQL                       = query("key_named.sql")
	keysSQL                           = query("keys.sql")
	revokeKeySQL                      = query("revoke_key.sql")
	appendEventsSQL                   = query("append_events.sql")
	eventsSQL                         = query("events.sql")
	pruneEventsSQL                    = query("prune_events.sql")
	latestEventPositionSQL            = query("latest_event_position.sql")
	relayPositionSQL                  = query("relay_position.sql")
	setRelayPositionSQL               = query("set_relay_position.sql")
	idempotenciesSQL                  = query("idempotencies.sql")
	putIdempotencySQL                 = query("put_idempotency.sql")
	purgeIdempotencySQL               = query("purge_idempotency.sql")
	migrateTableSQL                   = query("migrate_table.sql")
	migrateAppliedSQL                 = query("migrate_applied.sql")
	migrateRecordSQL                  = query("migrate_record.sql")
	migrateHasTableSQL                = query("migrate_has_table.sql")
	migrateVersionSQL                 = query("migrate_version.sql")
)
