"""What the benchmark scripts share: the release build they measure, and percentiles."""
import os, subprocess

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


def release_bin():
    """The directory of the release build's `shelfmark`: BENCH_BIN, else `swift build -c release`
    (built first unless BENCH_SKIP_BUILD is set, as `make bench` does once for all scripts)."""
    bin_dir = os.environ.get("BENCH_BIN")
    if bin_dir:
        return bin_dir
    if not os.environ.get("BENCH_SKIP_BUILD"):
        subprocess.run(["swift", "build", "-c", "release", "--product", "shelfmark"], cwd=ROOT, check=True)
    return subprocess.run(["swift", "build", "-c", "release", "--show-bin-path"], cwd=ROOT, check=True,
                          capture_output=True, text=True).stdout.strip()


def pct(values, q):
    """The q-th percentile of `values` (nearest rank)."""
    values = sorted(values)
    return values[min(len(values) - 1, int(round(q / 100 * (len(values) - 1))))]
