#!/usr/bin/env python3
"""The stocktake target, measured (part of `make bench`): at a 300-book shelf of a 20,000-title
library, each scan answers in p99 <= 30 ms. Runs `shelfmark bench-stocktake` on a throwaway SQLite
directory; prints each round, the medians of the rounds' p50 and p99, the p99 as a share of the target,
and the scan against the same-run baseline (the cheapest read a scan makes: a copy by its barcode).
Also the page the browser gets back after a scan (the report of 300 scanned books and its HTML).

    BENCH_BIN=.build/release scripts/bench-stocktake.py      (default: the release build)
"""
import json, os, statistics, subprocess, sys, tempfile

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
BIN = os.environ.get("BENCH_BIN") or os.path.join(ROOT, ".build", "release")


def main():
    with tempfile.TemporaryDirectory() as data:
        env = dict(os.environ, SHELFMARK_DATA_DIR=data)
        out = subprocess.run([os.path.join(BIN, "shelfmark"), "bench-stocktake", "--rounds", "5",
                              "--titles", os.environ.get("BENCH_STOCKTAKE_TITLES", "20000")],
                             env=env, capture_output=True, text=True, timeout=900)
        if out.returncode != 0:
            sys.exit(out.stderr)
        rounds = [json.loads(line) for line in out.stdout.splitlines() if line.startswith("{")]
        for r in rounds:
            print(json.dumps(r))
        med = lambda key: statistics.median(r[key] for r in rounds)
        p50, p99, base = med("scan_p50_ms"), med("scan_p99_ms"), med("baseline_p50_ms")
        print(f"stocktake scan ({rounds[-1]['scans']} scans a round): median p50 {p50:.2f} ms, p99 {p99:.2f} ms = {p99 / 30:.0%} of the 30 ms target; "
              f"p50 {p50 / base:.1f} x the baseline ({base:.3f} ms: a copy by its barcode)")
        print(f"the stocktake page after a scan (300 scanned): median p50 {med('page_p50_ms'):.1f} ms, p99 {med('page_p99_ms'):.1f} ms, "
              f"{rounds[-1]['page_bytes']:,} bytes")


if __name__ == "__main__":
    main()
