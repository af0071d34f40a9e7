#!/usr/bin/env python3
"""The label and catalog targets, measured (part of `make bench`): a label sheet PDF for 3,000 copies (Avery
L7160, 143 sheets, Latin, Irish and Chinese titles) in <= 5 s and <= 200 MB peak. Runs `shelfmark
bench-print` on a throwaway SQLite directory; prints each round, the medians, each median as a share
of its target, and the labels against the same-run baseline (a PDF of as many pages with one line each).
The peak is the whole process's (filling the library included), from the kernel's count for the child.

    BENCH_BIN=.build/release scripts/bench-print.py      (default: the release build)
"""
import json, os, resource, statistics, subprocess, sys, tempfile

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
BIN = os.environ.get("BENCH_BIN") or os.path.join(ROOT, ".build", "release")


def main():
    with tempfile.TemporaryDirectory() as data:
        env = dict(os.environ, SHELFMARK_DATA_DIR=data)
        out = subprocess.run([os.path.join(BIN, "shelfmark"), "bench-print", "--rounds", "5"], env=env,
                             capture_output=True, text=True, timeout=900)
        if out.returncode != 0:
            sys.exit(out.stderr)
        peak_mb = resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss / 1024
        rounds = [json.loads(line) for line in out.stdout.splitlines() if line.startswith("{")]
        for r in rounds:
            print(json.dumps(r))
        labels = statistics.median(r["labels_s"] for r in rounds)
        baseline = statistics.median(r["baseline_s"] for r in rounds)
        preview = statistics.median(r["preview_s"] for r in rounds)
        print(f"labels PDF ({rounds[-1]['labels']} copies, {rounds[-1]['pages']} sheets): median {labels:.2f} s = {labels / 5:.0%} of the 5 s target; "
              f"{labels / baseline:.1f} x the baseline ({baseline:.2f} s for as many one-line pages)")
        print(f"one sheet's preview PNG: median {preview:.3f} s; peak memory of the process {peak_mb:.0f} MB = {peak_mb / 200:.0%} of the 200 MB target")
    # The printed catalog of 20,000 titles (A–Z, no covers): <= 20 s.
    with tempfile.TemporaryDirectory() as data:
        env = dict(os.environ, SHELFMARK_DATA_DIR=data)
        out = subprocess.run([os.path.join(BIN, "shelfmark"), "bench-print", "--rounds", "3", "--catalog", os.environ.get("BENCH_CATALOG_TITLES", "20000")],
                             env=env, capture_output=True, text=True, timeout=1800)
        if out.returncode != 0:
            sys.exit(out.stderr)
        rounds = [json.loads(line) for line in out.stdout.splitlines() if line.startswith("{")]
        for r in rounds:
            print(json.dumps(r))
        total = statistics.median(r["catalog_s"] for r in rounds)
        read = statistics.median(r["read_s"] for r in rounds)
        baseline = statistics.median(r["baseline_s"] for r in rounds)
        print(f"printed catalog ({rounds[-1]['titles']} titles, {rounds[-1]['pages']} pages): median {total:.2f} s = {total / 20:.0%} of the 20 s target "
              f"(reading {read:.2f} s); {total / baseline:.1f} x the baseline ({baseline:.2f} s for as many one-line pages)")


if __name__ == "__main__":
    main()
