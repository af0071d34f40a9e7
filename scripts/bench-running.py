#!/usr/bin/env python3
"""Running for years, measured: the nightly backup of a school of BENCH_RUNNING_TITLES titles (default
100,000 × 3 copies, 600 members, BENCH_RUNNING_LOANS loans of which 40 % returned) while others use
the server, then the same installation moved into PostgreSQL.

1. The backup (`POST /api/v1/server/backups`, the nightly job's own code: VACUUM INTO, every library's
   file, each read back and checked): its time, and `/health` and a catalog search meanwhile (p50 / p99 /
   max) next to the same requests with nothing running, measured in the same run. Targets: ≤ 60 s,
   p99 ≤ 50 ms.
2. The move (`shelfmark copy-to-postgres`, server stopped) into a private PostgreSQL cluster: its time
   (copy and the read-back comparison of every row), then every table's count on both sides compared
   again by `sqlite3` and `psql`. Target: ≤ 5 minutes.

Uses the release build of `make bench` (or BENCH_BIN=<bin dir>)."""
import concurrent.futures, json, os, subprocess, tempfile, time

import benchlib

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
PORT = int(os.environ.get("BENCH_PORT", "8197"))
PG_PORT = int(os.environ.get("BENCH_PG_PORT", "55441"))
TITLES = int(os.environ.get("BENCH_RUNNING_TITLES", "100000"))
LOANS = int(os.environ.get("BENCH_RUNNING_LOANS", "10000"))
BASE = f"http://127.0.0.1:{PORT}"


class SkipBackup(Exception):
    """BENCH_RUNNING_ONLY_MOVE: an earlier run's folder (BENCH_RUNNING_WORK) is moved again without a backup."""


def call(method, path, body=None, token=None):
    return benchlib.call(BASE, method, path, body, token)


def lend(token, library):
    """LOANS check-outs through the API (4 at a time), 40 % of them returned."""
    members = json.loads(call("GET", f"/api/v1/libraries/{library}/members?limit=500", token=token)[1])
    cards = [m["cardId"] for m in members]
    titles = []
    while len(titles) < LOANS:
        page = json.loads(call("GET", f"/api/v1/libraries/{library}/titles?limit=500&offset={len(titles)}&sort=title", token=token)[1])["items"]
        if not page:
            break
        titles += [t["id"] for t in page]

    def one(i):
        status, body = call("POST", f"/api/v1/libraries/{library}/checkouts", {"cardId": cards[i % len(cards)], "titleId": titles[i % len(titles)]}, token)
        if status != 201:
            return 0
        if i % 5 < 2:
            call("POST", f"/api/v1/libraries/{library}/loans/{json.loads(body)['id']}/return", token=token)
        return 1

    t0 = time.time()
    with concurrent.futures.ThreadPoolExecutor(4) as pool:
        made = sum(pool.map(one, range(LOANS)))
    print(f"   lent {made:,} loans through the API ({time.time() - t0:.0f} s), 40 % returned", flush=True)


def main():
    bin_dir = benchlib.release_bin()
    binary = f"{bin_dir}/shelfmark"
    # BENCH_RUNNING_WORK: a folder of an earlier run whose seeded data is used again (seeding takes minutes).
    work = os.environ.get("BENCH_RUNNING_WORK") or tempfile.mkdtemp(prefix="shelfmark-running-")
    backups = os.path.join(work, "backups")
    os.makedirs(backups, exist_ok=True)
    for old in os.listdir(backups):
        subprocess.run(["rm", "-rf", os.path.join(backups, old)], check=True)
    env = dict(os.environ, SHELFMARK_DATA_DIR=os.path.join(work, "data"), SHELFMARK_BACKUP_DIR=backups,
               LOG_LEVEL=os.environ.get("BENCH_LOG_LEVEL", "error"), SHELFMARK_PROVIDERS_URL="http://127.0.0.1:9")
    env.pop("DATABASE_URL", None)
    print(f"== running for years: a school of {TITLES:,} titles (SQLite) ==", flush=True)
    if not os.path.exists(os.path.join(work, "data", "shelfmark.sqlite")):
        benchlib.seed_school(binary, env, "SQLite", TITLES, 600)
    server = benchlib.start_server(binary, env, PORT, work)
    try:
        if os.environ.get("BENCH_RUNNING_ONLY_MOVE"):
            raise SkipBackup()
        token = json.loads(call("POST", "/api/v1/auth/login", {"username": "bench", "password": "bench-password"})[1])["token"]
        library = json.loads(call("GET", "/api/v1/libraries", token=token)[1])[0]["id"]
        lend(token, library)
        requests = {"health": lambda: call("GET", "/api/v1/health")[0],
                    "catalog search": lambda: call("GET", f"/api/v1/libraries/{library}/titles?q=atlas&limit=20", token=token)[0]}

        def backup():
            t = time.perf_counter()
            status, body = call("POST", "/api/v1/server/backups", token=token)
            assert status == 202, (status, body[:300])
            job = json.loads(body)["id"]
            while True:
                state = json.loads(call("GET", f"/api/v1/jobs/{job}", token=token)[1])
                if state["state"] != "running":
                    assert state["state"] == "done", state
                    return time.perf_counter() - t
                time.sleep(0.1)

        quiet, _ = benchlib.measure(requests, None)
        busy, seconds = benchlib.measure(requests, backup)
        folder = [n for n in os.listdir(backups) if n.startswith("shelfmark-")]
        size = sum(os.path.getsize(os.path.join(d, f)) for d, _, fs in os.walk(os.path.join(backups, folder[0])) for f in fs)
        print(f"   nightly backup: {seconds:.1f} s for {size / 1e6:.0f} MB (the database copy and the library's file, each read back and checked)", flush=True)
        for name in requests:
            (q, _, _), (b, errors, slow) = quiet[name], busy[name]
            print(f"   {name:15} nothing running p50 {benchlib.pct(q, 50):6.2f} p99 {benchlib.pct(q, 99):6.2f} ms | during the backup "
                  f"p50 {benchlib.pct(b, 50):6.2f} p99 {benchlib.pct(b, 99):6.2f} max {max(b):7.1f} ms, {len(b)} requests, "
                  f"{len(errors)} errors (×{benchlib.pct(b, 99) / benchlib.pct(q, 99):.1f} at p99)", flush=True)
            if slow:
                print(f"   {'':15} over 1 s (started at, UTC; ms): {slow}", flush=True)
    except SkipBackup:
        pass
    finally:
        server.terminate()
        server.wait(timeout=60)

    # Under the project's .tmp: PostgreSQL's own user cannot enter a private temporary folder.
    cluster = os.path.join(ROOT, ".tmp", "bench-running-pg")
    url = subprocess.run([os.path.join(ROOT, "scripts/pg-test-cluster.sh"), "start", cluster, str(PG_PORT)], check=True,
                         capture_output=True, text=True).stdout.strip().splitlines()[-1]
    try:
        target = url.rsplit("/", 1)[0] + "/shelfmark_moved"
        subprocess.run(["psql", url, "-qc", "CREATE DATABASE shelfmark_moved"], check=True)
        t0 = time.time()
        moved = subprocess.run([binary, "copy-to-postgres", target], env=env, capture_output=True, text=True)
        seconds = time.time() - t0
        assert moved.returncode == 0, moved.stderr[-2000:]
        print(f"   copy-to-postgres: {seconds:.0f} s ({moved.stdout.strip().splitlines()[-2]})", flush=True)
        database = os.path.join(env["SHELFMARK_DATA_DIR"], "shelfmark.sqlite")
        tables = subprocess.run(["psql", target, "-Atc", "SELECT table_name FROM information_schema.tables WHERE table_schema = 'public' "
                                 "AND table_type = 'BASE TABLE' AND table_name <> '_fluent_migrations' ORDER BY 1"],
                                check=True, capture_output=True, text=True).stdout.split()
        differ = []
        for table in tables:
            a = subprocess.run(["sqlite3", database, f"SELECT COUNT(*) FROM {table}"], check=True, capture_output=True, text=True).stdout.strip()
            b = subprocess.run(["psql", target, "-Atc", f"SELECT COUNT(*) FROM {table}"], check=True, capture_output=True, text=True).stdout.strip()
            if a != b:
                differ.append((table, a, b))
        loans = subprocess.run(["psql", target, "-Atc", "SELECT COUNT(*) FROM loans"], check=True, capture_output=True, text=True).stdout.strip()
        print(f"   counted again by sqlite3 and psql: {len(tables)} tables, {'all equal' if not differ else differ}; {int(loans):,} loans", flush=True)
    finally:
        subprocess.run([os.path.join(ROOT, "scripts/pg-test-cluster.sh"), "stop", cluster], capture_output=True)


if __name__ == "__main__":
    main()
