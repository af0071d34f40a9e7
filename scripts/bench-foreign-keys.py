#!/usr/bin/env python3
"""Deleting rows that others name by a foreign key, with and without an index on the key. A library of
BENCH_FK_TITLES titles (default 20,000) × 2 copies is seeded by the release build, then given what a
school year leaves: three stocktakes that scanned every copy. Reported: the time to delete
BENCH_FK_COPIES copies (default 100; in a transaction rolled back, so each run starts from the same
file) with the schema as it is (`stocktake_scans_by_copy_id`), and with that index dropped, as the
schema was before `ForeignKeyIndexes`, measured in the same run. Without it the database reads every
scan once per deleted copy (to empty the scan's `copy_id`): a library's erase, a restore over it or a
weeding of old copies.

Uses the release build of `make bench` (or BENCH_BIN=<bin dir>)."""
import os, sqlite3, statistics, subprocess, tempfile, time, uuid

import benchlib

TITLES = int(os.environ.get("BENCH_FK_TITLES", "20000"))
COPIES = int(os.environ.get("BENCH_FK_COPIES", "100"))
ROUNDS = 3


def main():
    binary = f"{benchlib.release_bin()}/shelfmark"
    work = tempfile.mkdtemp(prefix="shelfmark-fk-")
    env = dict(os.environ, SHELFMARK_DATA_DIR=work, LOG_LEVEL="error")
    env.pop("DATABASE_URL", None)
    subprocess.run([binary, "user", "create", "--username", "bench", "--password", "bench-password", "--library", "School"],
                   env=env, check=True, capture_output=True)
    subprocess.run([binary, "seed", "--library", "School", "--owner", "bench", "--titles", str(TITLES), "--members", "20", "--copies", "2"],
                   env=env, check=True, capture_output=True)
    db = sqlite3.connect(os.path.join(work, "shelfmark.sqlite"), isolation_level=None)
    db.execute("PRAGMA foreign_keys = ON")
    library, number = db.execute("SELECT id, no FROM libraries WHERE name = 'School'").fetchone()
    copies = [row[0] for row in db.execute("SELECT id FROM copies WHERE library_no = ?", (number,))]
    db.execute("BEGIN")
    shelf = uuid.uuid4().bytes
    db.execute("INSERT INTO shelves (id, library_id, name, code, created_at, updated_at) VALUES (?, ?, 'Bench', 'BENCH', 0, 0)", (shelf, library))
    for round_ in range(3):
        stocktake = uuid.uuid4().bytes
        db.execute("INSERT INTO stocktakes (id, library_id, shelf_id, shelf_name, started_at) VALUES (?, ?, ?, 'Bench', ?)",
                   (stocktake, library, shelf, round_))
        db.executemany("INSERT INTO stocktake_scans (id, stocktake_id, copy_id, code, outcome, scanned_at) VALUES (?, ?, ?, 'x', 'found', 0)",
                       [(uuid.uuid4().bytes, stocktake, copy) for copy in copies])
    db.execute("COMMIT")
    scans = db.execute("SELECT COUNT(*) FROM stocktake_scans").fetchone()[0]
    print(f"== deleting {COPIES} of {len(copies):,} copies, {scans:,} stocktake scans naming them (SQLite) ==", flush=True)

    def delete(drop_index):
        times = []
        for _ in range(ROUNDS):
            db.execute("BEGIN")
            if drop_index:
                db.execute("DROP INDEX stocktake_scans_by_copy_id")
            started = time.perf_counter()
            db.execute("DELETE FROM copies WHERE id IN (SELECT id FROM copies WHERE library_no = ? LIMIT ?)", (number, COPIES))
            times.append((time.perf_counter() - started) * 1000)
            db.execute("ROLLBACK")
        return statistics.median(times)

    indexed = delete(False)
    unindexed = delete(True)
    print(f"   with the index on stocktake_scans.copy_id: median {indexed:,.1f} ms ({indexed / COPIES:.2f} ms a copy)")
    print(f"   without it (the schema before):            median {unindexed:,.1f} ms ({unindexed / COPIES:.2f} ms a copy)")
    print(f"   ratio: {unindexed / indexed:,.0f} ×")


if __name__ == "__main__":
    main()
