#!/usr/bin/env bash
# Builds the libFuzzer targets (-sanitize=fuzzer,address) and runs one or all of them.
#
#   Fuzz/run.sh --list              the target names, one per line
#   Fuzz/run.sh --build             build only
#   Fuzz/run.sh [TARGET] [SECONDS]  fuzz TARGET (default: every target, one after another) for
#                                   SECONDS each (default 20), stopping early at FUZZ_RUNS
#                                   executions (default: no limit)
#
# Each run starts from the committed seeds (Fuzz/Corpus/TARGET) with the target's dictionary,
# writes what it finds to Fuzz/.work/TARGET/corpus (not committed), refuses any input slower than
# 1 s while fuzzing (-timeout takes whole seconds) and then replays the whole corpus, failing if
# any input took longer than FUZZ_SLOW_MS (default 100 ms; see slow_ms). A crash, a leak or a timeout is
# minimised to Fuzz/.work/TARGET/minimised-*; turn it into a regression test (FuzzCorpusTests)
# before fixing it. One line per target goes to Fuzz/.work/summary.tsv:
# target, executions, coverage (edges), feature count, seconds, slowest replayed input (ms).
set -euo pipefail
shopt -s nullglob
cd "$(dirname "$0")"
export PATH="/opt/swift/usr/bin:$PATH"

TARGETS=(
  policy-json pin-set-update info-plist certificate-file trust-evaluate sct-list bearer-challenge token-response
  http1-response redirect-location phc-string sealed-envelope e2e-envelope store-file email-address
  text-input content-sniffer punycode security-audit
)

dictionary() {
  case "$1" in
    policy-json | pin-set-update | token-response) echo Dictionaries/json.dict ;;
    info-plist | security-audit) echo Dictionaries/plist.dict ;;
    certificate-file | trust-evaluate | sct-list) echo Dictionaries/der.dict ;;
    http1-response | redirect-location | bearer-challenge) echo Dictionaries/http.dict ;;
    *) echo "" ;;
  esac
}

# The longest input libFuzzer makes (its default is the longest seed, at most 4096 bytes). The
# nesting-sensitive targets need room for deep nesting: a seed of 5,000 nested arrays, or the
# `<array><!--</array>-->` trick that hid depth from a counter, is 35 to 110 KB.
max_len() {
  case "$1" in
    policy-json | info-plist) echo 131072 ;;
    security-audit) echo 16385 ;; # the target's kind byte and its 16 KB file limit
    *) echo "" ;;
  esac
}

# The slowest replayed input allowed, in ms (FUZZ_SLOW_MS, default 100). security-audit's cost
# grows with the findings in its 16 KB file, steeply under AddressSanitizer: 400, 800 and 1,200
# distinct cleartext URLs on one line of an OpenStep array (5, 10 and 16 KB) replay in 34, 86
# and 132 ms alone on a quiet 2-core machine (about 0.1 ms a finding), and 900 found by the
# fuzzer took 271 ms beside a release build. Its limit is 250 ms: the costs it guards against,
# worse than that, took seconds at this size (a line hashed once per finding: 28 s).
slow_ms() {
  case "$1" in
    security-audit) echo $((${FUZZ_SLOW_MS:-100} * 5 / 2)) ;;
    *) echo "${FUZZ_SLOW_MS:-100}" ;;
  esac
}

if [ "${1:-}" = "--list" ]; then
  printf '%s\n' "${TARGETS[@]}"
  exit 0
fi

# Release, with the fuzzer's coverage and AddressSanitizer in every Swift module (dependencies
# included), -parse-as-library because libFuzzer supplies main, and -enable-testing for the
# entry points that are internal.
BUILD=(swift build -c release --scratch-path .build
  -Xswiftc -sanitize=fuzzer,address -Xswiftc -parse-as-library -Xswiftc -enable-testing)
# FUZZ_SKIP_BUILD=1 runs the binaries already built (long runs that keep one build while the
# library changes under them).
[ -z "${FUZZ_SKIP_BUILD:-}" ] && "${BUILD[@]}" >&2
BIN="$("${BUILD[@]}" --show-bin-path)"
[ "${1:-}" = "--build" ] && exit 0

selected=("${TARGETS[@]}")
if [ -n "${1:-}" ] && [ "$1" != "all" ]; then
  if ! printf '%s\n' "${TARGETS[@]}" | grep -qx -- "$1"; then
    echo "run.sh: no target named '$1' (Fuzz/run.sh --list)" >&2
    exit 64
  fi
  selected=("$1")
fi
SECONDS_EACH="${2:-20}"
# libFuzzer reports a crash itself; Swift's backtracer would only race it (and trips ASan).
export SWIFT_BACKTRACE=enable=no
# Leaks that are not ours, each with its reason (Fuzz/lsan.supp).
export LSAN_OPTIONS="suppressions=$PWD/lsan.supp:print_suppressions=0${LSAN_OPTIONS:+:$LSAN_OPTIONS}"
mkdir -p .work
status=0

for target in "${selected[@]}"; do
  work=".work/$target"
  mkdir -p "$work/corpus"
  args=(-max_total_time="$SECONDS_EACH" -timeout=1 -rss_limit_mb=2048 -print_final_stats=1
    -artifact_prefix="$work/" -print_pcs=0)
  [ -n "${FUZZ_RUNS:-}" ] && args+=(-runs="$FUZZ_RUNS")
  dict="$(dictionary "$target")"
  [ -n "$dict" ] && args+=(-dict="$dict")
  length="$(max_len "$target")"
  [ -n "$length" ] && args+=(-max_len="$length")
  SLOW_MS="$(slow_ms "$target")"
  echo "== $target: ${SECONDS_EACH} s" >&2
  log="$work/fuzz.log"
  start=$(date +%s)
  if ! "$BIN/$target" "${args[@]}" "$work/corpus" "Corpus/$target" >"$log" 2>&1; then
    status=1
    tail -40 "$log" >&2
    for artifact in "$work"/crash-* "$work"/leak-* "$work"/timeout-* "$work"/oom-*; do
      [ -f "$artifact" ] || continue
      minimised="$work/minimised-$(basename "$artifact")"
      "$BIN/$target" -minimize_crash=1 -runs=20000 -exact_artifact_path="$minimised" "$artifact" \
        >"$work/minimise.log" 2>&1 || true
      echo "FAILED: $target: $artifact (minimised: $minimised)" >&2
    done
  fi
  elapsed=$(($(date +%s) - start))
  done_line="$(grep -E '^#[0-9]+[[:space:]]+DONE' "$log" | tail -1 || true)"
  execs="$(grep -E '^stat::number_of_executed_units:' "$log" | awk '{print $2}' | tail -1)"
  cov="$(echo "$done_line" | sed -nE 's/.*cov: ([0-9]+).*/\1/p')"
  ft="$(echo "$done_line" | sed -nE 's/.*ft: ([0-9]+).*/\1/p')"

  # Replay every input found and seeded, one by one, and take the slowest. The first call into
  # a code path of a library in a process pays its start-up (lazy globals, runtime metadata,
  # CoreFoundation's first error on a path: up to 190 ms for store-file and 420 ms for a binary
  # plist, whatever the input), and a long replay under AddressSanitizer slows late inputs (an
  # 18 ms binary plist took 119 ms as the 3,000th), so every input runs twice and counts its
  # faster run, and one over the limit is timed again alone, in a fresh process, after one
  # warm-up run of itself. An input that is slow because of what it is (deep nesting, shared
  # objects) is slow every time.
  slowest=0
  slow_input=""
  if [ $status -eq 0 ]; then
    inputs=("Corpus/$target"/* "$work/corpus"/*)
    files=("${inputs[@]}" "${inputs[@]}")
    "$BIN/$target" -runs=1 "${files[@]}" >"$work/replay.log" 2>&1 || { status=1; tail -20 "$work/replay.log" >&2; }
    mapfile -t times < <(sed -nE 's/^Executed .* in ([0-9]+) ms$/\1/p' "$work/replay.log")
    n=${#inputs[@]}
    for ((i = 0; i < n; i++)); do
      a=${times[i]:-0}
      b=${times[i + n]:-0}
      ms=$((a < b ? a : b))
      if [ "$ms" -gt "$SLOW_MS" ]; then
        ms="$("$BIN/$target" -runs=1 "${inputs[i]}" "${inputs[i]}" 2>&1 \
          | sed -nE 's/^Executed .* in ([0-9]+) ms$/\1/p' | tail -1)"
        ms="${ms:-0}"
      fi
      if [ "$ms" -gt "$slowest" ]; then
        slowest=$ms
        slow_input="${inputs[i]}"
      fi
    done
    if [ "$slowest" -gt "$SLOW_MS" ]; then
      status=1
      echo "FAILED: $target: an input took $slowest ms (limit $SLOW_MS ms): $slow_input" >&2
    fi
  fi
  printf '%s\t%s\t%s\t%s\t%s\t%s\n' "$target" "${execs:-?}" "${cov:-?}" "${ft:-?}" "$elapsed" "$slowest" \
    | tee -a .work/summary.tsv
done
exit $status
