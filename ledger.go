package stockade

// Pages of the ledger: how many rows Service.Movements returns at once.
const (
	// DefaultMovementLimit is the size of a page of movements when the
	// query sets no Limit.
	DefaultMovementLimit = 1000
	// MaxMovementLimit is the largest page of movements a query may ask
	// for.
	MaxMovementLimit = 10000
)

// MovementQuery asks Service.Movements for one page of the ledger. Zero
// fields match everything.
type MovementQuery struct {
	SKU      string
	Location string
	Ref      string
	// Cursor is the Next of the page before, to read the page after it;
	// empty for the first page. It is opaque: only a cursor the service
	// gave out is accepted (EInvalid otherwise), with any filter.
	Cursor string
	// Limit is the most rows in the page: 1 to MaxMovementLimit, or 0 for
	// DefaultMovementLimit.
	Limit int
}

// Validate refuses a query whose SKU, location or ref is set but not a
// valid identifier, or whose Limit is out of range. The service checks
// the Cursor when it reads it.
func (q MovementQuery) Validate() error {
	for _, f := range []struct{ field, v string }{{"sku", q.SKU}, {"location", q.Location}, {"ref", q.Ref}} {
		if f.v == "" {
			continue
		}
		if err := ValidateID(f.field, f.v); err != nil {
			return err
		}
	}
	if q.Limit < 0 || q.Limit > MaxMovementLimit {
		return invalidf("limit: must be between 1 and %d (0 for %d), got %d", MaxMovementLimit, DefaultMovementLimit, q.Limit)
	}
	return nil
}

// MovementPage is one page of the ledger, oldest row first.
//
// Following Next from the first page until it is empty reads the rows
// that match, in id order, each once, as each page finds them: rows
// appended meanwhile come in later pages. Whether a row can be missed
// depends on the store. SQLite hands out ids in commit order (it has one
// writer), so nothing is. PostgreSQL hands them out when a row is
// inserted, and the row becomes visible when its transaction commits: a
// row that commits after a page ending at a larger id was read falls
// behind the cursor and is missed. Once writes have stopped, a walk from
// the first page reads every row.
type MovementPage struct {
	Movements []Movement
	// Next is the cursor of the following page; empty when no more rows
	// matched when this page was read.
	Next string
}
