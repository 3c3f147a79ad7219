#!/usr/bin/env bash
# Fuzzes the experiment-file parser (config_parse -> plan_expand; TARGET config, the default) or the
# result-file reader (what rerun reads; TARGET result) with libFuzzer for SECONDS (default 600), under
# AddressSanitizer + UBSan. Crashes, leaks, timeouts (> 30 s per input: experiments/sgemm_shapes.yaml, a
# seed, takes 16 s under the sanitizers on a 2-core CI machine, its plan ranking tuned's 13736-row table
# for 132 problems, against 1 s in a plain build; a hang is still caught) and
# inputs over 2 GB of memory are failures: the reproducer is written to $TILELAB_FUZZ_DIR/crashes/
# (default: a temporary folder, removed when nothing was found) and the script exits non-zero.
# Inputs worth keeping as regression seeds go into fuzz/corpus/ or fuzz/corpus_results/ (the valid
# result files are made at build time, //fuzz:result_seeds; all are replayed by
# //fuzz:config_fuzz_regression and //fuzz:result_fuzz_regression).
#
# usage: tools/fuzz.sh [SECONDS [JOBS [config|result]]]
#
# The build uses clang (bazel --config=fuzz); the next plain build goes back to gcc and rebuilds.
set -euo pipefail
cd "$(dirname "$0")/.."
secs=${1:-600}
jobs=${2:-1}
target=${3:-config}
case $target in
  config) seeds=(fuzz/corpus experiments); options=(-max_len=4096 -dict="$PWD/fuzz/yaml.dict") ;;
  # HDF5 itself crashes, loops or allocates without bound on some crafted files: keep fuzzing past
  # those (fork mode), then sort the reproducers (tools/fuzz_triage.py).
  result) bazel build -q //fuzz:result_seeds 2>/dev/null || bazel build //fuzz:result_seeds  # plain build
          seeds=(fuzz/corpus_results "$(bazel info bazel-bin 2>/dev/null)/fuzz/seeds")
          options=(-max_len=400000 -fork=1 -ignore_crashes=1 -ignore_ooms=1 -ignore_timeouts=1) ;;
  *) echo "fuzz: TARGET is config or result, not '$target'" >&2; exit 2 ;;
esac
bazel build -q --config=fuzz //fuzz:${target}_fuzz 2>/dev/null || bazel build --config=fuzz //fuzz:${target}_fuzz
if [ -n "${TILELAB_FUZZ_DIR:-}" ]; then work=$TILELAB_FUZZ_DIR; own=0
else work=$(mktemp -d -t tilelab-fuzz-XXXXXX); own=1; fi
# A folder of its own that found nothing goes when the run ends well (TILELAB_FUZZ_DIR's stays).
clean() {
  [ "$own" = 1 ] || return 0
  cd "$repo" && rm -rf "$work" && echo "fuzz: nothing found; $work removed"
}
mkdir -p "$work/corpus" "$work/crashes"
bin=$work/${target}_fuzz  # a copy: the triage's plain build of the runner replaces bazel-bin's
cp -f "$(bazel info --config=fuzz bazel-bin 2>/dev/null)/fuzz/${target}_fuzz" "$bin"
repo=$PWD
find "${seeds[@]}" -name '.*' -prune -o -type f ! -name BUILD -exec cp {} "$work/corpus/" \;
echo "fuzz: $target, $secs s, $jobs job(s), corpus and crashes in $work"
cd "$work"
rc=0
parallel=()
[ "$jobs" -le 1 ] || parallel=(-jobs="$jobs" -workers="$jobs")  # then each job logs to fuzz-<j>.log
TMPDIR=$work ASAN_OPTIONS=detect_leaks=1 "$bin" -max_total_time="$secs" -timeout=30 -report_slow_units=30 -rss_limit_mb=2048 "${options[@]}" \
  -artifact_prefix="$work/crashes/" -print_final_stats=1 \
  "${parallel[@]}" "$work/corpus" >"$work/fuzz.log" 2>&1 || rc=$?
grep -hE "^#[0-9]+ *(INITED|DONE)|ERROR|SUMMARY|stat::" "$work"/fuzz*.log || true
crashes=$(find "$work/crashes" -type f | wc -l)
echo "fuzz: exit $rc, $crashes crash/leak/timeout reproducers in $work/crashes"
if [ "$target" = result ]; then
  if [ "$crashes" -eq 0 ]; then clean; exit 0; fi
  (cd "$repo" && bazel build -q //runner 2>/dev/null || bazel build //runner)
  TMPDIR=$work ASAN_OPTIONS=detect_leaks=1 python3 "$repo/tools/fuzz_triage.py" "$bin" "$repo/bazel-bin/runner/runner" "$work"/crashes/*
  exit $?
fi
if [ "$rc" -eq 0 ] && [ "$crashes" -eq 0 ]; then clean; exit 0; fi
exit 1
