#!/usr/bin/env python3
"""The sync feed and push at a school's size: 20,000 titles × 3 copies, 600 members and 600 open
loans, on SQLite and, when PostgreSQL is installed, on a private throwaway cluster.

- A first pull: every page of `…/sync/changes` (limit 5,000) from no cursor, gzip accepted as a phone
  does; the time from the first request to the last answer (server time plus localhost) and the bytes
  as sent. Targets: ≤ 2 s and ≤ 15 MB compressed.
- An incremental pull after 10 changes (lends, returns, a title edited), BENCH_SYNC_ROUNDS times:
  p50 and p99 of the pull alone. Target p99 ≤ 20 ms.
- A push of 100 queued check-outs, then one of their 100 returns, BENCH_SYNC_PUSHES times each: median
  and worst. Target ≤ 200 ms.
- Baseline in the same run: `GET …/titles?limit=50` (the API's first catalog page), p50 — each figure
  is also given as a ratio to it, since these machines are noisy.

Uses the release build (or BENCH_BIN=<bin dir>; a debug build gives upper bounds)."""
import gzip, json, os, statistics, subprocess, tempfile, time, urllib.request

import benchlib

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
TITLES = int(os.environ.get("BENCH_SYNC_TITLES", "20000"))
MEMBERS = int(os.environ.get("BENCH_SYNC_MEMBERS", "600"))
ROUNDS = int(os.environ.get("BENCH_SYNC_ROUNDS", "100"))
PUSHES = int(os.environ.get("BENCH_SYNC_PUSHES", "5"))
PORT = int(os.environ.get("BENCH_PORT", "8198"))
PG_PORT = int(os.environ.get("BENCH_PG_PORT", "55498"))
BASE = f"http://127.0.0.1:{PORT}"


def request(method, path, token=None, body=None, headers=None):
    h = dict(headers or {})
    data = None
    if body is not None:
        data, h["content-type"] = json.dumps(body).encode(), "application/json"
    if token:
        h["authorization"] = f"Bearer {token}"
    req = urllib.request.Request(BASE + path, method=method, data=data, headers=h)
    try:
        with urllib.request.urlopen(req, timeout=60) as r:
            return r.status, r.read(), dict(r.headers)
    except urllib.error.HTTPError as e:
        return e.code, e.read(), dict(e.headers)


def timed(method, path, token, body=None, headers=None):
    t = time.perf_counter()
    status, raw, h = request(method, path, token, body, headers)
    elapsed = (time.perf_counter() - t) * 1000
    assert status == 200, f"{path}: HTTP {status} {raw[:300]!r}"
    return elapsed, raw, h


def page_json(raw, headers):
    return json.loads(gzip.decompress(raw) if headers.get("Content-Encoding") == "gzip" else raw)


def first_pull(api, token):
    """Every page from no cursor: total ms, bytes as sent, changes, final cursor."""
    cursor, total, sent, count = None, 0.0, 0, 0
    t0 = time.perf_counter()
    while True:
        path = f"{api}/sync/changes?limit=5000" + (f"&cursor={cursor}" if cursor else "")
        _, raw, h = timed("GET", path, token, headers={"accept-encoding": "gzip"})
        sent += len(raw)
        page = page_json(raw, h)
        count += len(page["changes"])
        cursor = page["cursor"]
        if not page["more"] and not page["behind"]:
            break
    total = (time.perf_counter() - t0) * 1000
    return total, sent, count, cursor


def run_backend(bin_dir, name, env):
    binary = f"{bin_dir}/shelfmark"
    benchlib.seed_school(binary, env, name, TITLES, MEMBERS)
    server = benchlib.start_server(binary, env, PORT, env["SHELFMARK_DATA_DIR"])
    try:
        token = json.loads(request("POST", "/api/v1/auth/login", body={"username": "bench", "password": "bench-password"})[1])["token"]
        lib = [l for l in json.loads(request("GET", "/api/v1/libraries", token=token)[1]) if l["name"] == "School"][0]["id"]
        api = f"/api/v1/libraries/{lib}"
        copies = []
        members = []
        c = None
        while True:
            page = page_json(*timed("GET", f"{api}/sync/changes?limit=5000" + (f"&cursor={c}" if c else ""), token)[1:])
            copies += [ch["copy"]["barcode"] for ch in page["changes"] if ch["kind"] == "copy" and ch.get("copy")]
            members += [ch["member"]["cardId"] for ch in page["changes"] if ch["kind"] == "member" and ch.get("member")]
            c = page["cursor"]
            if not page["more"]:
                break
        titles = json.loads(request("GET", f"{api}/titles?limit=50", token=token)[1])["items"]
        # Open loans, as a school has: one per member.
        for i in range(MEMBERS):
            request("POST", f"{api}/checkouts", token=token, body={"cardId": members[i], "copyBarcode": copies[i]})
        # Baseline: the API's first catalog page.
        for _ in range(20):
            request("GET", f"{api}/titles?limit=50", token=token)
        base = statistics.median(timed("GET", f"{api}/titles?limit=50", token)[0] for _ in range(100))
        results = {}
        firsts = [first_pull(api, token) for _ in range(3)]
        total, sent, count, cursor = sorted(firsts)[1]
        results["first pull"] = total
        print(f"   {name}: first pull {count:,} changes in {total:.0f} ms ({total / base:.0f}× baseline), "
              f"{sent / 1e6:.2f} MB as sent (gzip) (targets ≤ 2,000 ms, ≤ 15 MB)", flush=True)
        # Incremental: 10 changes, then one pull.
        pulls = []
        spare = copies[MEMBERS:]
        for r in range(ROUNDS):
            for k in range(4):
                b = spare[(r * 4 + k) % len(spare)]
                request("POST", f"{api}/checkouts", token=token, body={"cardId": members[(r * 4 + k) % len(members)], "copyBarcode": b})
            for k in range(4):
                request("POST", f"{api}/returns", token=token, body={"copyBarcode": spare[(r * 4 + k) % len(spare)]})
            for k in range(2):
                request("PATCH", f"{api}/titles/{titles[(r * 2 + k) % len(titles)]['id']}", token=token, body={"subtitle": f"Round {r}"})
            elapsed, raw, h = timed("GET", f"{api}/sync/changes?cursor={cursor}", token, headers={"accept-encoding": "gzip"})
            page = page_json(raw, h)
            assert len(page["changes"]) >= 10, f"only {len(page['changes'])} changes"
            cursor = page["cursor"]
            pulls.append(elapsed)
        p50, p99 = benchlib.pct(pulls, 50), benchlib.pct(pulls, 99)
        results["incremental p99"] = p99
        print(f"   {name}: incremental pull of ~10 changes p50 {p50:.2f} ms p99 {p99:.2f} ms ({p99 / base:.1f}× baseline) (target p99 ≤ 20 ms)", flush=True)
        # Push 100 check-outs, then their 100 returns.
        out_times, back_times = [], []
        for p in range(PUSHES):
            chunk = spare[1000 + p * 100: 1000 + (p + 1) * 100]
            lend = [{"seq": i + 1, "op": "checkout", "cardId": members[i % len(members)], "copyBarcode": b} for i, b in enumerate(chunk)]
            back = [{"seq": 101 + i, "op": "return", "copyBarcode": b} for i, b in enumerate(chunk)]
            elapsed, raw, _ = timed("POST", f"{api}/sync/push", token, body={"clientId": f"bench-{p}", "mutations": lend})
            results_ = json.loads(raw)["results"]
            assert all(x["status"] == "applied" for x in results_), [x for x in results_ if x["status"] != "applied"][:2]
            out_times.append(elapsed)
            elapsed, raw, _ = timed("POST", f"{api}/sync/push", token, body={"clientId": f"bench-{p}", "mutations": back})
            assert all(x["status"] == "applied" for x in json.loads(raw)["results"])
            back_times.append(elapsed)
        results["push 100"] = max(statistics.median(out_times), statistics.median(back_times))
        print(f"   {name}: push of 100 check-outs median {statistics.median(out_times):.0f} ms (worst {max(out_times):.0f}), "
              f"100 returns median {statistics.median(back_times):.0f} ms (worst {max(back_times):.0f}) "
              f"({statistics.median(out_times) / base:.0f}× baseline) (target ≤ 200 ms)", flush=True)
        print(f"   {name}: baseline GET titles?limit=50 p50 {base:.2f} ms", flush=True)
        return results
    finally:
        server.terminate()
        server.wait(timeout=20)


def main():
    bin_dir = benchlib.release_bin()
    print(f"== Sync at school size: {TITLES:,} titles, {MEMBERS} members ==", flush=True)
    work = tempfile.mkdtemp(prefix="shelfmark-sync-")
    env = dict(os.environ, SHELFMARK_DATA_DIR=os.path.join(work, "sqlite"), LOG_LEVEL="error",
               SHELFMARK_PROVIDERS_URL="http://127.0.0.1:9", SHELFMARK_LOOKUP_TIMEOUT="1")
    env.pop("DATABASE_URL", None)
    os.makedirs(env["SHELFMARK_DATA_DIR"])
    run_backend(bin_dir, "SQLite", env)
    if os.path.exists("/usr/lib/postgresql") and not os.environ.get("BENCH_SKIP_POSTGRES"):
        cluster = os.path.join(ROOT, ".tmp", "bench-sync-pg")
        url = subprocess.run([os.path.join(ROOT, "scripts", "pg-test-cluster.sh"), "start", cluster, str(PG_PORT)], check=True,
                             capture_output=True, text=True).stdout.strip()
        try:
            pg_env = dict(env, SHELFMARK_DATA_DIR=os.path.join(work, "pgdata"), DATABASE_URL=url)
            os.makedirs(pg_env["SHELFMARK_DATA_DIR"])
            run_backend(bin_dir, "PostgreSQL", pg_env)
        finally:
            subprocess.run([os.path.join(ROOT, "scripts", "pg-test-cluster.sh"), "stop", cluster], capture_output=True)


if __name__ == "__main__":
    main()
