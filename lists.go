package stockade

const (
	// DefaultLocationLimit is how many locations a page holds when the
	// query does not say.
	DefaultLocationLimit = 100
	// MaxLocationLimit is the most locations one page holds.
	MaxLocationLimit = 1000
)

// LocationQuery asks Service.Locations for one page of the locations, in
// id order.
type LocationQuery struct {
	// Cursor is the Next of the page before, to read the page after it;
	// empty for the first page. It is opaque: only a cursor the service
	// gave out is accepted (EInvalid otherwise).
	Cursor string
	// Limit is the most locations in the page: 1 to MaxLocationLimit, or
	// 0 for DefaultLocationLimit.
	Limit int
}

// Validate refuses a query whose Limit is out of range. The service
// checks the Cursor when it reads it.
func (q LocationQuery) Validate() error {
	if q.Limit < 0 || q.Limit > MaxLocationLimit {
		return invalidf("limit: must be between 1 and %d (0 for %d), got %d", MaxLocationLimit, DefaultLocationLimit, q.Limit)
	}
	return nil
}

// LocationPage is one page of the locations, in id order. Following Next
// from the first page until it is empty reads every location that
// existed throughout the walk once.
type LocationPage struct {
	Locations []Location
	// Next is the cursor of the following page; empty on the last page.
	Next string
}

const (
	// DefaultSKULimit is how many SKUs a page holds when the query does
	// not say.
	DefaultSKULimit = 100
	// MaxSKULimit is the most SKUs one page holds.
	MaxSKULimit = 1000
)

// SKUQuery asks Service.SKUs for one page of the SKUs that have a level,
// in SKU order (byte order).
type SKUQuery struct {
	// Prefix, if set, keeps the SKUs that start with it.
	Prefix string
	// Cursor is the Next of the page before; empty for the first page.
	// It is opaque: only a cursor the service gave out is accepted.
	Cursor string
	// Limit is the most SKUs in the page: 1 to MaxSKULimit, or 0 for
	// DefaultSKULimit.
	Limit int
}

// Validate refuses a query whose Prefix is set but not a valid identifier,
// or whose Limit is out of range.
func (q SKUQuery) Validate() error {
	if q.Prefix != "" {
		if err := ValidateID("prefix", q.Prefix); err != nil {
			return err
		}
	}
	if q.Limit < 0 || q.Limit > MaxSKULimit {
		return invalidf("limit: must be between 1 and %d (0 for %d), got %d", MaxSKULimit, DefaultSKULimit, q.Limit)
	}
	return nil
}

// SKUTotals is a SKU and its counters summed over its locations.
type SKUTotals struct {
	SKU    string `json:"sku"`
	Totals Totals `json:"totals"`
}

// SKUPage is one page of the SKUs, in SKU order. Following Next from the
// first page until it is empty reads every SKU that had a level
// throughout the walk once.
type SKUPage struct {
	SKUs []SKUTotals
	// Next is the cursor of the following page; empty on the last page.
	Next string
}
