#!/usr/bin/env python3
"""The reports' targets, measured (part of `make bench`): every report at 100,000 titles, 200,000 copies,
2,000 members and 1,000,000 loans over five years, p99 <= 300 ms; the weeding list's CSV <= 2 s; five
saved reports mailed (made, attached, handed to a local SMTP server) <= 5 s. On SQLite, then on a
private PostgreSQL cluster. Prints each report's p50/p99 and, as the same-run baseline, the catalog's
first page (`GET /titles`), and the ratio of each to it.

    BENCH_BIN=.build/release scripts/bench-reports.py      (default: the release build)
    BENCH_REPORT_LOANS=1000000 BENCH_REPORT_TITLES=100000 BENCH_REPORT_REQUESTS=20 BENCH_SKIP_POSTGRES=1
"""
import json, os, shutil, statistics, subprocess, sys, tempfile, time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from benchlib import ROOT, call, pct, release_bin, start_server  # noqa: E402

TITLES = int(os.environ.get("BENCH_REPORT_TITLES", "100000"))
LOANS = int(os.environ.get("BENCH_REPORT_LOANS", "1000000"))
MEMBERS = int(os.environ.get("BENCH_REPORT_MEMBERS", "2000"))
REQUESTS = int(os.environ.get("BENCH_REPORT_REQUESTS", "20"))
PORT, PG_PORT = 18731, 55437
REPORTS = [
    ("circulation, school year", "circulation?period=school-year"),
    ("circulation, last 12 months by week", "circulation?period=last-12-months&group=week"),
    ("collection", "collection?period=school-year"),
    ("weeding", "weeding"),
    ("readers, school year", "readers?period=school-year"),
    ("money, school year", "money?period=school-year"),
]


def timed(base, path, token, n):
    times = []
    for _ in range(n):
        t = time.perf_counter()
        status, body = call(base, "GET", path, token=token)
        times.append((time.perf_counter() - t) * 1000)
        if status != 200:
            sys.exit(f"{path}: {status} {body[:300]!r}")
    return times


def run_backend(binary, name, env, work):
    subprocess.run([binary, "user", "create", "--username", "bench", "--password", "bench-password", "--library", "School"],
                   env=env, check=True, capture_output=True)
    t0 = time.time()
    subprocess.run([binary, "seed", "--library", "School", "--owner", "bench", "--titles", str(TITLES), "--members", str(MEMBERS),
                    "--copies", "2", "--loans", str(LOANS), "--loan-years", "5"], env=env, check=True, capture_output=True)
    print(f"   {name}: seeded {TITLES:,} titles × 2 copies, {MEMBERS:,} members, {LOANS:,} loans over 5 years in {time.time() - t0:.0f} s",
          flush=True)
    server = start_server(binary, env, PORT, work, seconds=120)
    base = f"http://127.0.0.1:{PORT}"
    smtp = None
    try:
        token = json.loads(call(base, "POST", "/api/v1/auth/login", {"username": "bench", "password": "bench-password"})[1])["token"]
        lib = [l for l in json.loads(call(base, "GET", "/api/v1/libraries", token=token)[1]) if l["name"] == "School"][0]["id"]
        api = f"/api/v1/libraries/{lib}"
        timed(base, f"{api}/titles?limit=50", token, 3)
        baseline = timed(base, f"{api}/titles?limit=50", token, REQUESTS)
        b50 = statistics.median(baseline)
        print(f"   {name}: baseline, the catalog's first page: p50 {b50:.1f} ms, p99 {pct(baseline, 99):.1f} ms", flush=True)
        worst = 0
        for label, path in REPORTS:
            timed(base, f"{api}/reports/{path}", token, 1)
            times = timed(base, f"{api}/reports/{path}", token, REQUESTS)
            p50, p99 = statistics.median(times), pct(times, 99)
            worst = max(worst, p99)
            print(f"   {name}: {label}: p50 {p50:.0f} ms, p99 {p99:.0f} ms = {p99 / 300:.0%} of the 300 ms target; "
                  f"p50 {p50 / b50:.0f} x the baseline", flush=True)
        weeding = timed(base, f"{api}/reports/weeding.csv?table=weedingList", token, 3)
        print(f"   {name}: weeding list as CSV: median {statistics.median(weeding):.0f} ms (target ≤ 2,000 ms)", flush=True)

        # Five saved reports mailed now, to a local SMTP server (what the monthly run does for each).
        spool = os.path.join(work, "smtp")
        smtp = subprocess.Popen([os.path.join(ROOT, ".tmp", "venv", "bin", "python"), os.path.join(ROOT, "Tests", "smtp", "server.py"),
                                 spool, "--mode", "plain"], stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True)
        port = json.loads(smtp.stdout.readline())["port"]
        status, body = call(base, "PUT", f"{api}/mail/server", {"host": "127.0.0.1", "port": port, "security": "none",
                                                                 "senderAddress": "library@school.example"}, token=token)
        if status != 200:
            sys.exit(f"mail server: {status} {body[:300]!r}")
        saved = []
        for i, (label, path) in enumerate(REPORTS[:5]):
            kind, _, options = path.partition("?")
            status, body = call(base, "POST", f"{api}/saved-reports", {"name": f"Bench {i}: {label}", "kind": kind, "options": options,
                                                                        "schedule": "monthly", "recipients": ["head@school.example"]},
                                token=token)
            if status != 201:
                sys.exit(f"saved report: {status} {body[:300]!r}")
            saved.append(json.loads(body)["id"])
        t = time.perf_counter()
        for sid in saved:
            status, body = call(base, "POST", f"{api}/saved-reports/{sid}/send", {}, token=token)
            if status != 200 or any(m["status"] != "sent" for m in json.loads(body)):
                sys.exit(f"send: {status} {body[:300]!r}")
        mailed = time.perf_counter() - t
        print(f"   {name}: five saved reports made, attached and mailed: {mailed:.1f} s (target ≤ 5 s)", flush=True)
        return worst, mailed
    finally:
        if smtp:
            smtp.stdin.close()
            smtp.wait(timeout=10)
        server.terminate()
        server.wait(timeout=30)


def main():
    binary = os.path.join(release_bin(), "shelfmark")
    print(f"== reports: {TITLES:,} titles, {LOANS:,} loans, {REQUESTS} requests per report ==", flush=True)
    work = tempfile.mkdtemp(prefix="shelfmark-reports-")
    env = dict(os.environ, SHELFMARK_DATA_DIR=os.path.join(work, "sqlite"), LOG_LEVEL="error",
               SHELFMARK_PROVIDERS_URL="http://127.0.0.1:9", SHELFMARK_LOOKUP_TIMEOUT="1")
    env.pop("DATABASE_URL", None)
    os.makedirs(env["SHELFMARK_DATA_DIR"])
    try:
        results = [("SQLite",) + run_backend(binary, "SQLite", env, work)]
        if os.path.exists("/usr/lib/postgresql") and not os.environ.get("BENCH_SKIP_POSTGRES"):
            cluster = os.path.join(ROOT, ".tmp", "bench-reports-pg")
            url = subprocess.run([os.path.join(ROOT, "scripts", "pg-test-cluster.sh"), "start", cluster, str(PG_PORT)], check=True,
                                 capture_output=True, text=True).stdout.strip()
            try:
                pg_env = dict(env, SHELFMARK_DATA_DIR=os.path.join(work, "pgdata"), DATABASE_URL=url)
                os.makedirs(pg_env["SHELFMARK_DATA_DIR"])
                results.append(("PostgreSQL",) + run_backend(binary, "PostgreSQL", pg_env, work))
            finally:
                subprocess.run([os.path.join(ROOT, "scripts", "pg-test-cluster.sh"), "stop", cluster], capture_output=True)
        for name, worst, mailed in results:
            print(f"   {name}: slowest report p99 {worst:.0f} ms (target ≤ 300 ms); five saved reports mailed in {mailed:.1f} s (target ≤ 5 s)")
    finally:
        shutil.rmtree(work, ignore_errors=True)


if __name__ == "__main__":
    main()
