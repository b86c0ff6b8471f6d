#!/bin/sh
# Runs cargo-fuzz targets one after the other, each for SECONDS (default 900),
# at the lowest CPU priority: fuzz/fuzz.sh [SECONDS] [TARGET...] (default:
# every target). Needs `cargo install cargo-fuzz`; RUSTC_BOOTSTRAP=1 lets a
# stable toolchain take the nightly flags cargo fuzz passes. Each target's
# growing corpus is fuzz/corpus/TARGET (not in git), seeded from
# fuzz/seeds/TARGET; crashes land in fuzz/artifacts/TARGET.
set -e
cd "$(dirname "$0")/.."
secs=${1:-900}
[ $# -gt 0 ] && shift
targets=${*:-$(RUSTC_BOOTSTRAP=1 cargo fuzz list)}
for t in $targets; do
    mkdir -p "fuzz/corpus/$t"
    echo "== $t: $secs s"
    RUSTC_BOOTSTRAP=1 nice -n 19 cargo fuzz run "$t" "fuzz/corpus/$t" "fuzz/seeds/$t" -- \
        -max_total_time="$secs" -timeout=10 -max_len=8192
done
