package sqlite

import _ "embed"

// The statements, one per file in queries/, each file saying what it does
// and what its parameters are. Parameters are numbered (?1, ?2, …) so that
// a statement may use one twice. A few files end where the store appends
// what varies in length: the rows of a multi-row INSERT (insertRows) and
// the WHERE clause of movements.sql.
var (
	//go:embed queries/put_location.sql
	putLocationSQL string
	//go:embed queries/locations.sql
	locationsSQL string
	//go:embed queries/location_exists.sql
	locationExistsSQL string
	//go:embed queries/levels.sql
	levelsSQL string
	//go:embed queries/sku_level.sql
	skuLevelSQL string
	//go:embed queries/sku_levels.sql
	skuLevelsSQL string
	//go:embed queries/all_levels.sql
	allLevelsSQL string
	//go:embed queries/set_on_hand.sql
	setOnHandSQL string
	//go:embed queries/set_on_hand_new.sql
	setOnHandNewSQL string
	//go:embed queries/set_on_hand_at.sql
	setOnHandAtSQL string
	//go:embed queries/update_level.sql
	updateLevelSQL string
	//go:embed queries/append_movements.sql
	appendMovementsSQL string
	//go:embed queries/movements.sql
	movementsSQL string
	//go:embed queries/ledger_sums.sql
	ledgerSumsSQL string
	//go:embed queries/record_sums.sql
	recordSumsSQL string
	//go:embed queries/insert_reservations.sql
	insertReservationsSQL string
	//go:embed queries/insert_reservation_allocations.sql
	insertReservationAllocationsSQL string
	//go:embed queries/reservation.sql
	reservationSQL string
	//go:embed queries/reservations.sql
	reservationsSQL string
	//go:embed queries/set_reservation_status.sql
	setReservationStatusSQL string
	//go:embed queries/lapsed_reservations.sql
	lapsedReservationsSQL string
	//go:embed queries/lapsed_reservations_keys.sql
	lapsedReservationsKeysSQL string
	//go:embed queries/insert_orders.sql
	insertOrdersSQL string
	//go:embed queries/order.sql
	orderSQL string
	//go:embed queries/set_order_status.sql
	setOrderStatusSQL string
	//go:embed queries/idempotency.sql
	idempotencySQL string
	//go:embed queries/idempotencies.sql
	idempotenciesSQL string
	//go:embed queries/put_idempotency.sql
	putIdempotencySQL string
	//go:embed queries/purge_idempotency.sql
	purgeIdempotencySQL string
	//go:embed queries/migrate_table.sql
	migrateTableSQL string
	//go:embed queries/migrate_applied.sql
	migrateAppliedSQL string
	//go:embed queries/migrate_record.sql
	migrateRecordSQL string
	//go:embed queries/migrate_has_table.sql
	migrateHasTableSQL string
	//go:embed queries/migrate_version.sql
	migrateVersionSQL string
)
