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
