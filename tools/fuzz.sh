#!/usr/bin/env bash
# Fuzzes the experiment-file parser (config_parse -> plan_expand) with libFuzzer for SECONDS
# (default 600), under AddressSanitizer + UBSan. Crashes, leaks, timeouts (> 10 s per input) and
# inputs over 2 GB of memory are failures: the reproducer is written to $TILELAB_FUZZ_DIR/crashes/
# (default: a temporary folder) and the script exits non-zero. Inputs worth keeping as regression
# seeds go into fuzz/corpus/ (replayed by //fuzz:config_fuzz_regression).
#
# The build uses clang (bazel --config=fuzz); the next plain build goes back to gcc and rebuilds.
set -euo pipefail
cd "$(dirname "$0")/.."
secs=${1:-600}
jobs=${2:-1}
bazel build -q --config=fuzz //fuzz:config_fuzz 2>/dev/null || bazel build --config=fuzz //fuzz:config_fuzz
bin=$(bazel info --config=fuzz bazel-bin 2>/dev/null)/fuzz/config_fuzz
work=${TILELAB_FUZZ_DIR:-$(mktemp -d -t tilelab-fuzz-XXXXXX)}
mkdir -p "$work/corpus" "$work/crashes"
find fuzz/corpus experiments -name '.*' -prune -o -type f ! -name BUILD -exec cp {} "$work/corpus/" \;
echo "fuzz: $secs s, $jobs job(s), corpus and crashes in $work"
cd "$work"
rc=0
parallel=()
[ "$jobs" -le 1 ] || parallel=(-jobs="$jobs" -workers="$jobs")  # then each job logs to fuzz-<j>.log
ASAN_OPTIONS=detect_leaks=1 "$bin" -max_total_time="$secs" -timeout=10 -rss_limit_mb=2048 -max_len=4096 \
  -dict="$OLDPWD/fuzz/yaml.dict" -artifact_prefix="$work/crashes/" -print_final_stats=1 \
  "${parallel[@]}" "$work/corpus" >"$work/fuzz.log" 2>&1 || rc=$?
grep -hE "^#[0-9]+ *(INITED|DONE)|ERROR|SUMMARY|stat::" "$work"/fuzz*.log || true
crashes=$(find "$work/crashes" -type f | wc -l)
echo "fuzz: exit $rc, $crashes crash/leak/timeout reproducers in $work/crashes"
[ "$rc" -eq 0 ] && [ "$crashes" -eq 0 ]
