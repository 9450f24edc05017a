package main

import (
	"os"
	"testing"

	"github.com/stockade/stockade/internal/testkit"
)

// TestMain closes the servers the tests shared and removes the binaries
// they built.
func TestMain(m *testing.M) {
	code := testkit.Main(m)
	removeBinaries()
	os.Exit(code)
}
