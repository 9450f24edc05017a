#!/bin/sh
# Counts the payments that need a person, from `stockade payments stuck
# -json` (which reads STOCKADE_STORE), and writes them for node_exporter's
# textfile collector:
#
#   stockade_payments_need_person{needs="stuck"}    in flight past -payment-grace
#   stockade_payments_need_person{needs="refund"}   succeeded after their stock was gone
#   stockade_payments_checked_timestamp_seconds     when this check last succeeded
#
# serve does not export these; stockade-alerts.yml alerts on them. Run by
# stockade-payments-check.service. A failed read leaves the last file in
# place, and the timestamp tells how old it is.
set -eu

dir=${TEXTFILE_DIR:-/var/lib/prometheus/node-exporter}
bin=${STOCKADE_BIN:-/usr/local/bin/stockade}

list=$("$bin" payments stuck -json)
refund=$(printf '%s\n' "$list" | grep -c '"resolution":"needs_refund"' || true)
all=$(printf '%s\n' "$list" | grep -c '^{' || true)
stuck=$((all - refund))

tmp=$(mktemp "$dir/.stockade_payments.XXXXXX")
trap 'rm -f "$tmp"' EXIT
cat >"$tmp" <<METRICS
# HELP stockade_payments_need_person Payments that need a person, by what they need: stuck (no outcome within the payment grace) or refund.
# TYPE stockade_payments_need_person gauge
stockade_payments_need_person{needs="stuck"} $stuck
stockade_payments_need_person{needs="refund"} $refund
# HELP stockade_payments_checked_timestamp_seconds When the stuck-payments check last read the store.
# TYPE stockade_payments_checked_timestamp_seconds gauge
stockade_payments_checked_timestamp_seconds $(date +%s)
METRICS
chmod 0644 "$tmp"
mv "$tmp" "$dir/stockade_payments.prom"
trap - EXIT
