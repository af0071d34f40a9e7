#!/usr/bin/env bash
# Runs the Swift suites (`swift test --skip-build`) with their whole output kept in a log, and, when a
# test fails, repeats what failed at the end: the run's output is tens of thousands of lines, and
# only its end is what a CI page shows.
#   scripts/swift-test.sh LOG [swift test arguments...]
set -uo pipefail
log="$1"; shift
mkdir -p "$(dirname "$log")"
swift_bin="${SWIFT:-swift}"
"$swift_bin" test --skip-build "$@" 2>&1 | tee "$log"
status=${PIPESTATUS[0]}
if [ "$status" -ne 0 ]; then
  echo ""
  echo "== What failed (the whole output: $log) =="
  # Swift Testing marks each issue a test recorded, and each failed test, with ✘ (the issue's details
  # follow it in the log). The failing tests' names are the last lines, where a CI page shows them.
  grep "✘ Test .* recorded an issue" "$log" | cut -c1-400 | tail -n 20
  echo "-- failed:"
  grep -E "✘ (Test|Suite) .* failed after" "$log" | cut -c1-200 | tail -n 20
fi
exit "$status"
