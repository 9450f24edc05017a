package engine

import (
	"maps"
	"slices"
	"time"

	"github.com/stockade/stockade"
)

// The engine's checks are the domain's (stockade.ValidateID and the
// other Validate functions): one set of limits, one wording.

// checkID refuses an identifier that stockade.ValidateID refuses; what
// names it in the message.
func checkID(what, id string) error { return stockade.ValidateID(what, id) }

// checkLocation refuses a location that Location.Validate refuses.
func checkLocation(loc stockade.Location) error { return loc.Validate() }

// need is what a request asks of one SKU at one location, or anywhere
// when Location is empty: its lines merged.
type need struct {
	SKU      string
	Location string
	Quantity int64
}

func (n need) key() stockade.Key { return stockade.Key{SKU: n.SKU, Location: n.Location} }

// request is a validated ReserveRequest.
type request struct {
	lines  []stockade.Line
	needs  []need // merged per (SKU, location), sorted, "" location first per SKU
	ttl    time.Duration
	shipTo *stockade.Point
	meta   stockade.Metadata // nil when empty
	// admission is the call's proof of admission, or nil.
	admission *stockade.AdmissionProof

	located  []stockade.Key // the keys that needs name, sorted
	anywhere []string       // the SKUs with a need without location, sorted
	skus     []string       // every SKU, sorted
}

// checkRequest validates req with ReserveRequest.Validate against
// Options.MaxTTL, and merges its lines. A checkout ignores the TTL.
func (e *Engine) checkRequest(req stockade.ReserveRequest, checkout bool) (*request, error) {
	if checkout {
		req.TTL = 0
	}
	if err := req.Validate(e.opts.MaxTTL); err != nil {
		return nil, err
	}
	r := &request{lines: slices.Clone(req.Lines), ttl: e.opts.DefaultTTL}
	if req.TTL > 0 {
		r.ttl = req.TTL
	}
	if req.ShipTo != nil {
		p := *req.ShipTo
		r.shipTo = &p
	}
	if len(req.Metadata) > 0 {
		r.meta = maps.Clone(req.Metadata)
	}
	if req.Admission != nil {
		p := *req.Admission
		r.admission = &p
	}
	merged := map[stockade.Key]int64{}
	for _, l := range req.Lines {
		merged[stockade.Key{SKU: l.SKU, Location: l.Location}] += l.Quantity // ≤ stockade.MaxLines × MaxQuantity: no overflow
	}
	for k, q := range merged {
		r.needs = append(r.needs, need{SKU: k.SKU, Location: k.Location, Quantity: q})
		if k.Location == "" {
			r.anywhere = append(r.anywhere, k.SKU)
		} else {
			r.located = append(r.located, k)
		}
		r.skus = append(r.skus, k.SKU)
	}
	slices.SortFunc(r.needs, func(a, b need) int { return a.key().Compare(b.key()) })
	slices.SortFunc(r.located, stockade.Key.Compare)
	slices.Sort(r.anywhere)
	slices.Sort(r.skus)
	r.skus = slices.Compact(r.skus)
	return r, nil
}

// sortedKeys returns the keys of m in key order.
func sortedKeys[V any](m map[stockade.Key]V) []stockade.Key {
	ks := make([]stockade.Key, 0, len(m))
	for k := range m {
		ks = append(ks, k)
	}
	slices.SortFunc(ks, stockade.Key.Compare)
	return ks
}
