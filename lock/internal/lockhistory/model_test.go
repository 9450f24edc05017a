package lockhistory

import (
	"testing"
	"time"

	"github.com/anishathalye/porcupine"
)

func acq(client int, call, ret int64, token uint64) porcupine.Operation {
	return porcupine.Operation{ClientId: client, Input: Input{Client: client}, Call: call, Output: Output{Token: token}, Return: ret}
}

func rel(client int, call, ret int64) porcupine.Operation {
	return porcupine.Operation{ClientId: client, Input: Input{Release: true, Client: client}, Call: call, Return: ret}
}

// The checker must accept a legal history and refuse planted violations;
// otherwise a passing history test would prove nothing.
func TestModel(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name   string
		tokens bool
		ops    []porcupine.Operation
		ok     bool
	}{
		{"sequential", true, []porcupine.Operation{
			acq(0, 0, 10, 1), rel(0, 20, 30), acq(1, 5, 40, 2), rel(1, 50, 60),
		}, true},
		{"handoff while the first holder learns of its loss", true, []porcupine.Operation{
			// 0 last saw its lease at 20 and learnt of the loss at 100;
			// the lock ended it somewhere in between, before 1's grant.
			acq(0, 0, 10, 1), rel(0, 20, 100), acq(1, 5, 40, 2), rel(1, 50, 60),
		}, true},
		{"two holders overlap", true, []porcupine.Operation{
			// 1's grant returned at 40 while 0 still saw its lease at 45.
			acq(0, 0, 10, 1), rel(0, 45, 100), acq(1, 5, 40, 2), rel(1, 50, 60),
		}, false},
		{"overlap among many", true, []porcupine.Operation{
			acq(0, 0, 10, 1), rel(0, 20, 30),
			acq(1, 31, 40, 2), rel(1, 50, 60),
			acq(2, 31, 45, 3), rel(2, 70, 80),
			acq(0, 81, 90, 4), rel(0, 95, 99),
		}, false},
		{"token goes backwards", true, []porcupine.Operation{
			acq(0, 0, 10, 5), rel(0, 20, 30), acq(1, 40, 50, 4), rel(1, 60, 70),
		}, false},
		{"token goes backwards, tokens not checked", false, []porcupine.Operation{
			acq(0, 0, 10, 5), rel(0, 20, 30), acq(1, 40, 50, 4), rel(1, 60, 70),
		}, true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			err := Check(tc.ops, tc.tokens, 10*time.Second)
			if (err == nil) != tc.ok {
				t.Fatalf("Check = %v, want ok %v", err, tc.ok)
			}
		})
	}
}
