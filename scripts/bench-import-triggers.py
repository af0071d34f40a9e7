#!/usr/bin/env python3
"""What one statement per table instead of the per-row triggers would give an import, measured with SQLite
alone (decision 065): the import bench's floor (the same 100,000 rows and their copies inserted by
INSERT ... SELECT) on a copy of a library's file, twice each way: with every trigger, and with the counts'
and sync log's triggers dropped and their work done as one statement per table after the rows.

Usage: scripts/bench-import-triggers.py <a shelfmark.sqlite holding one imported library>, e.g. the file
`scripts/bench-size.py` leaves in .tmp/bench-size/data. Needs the test venv's pysqlite3."""
import os, shutil, sys, time

import pysqlite3 as s
src = sys.argv[1]
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from importlib import import_module
bi = import_module('bench-import')
con = s.connect(src)
lib, form = con.execute("SELECT hex(id), typeof(id) FROM libraries WHERE id IN (SELECT library_id FROM titles LIMIT 1)").fetchone()
con.close()
form = "bytes" if form == "blob" else "text"
lib = f"x'{lib}'" if form == "bytes" else "'" + bytes.fromhex(lib).decode() + "'"
floor = bi.FLOOR_LIBRARY[form]
script = bi.FLOOR_IMPORT.format(lib=lib, rid=bi.RANDOM_ID[form], floor=floor)
NOW = "((julianday('now') - 2440587.5) * 86400.0)"
batch = f"""
BEGIN;
UPDATE sync_clock SET version = version + 1 WHERE id = 1;
INSERT INTO sync_log (kind, entity_id, library_id, version, deleted, changed_at)
SELECT 1, id, library_id, (SELECT version FROM sync_clock WHERE id = 1), wishlist, CASE WHEN wishlist THEN {NOW} END FROM titles WHERE library_id = {floor}
ON CONFLICT (kind, entity_id) DO UPDATE SET version = excluded.version;
INSERT INTO sync_log (kind, entity_id, library_id, version, deleted, changed_at)
SELECT 2, id, library_id, (SELECT version FROM sync_clock WHERE id = 1), FALSE, NULL FROM copies WHERE library_id = {floor}
ON CONFLICT (kind, entity_id) DO UPDATE SET version = excluded.version;
INSERT INTO title_counts (library_id, wishlist, section, favorite, early, n)
SELECT library_id, wishlist, section, favorite, sort_key < 'a', COUNT(*) FROM titles WHERE library_id = {floor} GROUP BY 1, 2, 3, 4, 5
ON CONFLICT (library_id, wishlist, section, favorite, early) DO UPDATE SET n = n + excluded.n;
INSERT INTO copy_counts (library_id, circulating, n)
SELECT library_id, status IN ('available', 'on_loan'), COUNT(*) FROM copies WHERE library_id = {floor} GROUP BY 1, 2
ON CONFLICT (library_id, circulating) DO UPDATE SET n = n + excluded.n;
COMMIT;
"""
rows = int(sys.argv[2]) if len(sys.argv) > 2 else 100000
for label in ["per-row triggers", "per-table statements"] * 2:
    dst = src + '.triggers-copy'
    shutil.copy(src, dst)
    c = s.connect(dst, isolation_level=None)
    if label != "per-row triggers":
        for (name,) in c.execute("SELECT name FROM sqlite_schema WHERE type='trigger' AND (name LIKE 'sync_titles%' OR name LIKE 'sync_copies%' OR name LIKE '%counts%')").fetchall():
            c.execute(f"DROP TRIGGER {name}")
    c.close()
    t0 = time.perf_counter()
    c = s.connect(dst, isolation_level=None)
    c.executescript(script)
    if label != "per-row triggers":
        c.executescript(batch)
    c.close()
    el = time.perf_counter() - t0
    print(f"{label}: {rows / el:,.0f} rows/s ({el:.2f} s)", flush=True)
    for suffix in ("", "-wal", "-shm"):
        if os.path.exists(dst + suffix):
            os.remove(dst + suffix)
