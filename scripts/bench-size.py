#!/usr/bin/env python3
"""The library's file at 100,000 titles (issue: lean storage), on SQLite with a release build.

Writes a 100,000-row catalog CSV with one copy per title (the F1 columns, every row with an ISBN and
a description missing, so each title is queued to be filled in), imports it with `shelfmark import`
into a fresh data directory, checkpoints the write-ahead log and reads the file's size and SQLite's
`dbstat` figures per table and index. The metadata providers are not reachable here, so the figure is
the library as the import leaves it with its filling in queued; filling in adds the descriptions and
covers' references, not rows.

`BENCH_SIZE_BINARY` measures another build's `shelfmark` (the previous version, for a same-run
baseline); `BENCH_SIZE_ROWS` another size.
"""
import importlib, os, re, shutil, subprocess, sys

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
ROWS = int(os.environ.get("BENCH_SIZE_ROWS", "100000"))
TARGET_MB = 150


# The catalog file of `bench-import.py`, with one copy per title.
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
bench_import = importlib.import_module("bench-import")


def write_catalog(path, rows, seed=11):
    bench_import.write_catalog(path, rows, seed=seed, copies=1)


def main():
    binary = os.environ.get("BENCH_SIZE_BINARY")
    if not binary:
        if os.environ.get("BENCH_SKIP_BUILD") != "1":
            subprocess.run(["swift", "build", "-c", "release", "--product", "shelfmark"], cwd=ROOT, check=True)
        bin_path = subprocess.run(["swift", "build", "-c", "release", "--show-bin-path"], cwd=ROOT, text=True,
                                  capture_output=True, check=True).stdout.strip()
        binary = os.path.join(bin_path, "shelfmark")
    work = os.path.join(ROOT, ".tmp", "bench-size")
    shutil.rmtree(work, ignore_errors=True)
    os.makedirs(work)
    csv = os.path.join(work, "catalog.csv")
    write_catalog(csv, ROWS)
    data = os.path.join(work, "data")
    env = dict(os.environ, SHELFMARK_DATA_DIR=data, LOG_LEVEL="error")
    env.pop("DATABASE_URL", None)
    r = subprocess.run([binary, "import", csv, "--library", "Size"], cwd=ROOT, env=env, text=True, capture_output=True)
    if r.returncode != 0:
        sys.exit(f"import failed:\n{r.stdout}\n{r.stderr}")
    created = int(re.search(r"titles created\s+(\d+)", r.stdout).group(1))
    seconds = float(re.search(r"time\s+([\d.]+) s", r.stdout).group(1))
    if created != ROWS:
        sys.exit(f"expected {ROWS} titles, got {created}:\n{r.stdout}")
    db = os.path.join(data, "shelfmark.sqlite")
    # The sqlite3 shell reads the file (dbstat is compiled into it); it writes nothing but the checkpoint.
    def shell(query):
        out = subprocess.run(["sqlite3", "-batch", "-separator", "|", db, query], text=True, capture_output=True, check=True).stdout
        return [line.split("|") for line in out.strip().splitlines()]
    shell("PRAGMA wal_checkpoint(TRUNCATE)")
    rows = [(name, int(n)) for name, n in shell("SELECT name, SUM(pgsize) FROM dbstat GROUP BY name ORDER BY 2 DESC")]
    jobs = int(shell("SELECT COUNT(*) FROM jobs WHERE kind = 'enrich'")[0][0])
    log = int(shell("SELECT COUNT(*) FROM sync_log")[0][0])
    size = os.path.getsize(db) / 1e6
    print(f"== The library's file: {ROWS:,} titles with one copy each, imported by {os.path.relpath(binary, ROOT)} ==")
    print(f"   import {seconds:.2f} s = {ROWS / seconds:,.0f} rows/s; {jobs:,} job rows queue the filling in; {log:,} sync log rows")
    print(f"   per table and index (dbstat, MB):")
    for name, size_bytes in rows:
        if size_bytes >= 0.05e6:
            print(f"     {name:<34} {size_bytes / 1e6:7.1f}")
    print(f"database file after a checkpoint: {size:.1f} MB = {size * 1e6 / ROWS:,.0f} bytes per title   target <= {TARGET_MB} MB")


if __name__ == "__main__":
    main()
