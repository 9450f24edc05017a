package lockprom_test

import (
	"context"
	"fmt"
	"strings"

	"github.com/prometheus/client_golang/prometheus"
	dto "github.com/prometheus/client_model/go"

	"github.com/stockade/stockade/lock"
	"github.com/stockade/stockade/lock/lockprom"
	"github.com/stockade/stockade/lock/memlock"
)

func Example() {
	reg := prometheus.NewRegistry()
	obs, err := lockprom.New(reg, &lockprom.Options{
		Prefix: "shop_lock",
		Class:  lockprom.PrefixClass("sku:", "order:"),
	})
	if err != nil {
		fmt.Println(err)
		return
	}
	locker := memlock.New(nil)
	ctx := context.Background()

	lease, err := locker.Acquire(ctx, "sku:42", lock.WithObserver(obs))
	if err != nil {
		fmt.Println(err)
		return
	}
	if _, err := locker.TryAcquire(ctx, "sku:42", lock.WithObserver(obs)); err != nil {
		fmt.Println(err)
	}
	if err := lease.Release(ctx); err != nil {
		fmt.Println(err)
	}

	// Print the counters, the gauge and the histograms' counts.
	families, err := reg.Gather()
	if err != nil {
		fmt.Println(err)
		return
	}
	for _, f := range families {
		for _, m := range f.GetMetric() {
			var labels []string
			for _, l := range m.GetLabel() {
				labels = append(labels, fmt.Sprintf("%s=%q", l.GetName(), l.GetValue()))
			}
			name, value := f.GetName(), 0.0
			switch f.GetType() {
			case dto.MetricType_COUNTER:
				value = m.GetCounter().GetValue()
			case dto.MetricType_GAUGE:
				value = m.GetGauge().GetValue()
			case dto.MetricType_HISTOGRAM:
				name, value = name+"_count", float64(m.GetHistogram().GetSampleCount())
			}
			fmt.Printf("%s{%s} %g\n", name, strings.Join(labels, ","), value)
		}
	}
	// Output:
	// lock: not acquired: "sku:42" is held
	// shop_lock_acquisitions_total{class="sku:",contended="false"} 1
	// shop_lock_active_leases{class="sku:"} 0
	// shop_lock_failures_total{class="sku:",reason="held"} 1
	// shop_lock_hold_seconds_count{class="sku:",end="released"} 1
	// shop_lock_wait_seconds_count{class="sku:",outcome="acquired"} 1
	// shop_lock_wait_seconds_count{class="sku:",outcome="not_acquired"} 1
}
