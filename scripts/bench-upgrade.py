#!/usr/bin/env python3
"""The update that makes an existing library's file lean, tried on a copy of one made by the previous
version (issue: lean storage).

`BENCH_UPGRADE_FROM` names the previous version's `shelfmark` (a release build of the commit before
the migrations being tried). It seeds 100,000 titles with three copies each, 600 members and a year
of loans, and imports 20,000 more titles from a CSV (so filling-in jobs are queued, as after a real
import). The sync log, the counts and the rows are read; then this version updates the file (at the
start of any command that reads the data) (its copy before the update is kept by the update itself), and everything is read
again: nothing may be lost (rows, counts, loans) and the sync log must say exactly what it said (each
thing's version and whether it was removed), so every device's cursor stays valid. The file's size is
read before and after, with SQLite's `dbstat` per table.
"""
import os, re, shutil, subprocess, sys, time

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
TITLES = int(os.environ.get("BENCH_UPGRADE_TITLES", "100000"))
sys.path.insert(0, os.path.join(ROOT, "scripts"))


def shell(db, query):
    out = subprocess.run(["sqlite3", "-batch", "-separator", "|", db, query], text=True, capture_output=True, check=True).stdout
    return [line.split("|") for line in out.strip().splitlines()]


def text_id(column):
    """An id as upper-case text, whether the file keeps it as text (before decision 065's ids as bytes,
    and the sync log before its compact form) or as its 16 bytes."""
    h = f"hex({column})"
    as_text = f"substr({h},1,8)||'-'||substr({h},9,4)||'-'||substr({h},13,4)||'-'||substr({h},17,4)||'-'||substr({h},21,12)"
    return f"(CASE WHEN typeof({column}) = 'blob' THEN {as_text} ELSE upper({column}) END)"


def facts(db):
    entity = text_id("entity_id")
    f = {}
    for table in ["titles", "copies", "members", "loans", "reads", "activities", "categories", "title_categories", "shelves"]:
        try:
            f[table] = shell(db, f"SELECT COUNT(*) FROM {table}")[0][0]
        except subprocess.CalledProcessError:
            pass
    f["title_counts"] = shell(db, f"SELECT {text_id('library_id')}, wishlist, SUM(n) FROM title_counts GROUP BY 1, 2 ORDER BY 1, 2")
    f["copy_counts"] = shell(db, f"SELECT {text_id('library_id')}, circulating, n FROM copy_counts ORDER BY 1, 2")
    f["shelf_counts"] = shell(db, f"SELECT {text_id('library_id')}, location, n FROM shelf_counts ORDER BY 1, 2")
    f["open loans"] = shell(db, "SELECT COUNT(*) FROM loans WHERE returned_at IS NULL")[0][0]
    f["loan_count"] = shell(db, "SELECT SUM(loan_count) FROM titles")[0][0]
    f["sync log"] = shell(db, f"SELECT COUNT(*), SUM(version), SUM(deleted), MAX(version), "
                              f"SUM(length({entity})) FROM sync_log")
    f["sync log digest"] = shell(db, f"SELECT kind, {entity}, version, deleted FROM sync_log ORDER BY kind, 2")
    # Each row's library, by id whether the log keeps the id or the library's number.
    numbered = "no" in [row[1] for row in shell(db, "PRAGMA table_info(libraries)")]
    library = f"(SELECT {text_id('l.id')} FROM libraries l WHERE l.no = s.library_id)" if numbered else text_id("s.library_id")
    f["sync log libraries"] = shell(db, f"SELECT {library}, COUNT(*) FROM sync_log s GROUP BY 1 ORDER BY 1")
    # Each copy's library and barcode, by id whether the copies keep the id or the library's number.
    copies_numbered = "library_no" in [row[1] for row in shell(db, "PRAGMA table_info(copies)")]
    copy_library = f"(SELECT {text_id('l.id')} FROM libraries l WHERE l.no = c.library_no)" if copies_numbered else text_id("c.library_id")
    f["copies digest"] = shell(db, f"SELECT {text_id('c.id')}, {copy_library}, {text_id('c.title_id')}, c.barcode, c.status, c.location FROM copies c ORDER BY 1")
    # Each title's library, list, A–Z key and rowid (the search index names titles by rowid).
    titles_numbered = "library_no" in [row[1] for row in shell(db, "PRAGMA table_info(titles)")]
    title_library = f"(SELECT {text_id('l.id')} FROM libraries l WHERE l.no = t.library_no)" if titles_numbered else text_id("t.library_id")
    f["titles digest"] = shell(db, f"SELECT {text_id('t.id')}, t.rowid, {title_library}, t.wishlist, t.sort_key, t.open_loans, t.loan_count FROM titles t ORDER BY 1")
    # Each loan's library, copy, title, member, dates and rowid.
    loans_numbered = "library_no" in [row[1] for row in shell(db, "PRAGMA table_info(loans)")]
    loan_library = f"(SELECT {text_id('l.id')} FROM libraries l WHERE l.no = o.library_no)" if loans_numbered else text_id("o.library_id")
    f["loans digest"] = shell(db, f"SELECT {text_id('o.id')}, o.rowid, {loan_library}, {text_id('o.copy_id')}, {text_id('o.title_id')}, "
                                  f"{text_id('o.member_id')}, o.checked_out_at, o.due_at, o.returned_at FROM loans o ORDER BY 1")
    f["sync clock"] = shell(db, "SELECT version FROM sync_clock")
    f["floors"] = shell(db, f"SELECT {text_id('id')}, sync_floor FROM libraries ORDER BY 1")
    return f


def size(db):
    shell(db, "PRAGMA wal_checkpoint(TRUNCATE)")
    return os.path.getsize(db) / 1e6, shell(db, "SELECT name, SUM(pgsize) FROM dbstat GROUP BY name ORDER BY 2 DESC LIMIT 12")


def vacuumed(db):
    """The file's size written again without free pages (`VACUUM INTO` a copy), in MB."""
    copy = db + ".vacuumed"
    if os.path.exists(copy):
        os.remove(copy)
    shell(db, f"VACUUM INTO '{copy}'")
    mb = os.path.getsize(copy) / 1e6
    os.remove(copy)
    return mb


def main():
    previous = os.environ.get("BENCH_UPGRADE_FROM")
    if not previous:
        sys.exit("BENCH_UPGRADE_FROM must name the previous version's shelfmark binary")
    bin_path = subprocess.run(["swift", "build", "-c", "release", "--show-bin-path"], cwd=ROOT, text=True, capture_output=True).stdout.strip()
    current = os.path.join(bin_path, "shelfmark")
    work = os.path.join(ROOT, ".tmp", "bench-upgrade")
    shutil.rmtree(work, ignore_errors=True)
    data = os.path.join(work, "data")
    os.makedirs(data)
    env = dict(os.environ, SHELFMARK_DATA_DIR=data, LOG_LEVEL="error")
    env.pop("DATABASE_URL", None)
    print(f"== An update of a {TITLES:,}-title library made by the previous version ==", flush=True)
    subprocess.run([previous, "seed", "--library", "Upgrade", "--titles", str(TITLES), "--members", "600", "--copies", "3",
                    "--loans", str(TITLES // 2)], cwd=ROOT, env=env, check=True, capture_output=True)
    from importlib import import_module
    size_mod = import_module("bench-size")
    csv = os.path.join(work, "more.csv")
    size_mod.write_catalog(csv, 20_000, seed=3)
    subprocess.run([previous, "import", csv, "--library", "Imported"], cwd=ROOT, env=env, check=True, capture_output=True)
    db = os.path.join(data, "shelfmark.sqlite")
    # The seed's loans are all returned: the latest 3,000 are made open again, so the update has loans
    # to count on their titles (the on-loan list).
    shell(db, "UPDATE loans SET returned_at = NULL WHERE rowid IN (SELECT rowid FROM loans ORDER BY rowid DESC LIMIT 3000)")
    before = facts(db)
    mb_before, tables_before = size(db)
    vacuumed_before = vacuumed(db)
    t0 = time.perf_counter()
    # Any command that reads the data updates the database first (`migrate` alone skips the copy and the
    # giving back of freed pages): an export of the smaller library.
    r = subprocess.run([current, "export", "--format", "csv", "--library", "Imported", "--output", os.path.join(work, "after.csv")],
                       cwd=ROOT, env=env, text=True, capture_output=True)
    seconds = time.perf_counter() - t0
    if r.returncode != 0:
        sys.exit(f"migrate failed:\n{r.stdout}\n{r.stderr}")
    after = facts(db)
    mb_after, tables_after = size(db)
    vacuumed_after = vacuumed(db)
    lost = [k for k in before if before[k] != after[k]]
    columns = [row[1] for row in shell(db, "PRAGMA table_info(titles)")]
    if "open_loans" in columns:
        # Each title's kept open loans are its loans not yet returned, and the kept counts say as many are on loan.
        miscounted = shell(db, "SELECT COUNT(*) FROM titles t WHERE t.open_loans <> "
                               "(SELECT COUNT(*) FROM loans l WHERE l.title_id = t.id AND l.returned_at IS NULL)")[0][0]
        on_loan = shell(db, "SELECT (SELECT COUNT(*) FROM titles WHERE open_loans > 0), (SELECT SUM(n) FROM title_counts WHERE on_loan)")[0]
        print(f"   titles on loan: {on_loan[0]} (kept counts: {on_loan[1]}); titles whose open loans are miscounted: {miscounted}")
        if miscounted != "0" or on_loan[0] != on_loan[1] or on_loan[0] == "0":
            lost.append("open loans on their titles")
    print(f"   update: {seconds:.1f} s; file {mb_before:.1f} MB -> {mb_after:.1f} MB "
          f"({mb_after * 1e6 / (TITLES + 20_000):,.0f} bytes per title)")
    print(f"   vacuumed: {vacuumed_before:.1f} MB -> {vacuumed_after:.1f} MB "
          f"({vacuumed_before * 1e6 / (TITLES + 20_000):,.0f} -> {vacuumed_after * 1e6 / (TITLES + 20_000):,.0f} bytes per title)")
    print(f"   compared before and after: {', '.join(before.keys())}")
    print(f"   sync log: {before['sync log'][0][0]} rows, every (kind, id, version, removed) the same: "
          f"{before['sync log digest'] == after['sync log digest']}")
    print("   largest before: " + ", ".join(f"{n} {int(b) / 1e6:.1f}" for n, b in tables_before[:8]))
    print("   largest after:  " + ", ".join(f"{n} {int(b) / 1e6:.1f}" for n, b in tables_after[:8]))
    if lost:
        sys.exit(f"CHANGED by the update: {lost}")
    print("nothing lost: rows, counts, loans and the sync log (so every cursor) as they were")


if __name__ == "__main__":
    main()
