#!/bin/sh
# Long fuzzing runs on a many-core machine (the GPU machine's host through
# the device tool), for docs/reliability.md's execution counts:
#   sh tools/fuzz_farm.sh SECONDS OUTDIR gen:54 interp:6 ...
# runs each build/fuzz/fuzz_<target> with that many workers (libFuzzer
# -jobs = -workers) and the flags of `make fuzz`, from its corpus in
# tests/fuzz/corpus plus build/fuzz/work/<target> if present; then writes
# OUTDIR/summary.txt (per target: executions summed over the jobs, and any
# report) and OUTDIR/artifacts.tgz (crash inputs and the logs that name
# them). Every fuzzer is stopped by SECONDS + 20 whatever it is doing, and
# the summary is written before anything is killed: a run that overruns
# still reports (docs/reliability.md).
set -u
secs=$1 out=$2
shift 2
root=$(pwd)
work=$(mktemp -d /tmp/fuzz-farm-XXXXXX)
mkdir -p "$out" "$work/art"
for spec in "$@"; do
    t=${spec%%:*} n=${spec#*:}
    mkdir -p "$work/$t/logs" "$work/$t/corpus"
    [ -d "build/fuzz/work/$t" ] && cp -r "build/fuzz/work/$t/." "$work/$t/corpus/"
    dict=""
    [ -f "tests/fuzz/$t.dict" ] && dict="-dict=$root/tests/fuzz/$t.dict"
    tmo=10
    [ "$t" = native ] && tmo=60
    (cd "$work/$t/logs" && timeout -s INT $((secs + 20)) "$root/build/fuzz/fuzz_$t" -max_total_time="$secs" \
        -timeout=$tmo -detect_leaks=0 -rss_limit_mb=4096 -max_len=65536 -print_final_stats=1 $dict \
        -jobs="$n" -workers="$n" -artifact_prefix="$work/art/$t-" \
        "$work/$t/corpus" "$root/tests/fuzz/corpus/$t" >/dev/null 2>&1) &
done
sleep $((secs + 30))
{
    for spec in "$@"; do
        t=${spec%%:*}
        runs=$(cat "$work/$t/logs"/fuzz-*.log 2>/dev/null | grep stat::number_of_executed_units | awk '{s += $2} END {print s + 0}')
        jobs=$(grep -l stat::number_of_executed_units "$work/$t/logs"/fuzz-*.log 2>/dev/null | wc -l)
        echo "fuzz_$t: $runs executions ($jobs jobs reported)"
        grep -h -E "ERROR|SUMMARY|deadly|Test unit written" "$work/$t/logs"/fuzz-*.log 2>/dev/null | head -20
    done
    echo "artifacts:"
    ls "$work/art"
} > "$out/summary.txt"
bad=$(grep -l -E "ERROR|deadly" "$work"/*/logs/fuzz-*.log 2>/dev/null)
tar czf "$out/artifacts.tgz" -C "$work" art $(for f in $bad; do echo "${f#$work/}"; done) 2>/dev/null
cat "$out/summary.txt"
# whatever of this run still runs (its artifact prefix names the run's own
# folder, which this script's command line does not)
pkill -KILL -f -- "-artifact_prefix=$work/" 2>/dev/null
rm -rf "$work"
exit 0
