package engine

import (
	"cmp"
	"encoding/base64"
	"encoding/binary"
	"math"
	"time"

	"github.com/stockade/stockade"
)

// A movement cursor is the id of the last row of a page, which the next
// page starts after: the byte 'm' and the id as 8 bytes big-endian, in
// unpadded base64url, so that it travels in a URL as is. Clients treat it
// as opaque; the tag lets the service tell it from the cursors of other
// lists, and change its form later.
const movementCursorTag = 'm'

var cursorEncoding = base64.RawURLEncoding.Strict()

// movementCursor returns the cursor of the page after the row with id.
func movementCursor(id int64) string { return rowCursor(movementCursorTag, id) }

// parseMovementCursor returns the id a cursor made by movementCursor
// holds, or 0 for the empty cursor (the first page). Anything else is
// refused with EInvalid.
func parseMovementCursor(s string) (int64, error) { return parseRowCursor(s, movementCursorTag) }

// rowCursor returns a cursor that holds a row id after tag: the tag byte
// and the id as 8 bytes big-endian. Lists of rows with ids (the ledger,
// the seat history) page with it.
func rowCursor(tag byte, id int64) string {
	var b [9]byte
	b[0] = tag
	binary.BigEndian.PutUint64(b[1:], uint64(id))
	return cursorEncoding.EncodeToString(b[:])
}

// parseRowCursor reads a cursor that rowCursor made with tag: the id it
// holds, or 0 for the empty cursor (the first page). Anything else is
// refused with EInvalid.
func parseRowCursor(s string, tag byte) (int64, error) {
	if s == "" {
		return 0, nil
	}
	b, err := cursorEncoding.DecodeString(s)
	if err == nil && len(b) == 9 && b[0] == tag {
		if id := binary.BigEndian.Uint64(b[1:]); id > 0 && id <= math.MaxInt64 {
			return int64(id), nil
		}
	}
	return 0, malformedCursor()
}

// malformedCursor refuses a cursor that no page of the list handed
// out, and says what to pass instead.
func malformedCursor() error {
	return refuse(stockade.EInvalid, "cursor: malformed; set cursor to the next_cursor of a previous page of this list, "+
		"with the same filters, or leave it out for the first page")
}

// A location cursor is the id of the last location of a page: the byte
// 'l' and the id, in unpadded base64url.
const locationCursorTag = 'l'

// locationCursor returns the cursor of the page after the location id.
func locationCursor(id string) string { return idCursor(locationCursorTag, id) }

// idCursor returns a cursor that holds an identifier after tag: the
// reverse of parseIDCursor.
func idCursor(tag byte, id string) string {
	return cursorEncoding.EncodeToString(append([]byte{tag}, id...))
}

// parseLocationCursor returns the id a cursor made by locationCursor
// holds, or "" for the empty cursor (the first page). Anything else is
// refused with EInvalid.
func parseLocationCursor(s string) (string, error) {
	return parseIDCursor(s, locationCursorTag)
}

// parseIDCursor reads a cursor that holds an identifier after tag.
func parseIDCursor(s string, tag byte) (string, error) {
	if s == "" {
		return "", nil
	}
	b, err := cursorEncoding.DecodeString(s)
	if err == nil && len(b) > 1 && b[0] == tag {
		if id := string(b[1:]); stockade.ValidateID("cursor", id) == nil {
			return id, nil
		}
	}
	return "", malformedCursor()
}

// A SKU cursor is the last SKU of a page: the byte 's' and the SKU, in
// unpadded base64url.
const skuCursorTag = 's'

// skuCursor returns the cursor of the page after sku.
func skuCursor(sku string) string { return idCursor(skuCursorTag, sku) }

// parseSKUCursor returns the SKU a cursor made by skuCursor holds, or ""
// for the empty cursor (the first page). Anything else is refused with
// EInvalid.
func parseSKUCursor(s string) (string, error) {
	return parseIDCursor(s, skuCursorTag)
}

// listFilter returns the store filter of q, a query of the list whose
// cursors carry tag: one row more than the page holds, so that the page
// knows whether another follows, and for a storefront actor only what its
// key created.
func (c *call) listFilter(q stockade.ListQuery, tag byte) (stockade.ListFilter, error) {
	at, id, err := parseListCursor(q.Cursor, tag)
	if err != nil {
		return stockade.ListFilter{}, err
	}
	f := stockade.ListFilter{Status: q.Status, Metadata: q.Metadata, CreatedAfter: q.CreatedAfter, CreatedBefore: q.CreatedBefore,
		BeforeAt: at, BeforeID: id, Limit: cmp.Or(q.Limit, stockade.DefaultListLimit) + 1}
	if c.actor.Role == stockade.RoleStorefront {
		f.Owner = c.actor.KeyID
	}
	return f, nil
}

// listCursor returns the cursor of the page after the row created at at
// with id.
func listCursor(tag byte, at time.Time, id string) string {
	b := make([]byte, 9, 9+len(id))
	b[0] = tag
	binary.BigEndian.PutUint64(b[1:], uint64(at.UnixMicro()))
	return cursorEncoding.EncodeToString(append(b, id...))
}

// cutPage cuts rows, read one more than a page of limit holds, to the
// page, and returns with it the cursor of the page after it (listCursor
// of its last row, at and id by key), or "" when rows held no more.
func cutPage[T any](rows []T, limit int, tag byte, key func(T) (time.Time, string)) ([]T, string) {
	if len(rows) <= limit {
		return rows, ""
	}
	at, id := key(rows[limit-1])
	return rows[:limit], listCursor(tag, at, id)
}

// parseListCursor returns the time and id a cursor made by listCursor
// with tag holds, or zeros for the empty cursor (the first page).
// Anything else is refused with EInvalid.
func parseListCursor(s string, tag byte) (time.Time, string, error) {
	if s == "" {
		return time.Time{}, "", nil
	}
	b, err := cursorEncoding.DecodeString(s)
	if err == nil && len(b) > 9 && b[0] == tag {
		at, id := int64(binary.BigEndian.Uint64(b[1:9])), string(b[9:])
		if at > 0 && stockade.ValidateID("cursor", id) == nil {
			return time.UnixMicro(at).UTC(), id, nil
		}
	}
	return time.Time{}, "", malformedCursor()
}

// A reservation or order cursor is the last row of a page, which the next
// page starts after (the lists run newest first): a tag byte, the row's
// created_at in Unix microseconds as 8 bytes big-endian, and its id, in
// unpadded base64url.
const (
	reservationCursorTag = 'r'
	orderCursorTag       = 'o'
)
