package lockbench

import (
	"slices"
	"testing"
)

func TestDefaultImplsFollowServers(t *testing.T) {
	tests := []struct {
		name string
		opts Options
		want []string
	}{
		{"redis only", Options{}, []string{"stockade", "redsync", "bsm", "setnx"}},
		{"redlock", Options{RedlockAddrs: []string{"r1:6379", "r2:6379", "r3:6379"}},
			[]string{"stockade", "redsync", "bsm", "setnx", "redlock", "redsync5"}},
		{"postgres", Options{PostgresURL: "postgres://pg/bench"},
			[]string{"stockade", "redsync", "bsm", "setnx", "pglock"}},
		{"etcd", Options{EtcdEndpoints: []string{"http://etcd:2379"}},
			[]string{"stockade", "redsync", "bsm", "setnx", "etcdlock"}},
		{"every server", Options{RedlockAddrs: []string{"r1:6379"}, PostgresURL: "postgres://pg/bench", EtcdEndpoints: []string{"http://etcd:2379"}},
			Impls()},
		{"named", Options{PostgresURL: "postgres://pg/bench", Impls: []string{"setnx"}}, []string{"setnx"}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			o, err := tc.opts.withDefaults()
			if err != nil {
				t.Fatal(err)
			}
			if !slices.Equal(o.Impls, tc.want) {
				t.Errorf("impls %q, want %q", o.Impls, tc.want)
			}
		})
	}
	if got, want := Impls(), []string{"stockade", "redsync", "bsm", "setnx", "redlock", "redsync5", "pglock", "etcdlock"}; !slices.Equal(got, want) {
		t.Errorf("Impls() = %q, want %q", got, want)
	}
}
