//go:build !race

package memlock

const raceEnabled = false
