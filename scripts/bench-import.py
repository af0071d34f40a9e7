#!/usr/bin/env python3
"""Import and export speed (issue: import, export, backup), on SQLite with a release build.

Writes a 100,000-row catalog CSV (the F1 columns), imports it with `shelfmark import` into a fresh
data directory, and exports the library again with `shelfmark export --format csv`. Three rounds,
medians. The figures are the commands' own timings of the import (file in memory → rows visible)
and of the export (query → file written); peak memory is the whole process's maximum resident set
(/usr/bin/time), next to the same command on a 1,000-row file as the baseline of that run.
"""
import os, random, re, shutil, statistics, subprocess, sys

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
ROWS = int(os.environ.get("BENCH_IMPORT_ROWS", "100000"))
ROUNDS = int(os.environ.get("BENCH_ROUNDS", "3"))


def isbn13(n):
    body = f"978{n:09d}"
    s = sum(int(d) * (1 if i % 2 == 0 else 3) for i, d in enumerate(body))
    return body + str((10 - s % 10) % 10)


WORDS = ("river shelf lantern quiet garden winter signal paper harbor meadow copper orbit violet "
         "thunder island velvet compass marble falcon ember willow canyon").split()


def write_catalog(path, rows, seed=7, copies=None):
    """`rows` catalog rows; each with `copies` copies, or 1 to 3."""
    rnd = random.Random(seed)
    with open(path, "w", encoding="utf-8", newline="") as f:
        f.write("ISBN,Title,Author,Total Copies,Available Copies,Language,Publisher,Published Date,Page Count,Notes\r\n")
        for i in range(rows):
            title = " ".join(rnd.choice(WORDS).capitalize() for _ in range(rnd.randint(1, 4)))
            author = f"{rnd.choice(WORDS).capitalize()} {rnd.choice(WORDS).capitalize()}"
            n = copies or rnd.randint(1, 3)
            notes = '"Shelf ' + rnd.choice("ABCDEFG") + ', row ' + str(rnd.randint(1, 9)) + '"' if i % 5 == 0 else ""
            f.write(f"{isbn13(i)},{title} {i},{author},{n},{n},en,{rnd.choice(WORDS).capitalize()} Press,"
                    f"{rnd.randint(1950, 2025)},{rnd.randint(40, 900)},{notes}\r\n")


def run(binary, args, env):
    """Runs the command under /usr/bin/time; returns (stdout, peak RSS in MB)."""
    r = subprocess.run(["/usr/bin/time", "-f", "PEAK_KB %M", binary] + args, cwd=ROOT, env=env, text=True, capture_output=True)
    if r.returncode != 0:
        sys.exit(f"{' '.join(args)} failed:\n{r.stdout}\n{r.stderr}")
    peak = int(re.search(r"PEAK_KB (\d+)", r.stderr).group(1)) / 1024
    return r.stdout, peak


# A random id shaped as the app's (8-4-4-4-12): the id columns have numeric affinity, and 32 bare hex
# digits that happen to read as a number (digits and one "e") would be stored as one.
# Ids as the build under test keeps them: 16 bytes (decision 065), or text shaped 8-4-4-4-12 for a build
# from before (32 bare hex digits could be stored as a number by the columns' numeric affinity).
RANDOM_ID = {"bytes": "randomblob(16)",
             "text": "(hex(randomblob(4)) || '-' || hex(randomblob(2)) || '-' || hex(randomblob(2)) || '-' || hex(randomblob(2)) || '-' || hex(randomblob(6)))"}
FLOOR_LIBRARY = {"bytes": "x'00000000000000000000000000000F10'", "text": "'floor'"}

FLOOR_IMPORT = """
PRAGMA cache_size=-32768;
PRAGMA temp_store=MEMORY;
INSERT INTO libraries (id, name, loan_period_days, max_renewals, public_catalog, next_accession) VALUES ({floor}, 'floor', 14, 2, 0, 1);
CREATE TEMP TABLE idmap AS SELECT id AS old, {rid} AS new FROM titles WHERE {title_lib};
CREATE INDEX temp.idmap_old ON idmap(old);
BEGIN;
INSERT INTO titles (id, {title_library}, isbn13, title, subtitle, authors, publisher, published_date, page_count, language, description,
  cover_url, notes, favorite, rating, wishlist, series, series_number, reading_level, sort_key, section, search_text, created_at, updated_at)
SELECT m.new, {title_floor}, isbn13, title, subtitle, authors, publisher, published_date, page_count, language, description, cover_url, notes,
  favorite, rating, wishlist, series, series_number, reading_level, sort_key, section, search_text, created_at, updated_at
FROM titles JOIN idmap m ON m.old = titles.id;
INSERT INTO copies (id, {copy_library}, title_id, copy_number, barcode, location, condition, status, created_at, updated_at)
SELECT {rid}, {copy_floor}, m.new, copy_number, barcode || '-floor', location, condition, status, created_at, updated_at
FROM copies JOIN idmap m ON m.old = copies.title_id;
INSERT INTO jobs (id, library_id, kind, state, attempts, run_after, rows_read, titles_created, copies_added, created_at, first_id, last_id)
SELECT {rid}, {floor}, 'enrich', state, attempts, run_after, 0, titles_created, 0, created_at, first_id, last_id
FROM jobs WHERE jobs.kind = 'enrich' AND library_id = {lib};
COMMIT;
"""

FLOOR_EXPORT = """
SELECT rowid FROM titles WHERE {title_lib} AND wishlist = 0 ORDER BY sort_key, rowid;
SELECT title_id, status FROM copies WHERE {copy_lib};
SELECT rowid, id, isbn13, title, authors, language, publisher, published_date, page_count, notes FROM titles
WHERE rowid IN (SELECT rowid FROM titles WHERE {title_lib} AND wishlist = 0);
"""


def sqlite_seconds(db, script):
    """The same database work done by SQLite alone (no Swift, one statement per table): the floor. Run by
    a current SQLite (`pysqlite3-binary`, in the test venv: Debian's 3.40 knows neither `unhex` nor the
    search index's options), as the server's own is."""
    import time
    import pysqlite3
    t0 = time.perf_counter()
    con = pysqlite3.connect(db, isolation_level=None)
    try:
        con.executescript(script)
    except pysqlite3.Error as e:
        sys.exit(f"SQLite failed: {e}")
    finally:
        con.close()
    return time.perf_counter() - t0


def main():
    build = os.environ.get("BENCH_SKIP_BUILD") != "1" and not os.environ.get("BENCH_BIN_DIR")
    if build:
        print("== Building release (swift build -c release) ==", flush=True)
        subprocess.run(["swift", "build", "-c", "release", "--product", "shelfmark"], cwd=ROOT, check=True)
    # BENCH_BIN_DIR: another build's `shelfmark` (the previous version, for a same-run baseline).
    bin_path = os.environ.get("BENCH_BIN_DIR") or subprocess.run(["swift", "build", "-c", "release", "--show-bin-path"], cwd=ROOT, text=True,
                                                                 capture_output=True).stdout.strip()
    binary = os.path.join(bin_path, "shelfmark")
    work = os.path.join(ROOT, ".tmp", "bench-import")
    shutil.rmtree(work, ignore_errors=True)
    os.makedirs(work)
    big = os.path.join(work, "catalog-big.csv")
    small = os.path.join(work, "catalog-small.csv")
    write_catalog(big, ROWS)
    write_catalog(small, 1000, seed=8)
    print(f"== Import and export: {ROWS:,} rows ({os.path.getsize(big) / 1e6:.1f} MB), SQLite, {ROUNDS} rounds ==", flush=True)

    imports, exports, peaks, small_peaks, export_peaks, floor_imports, floor_exports = [], [], [], [], [], [], []
    for r in range(ROUNDS):
        data = os.path.join(work, f"data-{r}")
        env = dict(os.environ, SHELFMARK_DATA_DIR=data, LOG_LEVEL="error")
        env.pop("DATABASE_URL", None)
        out, small_peak = run(binary, ["import", small, "--library", "Baseline"], env)
        out, peak = run(binary, ["import", big, "--library", "Bench import"], env)
        rows = int(re.search(r"rows read\s+(\d+)", out).group(1))
        created = int(re.search(r"titles created\s+(\d+)", out).group(1))
        seconds = float(re.search(r"time\s+([\d.]+) s", out).group(1))
        if rows != ROWS or created != ROWS:
            sys.exit(f"expected {ROWS} rows imported, got {rows} read / {created} created:\n{out}")
        exported = os.path.join(work, f"export-{r}.csv")
        out, export_peak = run(binary, ["export", "--format", "csv", "--library", "Bench import", "--output", exported], env)
        export_seconds = float(re.search(r"in ([\d.]+) s", out).group(1))
        with open(exported, encoding="utf-8") as f:
            exported_rows = sum(1 for _ in f) - 1
        if exported_rows < ROWS:
            sys.exit(f"export has {exported_rows} lines, expected at least {ROWS}")
        db = os.path.join(data, "shelfmark.sqlite")
        import pysqlite3
        con = pysqlite3.connect(db)
        lib, form = con.execute("SELECT hex(id), typeof(id) FROM libraries WHERE name = 'Bench import'").fetchone()
        con.close()
        form = "bytes" if form == "blob" else "text"
        lib = f"x'{lib}'" if form == "bytes" else "'" + bytes.fromhex(lib).decode() + "'"
        # Copies and titles name their library by number since `CopiesByLibraryNumber` and
        # `TitlesByLibraryNumber`; an older build's by id.
        def by_number(table):
            return "library_no" in [row[1] for row in pysqlite3.connect(db).execute(f"PRAGMA table_info({table})")]
        floor = FLOOR_LIBRARY[form]

        def rows_of(table, library):
            return f"library_no = (SELECT no FROM libraries WHERE id = {library})" if by_number(table) else f"library_id = {library}"

        def value(table, library):
            return f"(SELECT no FROM libraries WHERE id = {library})" if by_number(table) else library
        copy_lib, title_lib = rows_of("copies", lib), rows_of("titles", lib)
        floor_export = sqlite_seconds(db, FLOOR_EXPORT.format(copy_lib=copy_lib, title_lib=title_lib))
        floor_import = sqlite_seconds(db, FLOOR_IMPORT.format(
            lib=lib, rid=RANDOM_ID[form], floor=floor, title_lib=title_lib,
            copy_library="library_no" if by_number("copies") else "library_id", copy_floor=value("copies", floor),
            title_library="library_no" if by_number("titles") else "library_id", title_floor=value("titles", floor)))
        floor_imports.append(ROWS / floor_import)
        floor_exports.append(ROWS / floor_export)
        imports.append(ROWS / seconds)
        exports.append(ROWS / export_seconds)
        peaks.append(peak)
        small_peaks.append(small_peak)
        export_peaks.append(export_peak)
        print(f"   round {r + 1}: import {seconds:.2f} s = {ROWS / seconds:,.0f} rows/s, peak {peak:.0f} MB "
              f"(1,000-row import: {small_peak:.0f} MB); export {export_seconds:.2f} s = {ROWS / export_seconds:,.0f} rows/s, peak {export_peak:.0f} MB; "
              f"sqlite3 shell floor: insert {ROWS / floor_import:,.0f} rows/s, export query {ROWS / floor_export:,.0f} rows/s", flush=True)
        shutil.rmtree(data, ignore_errors=True)

    print()
    print("== Summary (medians) ==")
    print(f"import of {ROWS:,} catalog rows (SQLite, to first visibility): {statistics.median(imports):,.0f} rows/s   target >= 15,000 rows/s")
    print(f"  floor: the same rows inserted by the sqlite3 shell (INSERT … SELECT, one statement per table): {statistics.median(floor_imports):,.0f} rows/s"
          f" -> Shelfmark at {statistics.median(imports) / statistics.median(floor_imports):.2f} x the floor")
    print(f"  peak memory {statistics.median(peaks):.0f} MB vs {statistics.median(small_peaks):.0f} MB for 1,000 rows "
          f"({statistics.median(peaks) / statistics.median(small_peaks):.2f} x)   target < 150 MB")
    print(f"export of the same library to CSV: {statistics.median(exports):,.0f} rows/s, peak {statistics.median(export_peaks):.0f} MB   target >= 200,000 rows/s")
    print(f"  floor: the export's three queries alone in the sqlite3 shell: {statistics.median(floor_exports):,.0f} rows/s"
          f" -> Shelfmark at {statistics.median(exports) / statistics.median(floor_exports):.2f} x the floor")
    if os.path.exists("/usr/lib/postgresql") and not os.environ.get("BENCH_SKIP_POSTGRES"):
        import_postgres(binary, big, work)


def import_postgres(binary, big, work):
    """The same file into PostgreSQL: a private cluster per round (`pg-test-cluster.sh`, which runs with
    fsync off: the figure is the work, not this machine's disk flushes)."""
    cluster = os.path.join(ROOT, ".tmp", "bench-import-pg")  # a directory the postgres user can reach
    port = os.environ.get("BENCH_PG_PORT", "55498")
    script = os.path.join(ROOT, "scripts", "pg-test-cluster.sh")
    rates = []
    for r in range(ROUNDS):
        url = subprocess.run([script, "start", cluster, port], check=True, capture_output=True, text=True).stdout.strip()
        try:
            env = dict(os.environ, SHELFMARK_DATA_DIR=os.path.join(work, f"pg-data-{r}"), LOG_LEVEL="error", DATABASE_URL=url)
            out, peak = run(binary, ["import", big, "--library", "Bench import"], env)
            created = int(re.search(r"titles created\s+(\d+)", out).group(1))
            seconds = float(re.search(r"time\s+([\d.]+) s", out).group(1))
            if created != ROWS:
                sys.exit(f"PostgreSQL: expected {ROWS} titles, got {created}:\n{out}")
            rates.append(ROWS / seconds)
            print(f"   PostgreSQL round {r + 1}: import {seconds:.2f} s = {ROWS / seconds:,.0f} rows/s, peak {peak:.0f} MB", flush=True)
        finally:
            subprocess.run([script, "stop", cluster], capture_output=True)
    print(f"import of {ROWS:,} catalog rows into PostgreSQL: {statistics.median(rates):,.0f} rows/s   target >= 8,000 rows/s")


if __name__ == "__main__":
    main()
