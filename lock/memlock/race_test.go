//go:build race

package memlock

// raceEnabled scales down the tests whose cost is volume, not interleaving:
// the race detector makes each operation many times dearer.
const raceEnabled = true
