package engine

import (
	"cmp"
	"fmt"
	"math"
	"slices"

	"github.com/stockade/stockade"
)

// stockView is what allocation decides on: what each level can give the
// request, and where each SKU is.
type stockView struct {
	// avail is what each level can still give, by key; a missing key
	// gives nothing.
	avail map[stockade.Key]int64
	// locations lists, for each SKU with a need without location, the
	// locations that have a level of it.
	locations map[string][]string
	// coords are the locations' coordinates, for a ship-to point.
	coords map[string]stockade.Point
}

// shortfall says which need could not be met.
type shortfall struct {
	need      need
	available int64 // what there was for it
}

func (s *shortfall) Error() string {
	if s.need.Location != "" {
		return fmt.Sprintf("insufficient stock of %q at %q: %d requested, %d available",
			s.need.SKU, s.need.Location, s.need.Quantity, s.available)
	}
	return fmt.Sprintf("insufficient stock of %q: %d requested, %d available", s.need.SKU, s.need.Quantity, s.available)
}

// allocate decides where each need is taken from, or returns the first
// need, in key order, that cannot be met.
//
// Needs with a location take from it first. Then each SKU's need without
// location takes from the SKU's locations in turn, splitting across them
// as far as it must: the one with the most available first, ties to the
// smaller location id; when shipTo is set, nearest first by great-circle
// distance, locations without a place after every placed one, and that
// rule among equals. The allocations come back merged per level, in key
// order.
func allocate(needs []need, v stockView, shipTo *stockade.Point) ([]stockade.Allocation, *shortfall) {
	taken := map[stockade.Key]int64{}
	// free is what level k can still give: read lazily, so that a call
	// costs what its own keys cost, however many levels v holds.
	free := func(k stockade.Key) int64 { return max(v.avail[k], 0) - taken[k] }
	for _, n := range needs {
		if n.Location == "" {
			continue
		}
		k := n.key()
		if free(k) < n.Quantity {
			return nil, &shortfall{need: n, available: free(k)}
		}
		taken[k] += n.Quantity
	}
	for _, n := range needs {
		if n.Location != "" {
			continue
		}
		locs := slices.Clone(v.locations[n.SKU])
		var total int64
		for _, loc := range locs {
			total += free(stockade.Key{SKU: n.SKU, Location: loc})
		}
		if total < n.Quantity {
			return nil, &shortfall{need: n, available: total}
		}
		mostFirst := func(a, b string) int {
			ka, kb := stockade.Key{SKU: n.SKU, Location: a}, stockade.Key{SKU: n.SKU, Location: b}
			return cmp.Or(cmp.Compare(free(kb), free(ka)), cmp.Compare(a, b))
		}
		if shipTo != nil {
			dist := make(map[string]float64, len(locs))
			for _, loc := range locs {
				dist[loc] = math.Inf(1) // no place: after every placed one
				if p, ok := v.coords[loc]; ok {
					dist[loc] = distance(*shipTo, p)
				}
			}
			slices.SortFunc(locs, func(a, b string) int { return cmp.Or(cmp.Compare(dist[a], dist[b]), mostFirst(a, b)) })
		} else {
			slices.SortFunc(locs, mostFirst)
		}
		left := n.Quantity
		for _, loc := range locs {
			if left == 0 {
				break
			}
			k := stockade.Key{SKU: n.SKU, Location: loc}
			q := min(left, free(k))
			if q <= 0 {
				continue
			}
			taken[k] += q
			left -= q
		}
	}
	allocs := make([]stockade.Allocation, 0, len(taken))
	for _, k := range sortedKeys(taken) {
		allocs = append(allocs, stockade.Allocation{SKU: k.SKU, Location: k.Location, Quantity: taken[k]})
	}
	return allocs, nil
}

// earthRadius is the mean radius of the Earth, in kilometres.
const earthRadius = 6371.0088

// distance is the great-circle distance between a and b in kilometres, by
// the haversine formula.
func distance(a, b stockade.Point) float64 {
	rad := func(deg float64) float64 { return deg * math.Pi / 180 }
	φ1, φ2 := rad(a.Lat), rad(b.Lat)
	dφ, dλ := φ2-φ1, rad(b.Lon-a.Lon)
	h := math.Pow(math.Sin(dφ/2), 2) + math.Cos(φ1)*math.Cos(φ2)*math.Pow(math.Sin(dλ/2), 2)
	return 2 * earthRadius * math.Asin(math.Sqrt(min(1, h)))
}
