#!/usr/bin/env python3
"""make bench: release build, 100,000 seeded titles, then
  1. search latency, in-process (server side): p50/p99 over as-you-type prefixes,
  2. check-outs per second over HTTP with concurrent clients (wrk),
  3. requests per second of a title read next to a trivial route, measured in the same run,
  4. ISBN lookup with each provider 300 ms away (the replay server): a fresh lookup against the
     slowest provider's own latency, and a cached lookup against GET /me, both measured here,
  5. the same with all five book sources on (Google Books, Open Library and the national libraries'
     SRU catalogues): a German book two catalogues know, fresh (four answers merged, two MARC records
     read) and cached.
Figures are medians over rounds; the read figure is a ratio against the trivial route.
BENCH_BIN_DIR=<dir> measures the `shelfmark` there instead (another build, for a same-run baseline)."""
import json, os, re, shutil, signal, statistics, subprocess, sys, tempfile, time, urllib.request

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
TITLES = int(os.environ.get("BENCH_TITLES", "100000"))
ROUNDS = int(os.environ.get("BENCH_ROUNDS", "3"))
DURATION = os.environ.get("BENCH_DURATION", "8s")
PORT = int(os.environ.get("BENCH_PORT", "8199"))
REPLAY_PORT = int(os.environ.get("BENCH_REPLAY_PORT", "8198"))
PROVIDER_LATENCY_MS = 300
BASE = f"http://127.0.0.1:{PORT}/api/v1"


def sh(*args, env=None, capture=True):
    r = subprocess.run(args, cwd=ROOT, env=env, text=True, capture_output=capture)
    if r.returncode != 0:
        sys.exit(f"failed: {' '.join(args)}\n{r.stdout}\n{r.stderr}")
    return r.stdout


def call(method, path, body=None, token=None):
    req = urllib.request.Request(BASE + path, method=method, data=json.dumps(body).encode() if body is not None else None)
    req.add_header("content-type", "application/json")
    if token:
        req.add_header("authorization", f"Bearer {token}")
    with urllib.request.urlopen(req, timeout=30) as r:
        return json.loads(r.read() or b"{}")


def wrk(path, token, script=None, connections=32, env=None):
    args = ["wrk", "-t2", f"-c{connections}", f"-d{DURATION}", "--timeout", "5s", "-H", f"Authorization: Bearer {token}"]
    if script:
        args += ["-s", script]
    out = subprocess.run(args + [f"http://127.0.0.1:{PORT}{path}"], text=True, capture_output=True, env=env).stdout
    total = int(re.search(r"(\d+) requests in", out).group(1))
    secs = float(re.search(r"requests in ([\d.]+)s", out).group(1))
    non2xx = re.search(r"Non-2xx or 3xx responses: (\d+)", out)
    bad = int(non2xx.group(1)) if non2xx else 0
    return (total - bad) / secs, bad, out


def isbn13(n):
    """A valid ISBN-13 (978-1-…) from a number: distinct ISBNs that no cache has seen."""
    first12 = f"9781{n:08d}"
    total = sum(int(d) * (1 if i % 2 == 0 else 3) for i, d in enumerate(first12))
    return first12 + str((10 - total % 10) % 10)


def timed_ms(fn):
    t = time.perf_counter()
    fn()
    return (time.perf_counter() - t) * 1000


def cached_lookup(token, isbn):
    """A cached lookup of `isbn` next to `GET /me`, 300 sequential requests each per round: the medians
    over rounds of each round's p50, (lookup, /me)."""
    cached_rounds, me_rounds = [], []
    for r in range(ROUNDS):
        cached_rounds.append(statistics.median(timed_ms(lambda: call("POST", "/lookup/isbn", {"isbn": isbn}, token)) for _ in range(300)))
        me_rounds.append(statistics.median(timed_ms(lambda: call("GET", "/me", token=token)) for _ in range(300)))
        print(f"   round {r + 1}: cached lookup p50 {cached_rounds[-1]:.2f} ms, GET /me p50 {me_rounds[-1]:.2f} ms")
    return statistics.median(cached_rounds), statistics.median(me_rounds)


def pct(values, q):
    v = sorted(values)
    return v[min(len(v) - 1, int(round(q * (len(v) - 1))))]


def main():
    print("== Building release (swift build -c release) ==", flush=True)
    if not os.environ.get("BENCH_BIN_DIR"):
        sh("swift", "build", "-c", "release", "--product", "shelfmark", capture=False)
    sh("swift", "build", "-c", "release", "--product", "shelfmark-replay", capture=False)
    bin_path = sh("swift", "build", "-c", "release", "--show-bin-path").strip()
    # BENCH_BIN_DIR: another build's `shelfmark` (the previous version, for a same-run baseline).
    binary = os.path.join(os.environ.get("BENCH_BIN_DIR") or bin_path, "shelfmark")
    data = os.path.join(ROOT, ".tmp", "bench")
    shutil.rmtree(data, ignore_errors=True)
    os.makedirs(data)
    env = dict(os.environ, SHELFMARK_DATA_DIR=data, LOG_LEVEL="error")
    env.pop("DATABASE_URL", None)
    sh(binary, "user", "create", "--username", "bench", "--password", "bench-password", "--library", "Bench", env=env)
    t0 = time.time()
    print(sh(binary, "seed", "--library", "Bench", "--owner", "bench", "--titles", str(TITLES), "--members", "2000", "--copies", "3", env=env).strip())
    print(f"   (seeding took {time.time() - t0:.1f} s)")

    print("== 1. Search latency, server side ==", flush=True)
    lines = [json.loads(l) for l in sh(binary, "bench-search", "--library", "Bench", "--rounds", "5", env=env).splitlines() if l.startswith("{")]
    rounds = [l for l in lines if "round" in l]
    slowest = sorted((l for l in lines if "prefix" in l), key=lambda l: -l["median_ms"])[:5]
    search_p50 = statistics.median(r["p50_ms"] for r in rounds)
    search_p99 = statistics.median(r["p99_ms"] for r in rounds)
    print(f"   {len(rounds)} rounds × {rounds[0]['queries']} queries: p50 {search_p50:.2f} ms, p99 {search_p99:.2f} ms (medians over rounds)")
    print("   slowest prefixes (median): " + ", ".join(f"'{l['prefix']}' {l['median_ms']:.1f} ms" for l in slowest))

    print("== 1b. Spoken page numbers (>= 100,000 phrases/s on one core) ==", flush=True)
    spoken = [json.loads(l) for l in sh(binary, "bench-spoken", "--rounds", "7", env=env).splitlines() if l.startswith("{")]
    rate = statistics.median(r["phrases_per_second"] for r in spoken)
    print(f"   {len(spoken)} rounds × {spoken[0]['phrases']:,} phrases (en/de/ga/zh mix): median {rate:,.0f} phrases/s, "
          f"{rate / 100_000:.2f}× the target")

    replay = subprocess.Popen([os.path.join(bin_path, "shelfmark-replay"), "--port", str(REPLAY_PORT), "--latency", str(PROVIDER_LATENCY_MS)],
                              cwd=ROOT, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    replay_base = f"http://127.0.0.1:{REPLAY_PORT}"
    server = subprocess.Popen([binary, "serve", "--hostname", "127.0.0.1", "--port", str(PORT)], cwd=ROOT,
                              env=dict(env, SHELFMARK_PROVIDERS_URL=replay_base),
                              stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    try:
        for _ in range(100):
            try:
                call("GET", "/health")
                break
            except Exception:
                time.sleep(0.2)
        token = call("POST", "/auth/login", {"username": "bench", "password": "bench-password"})["token"]
        lib = [l for l in call("GET", "/libraries", token=token) if l["name"] == "Bench"][0]["id"]
        ids = []
        for offset in range(0, 40000, 500):
            ids += [t["id"] for t in call("GET", f"/libraries/{lib}/titles?limit=500&offset={offset}", token=token)["items"]]
        title_path = f"/api/v1/libraries/{lib}/titles/{ids[len(ids) // 2]}"

        print("== 2. Check-outs per second over HTTP (wrk, 2 threads, 32 connections) ==", flush=True)
        script = os.path.join(data, "checkout.lua")
        with open(script, "w") as f:
            f.write("ids = {" + ",".join(f'"{i}"' for i in ids) + "}\n")
            f.write("""
local counter = 0
local thread_no = 0
-- wrk.format's headers replace those given with -H, so the token is passed again here.
function setup(thread) thread_no = thread_no + 1; thread:set("offset", (thread_no - 1) * 7919 + tonumber(os.getenv("BENCH_ROUND")) * 13001) end
function request()
  counter = counter + 1
  local id = ids[((offset + counter) % #ids) + 1]
  local card = string.format("S%05d", (counter % 2000) + 1)
  return wrk.format("POST", nil, {["Content-Type"] = "application/json", ["Authorization"] = "Bearer " .. os.getenv("BENCH_TOKEN")}, '{"cardId":"' .. card .. '","titleId":"' .. id .. '"}')
end
""")
        checkout_rates = []
        for r in range(ROUNDS):
            rate, bad, _ = wrk(f"/api/v1/libraries/{lib}/checkouts", token, script=script, env=dict(os.environ, BENCH_ROUND=str(r), BENCH_TOKEN=token))
            checkout_rates.append(rate)
            print(f"   round {r + 1}: {rate:.0f} check-outs/s ({bad} refused: no copy left)")
        checkouts = statistics.median(checkout_rates)

        print("== 3. Title read vs trivial route (wrk, 2 threads, 32 connections, alternating) ==", flush=True)
        trivial, read, health = [], [], []
        for r in range(ROUNDS):
            trivial.append(wrk("/api/v1/me", token)[0])
            read.append(wrk(title_path, token)[0])
            health.append(wrk("/api/v1/health", token)[0])
            print(f"   round {r + 1}: GET /me {trivial[-1]:.0f} rps, GET title {read[-1]:.0f} rps, GET /health {health[-1]:.0f} rps")
        ratio = statistics.median(read) / statistics.median(trivial)

        print(f"== 4. ISBN lookup, each provider {PROVIDER_LATENCY_MS} ms away (replay server), sequential requests ==", flush=True)
        # Baseline: one provider request straight to the replay server (its latency plus loopback).
        direct = [timed_ms(lambda n=n: urllib.request.urlopen(f"{replay_base}/google/books/v1/volumes?q=isbn:{isbn13(n)}", timeout=30).read())
                  for n in range(10)]
        fresh = [timed_ms(lambda n=n: call("POST", "/lookup/isbn", {"isbn": isbn13(1000 + n)}, token)) for n in range(30)]
        call("POST", "/lookup/isbn", {"isbn": "9780306406157"}, token)
        cached_p50, me_p50 = cached_lookup(token, "9780306406157")
        provider_p50 = statistics.median(direct)
        fresh_p50 = statistics.median(fresh)
        print(f"   one provider request, direct: p50 {provider_p50:.0f} ms; fresh lookup (both providers): p50 {fresh_p50:.0f} ms, max {max(fresh):.0f} ms")

        print(f"== 5. Book sources: all five, each {PROVIDER_LATENCY_MS} ms away; a German book the DNB and K10plus know ==", flush=True)
        call("PATCH", "/server/book-sources", {"order": ["google_books", "open_library", "dnb", "loc", "k10plus"]}, token)
        direct_sru = [timed_ms(lambda: urllib.request.urlopen(f"{replay_base}/sru/dnb?version=1.1&operation=searchRetrieve&query=num%3D9783871347108", timeout=30).read())
                      for _ in range(10)]
        sru_fresh = []
        for n in range(10):
            # A change of sources empties the lookup cache: each lookup here asks all five.
            call("PATCH", "/server/book-sources", {"order": ["google_books"]}, token)
            call("PATCH", "/server/book-sources", {"order": ["google_books", "open_library", "dnb", "loc", "k10plus"]}, token)
            answer = {}
            sru_fresh.append(timed_ms(lambda: answer.update(call("POST", "/lookup/isbn", {"isbn": "9783871347108"}, token))))
            assert answer.get("record", {}).get("title") == "Tschick", answer
        sru_cached_p50, sru_me_p50 = cached_lookup(token, "9783871347108")
        sru_direct_p50 = statistics.median(direct_sru)
        sru_fresh_p50 = statistics.median(sru_fresh)
        print(f"   one SRU request, direct: p50 {sru_direct_p50:.0f} ms; fresh lookup (five sources): p50 {sru_fresh_p50:.0f} ms")

        print(f"== 6. Many books at once: one change of 500 of the {TITLES:,} titles and its undo, each action, {ROUNDS} rounds ==", flush=True)
        bulk, deleted = {}, []
        # Titles the check-outs above never lent (they lend among the first 40,000): a delete takes all 500.
        spare = []
        for offset in range(60000, 60000 + 500 * ROUNDS, 500):
            spare += [t["id"] for t in call("GET", f"/libraries/{lib}/titles?limit=500&offset={offset}", token=token)["items"]]
        for r in range(ROUNDS):
            for n, (action, value) in enumerate([("shelf", "Bench shelf"), ("series", "Bench series"), ("call_number_prefix", "REF"),
                                                 ("reading_level", "AR 4.5"), ("add_category", "Bench category"), ("delete", None)]):
                chosen = spare[r * 500:(r + 1) * 500] if action == "delete" else ids[(r * 6 + n) * 500:(r * 6 + n + 1) * 500]
                body = {"titleIds": chosen, "action": action, **({"value": value} if value else {})}
                report = {}
                made = timed_ms(lambda: report.update(call("POST", f"/libraries/{lib}/titles/bulk", body, token)))
                assert report.get("changed", 0) + len(report.get("skipped", [])) == 500, report
                if action == "delete":
                    deleted.append(report["changed"])
                undone = timed_ms(lambda: call("POST", f"/libraries/{lib}/titles/bulk/undo", {}, token))
                bulk.setdefault(action, []).append((made, undone))
            print(f"   round {r + 1}: " + ", ".join(f"{a} {v[-1][0]:.0f}/{v[-1][1]:.0f} ms" for a, v in bulk.items()) + f" ({deleted[-1]} deleted)")
        edit_p50 = statistics.median(timed_ms(lambda: call("PATCH", f"/libraries/{lib}/titles/{ids[-1]}", {"series": "One"}, token)) for _ in range(50))
    finally:
        server.send_signal(signal.SIGINT)
        server.wait(timeout=30)
        replay.terminate()
        replay.wait(timeout=30)

    print()
    print("== Summary (medians) ==")
    print(f"search over {TITLES} titles (SQLite, server side): p50 {search_p50:.2f} ms, p99 {search_p99:.2f} ms   target p99 <= 10 ms")
    print(f"check-outs over HTTP (SQLite):                 {checkouts:.0f} /s                target >= 1000 /s")
    print(f"title read vs trivial authenticated route:     {statistics.median(read):.0f} / {statistics.median(trivial):.0f} rps = {ratio:.0%}   target >= 50%")
    print(f"  (for reference, unauthenticated /health:     {statistics.median(health):.0f} rps)")
    budget = 1.1 * PROVIDER_LATENCY_MS + 20
    print(f"fresh ISBN lookup, providers {PROVIDER_LATENCY_MS} ms away:   p50 {fresh_p50:.0f} ms = {fresh_p50 / provider_p50:.2f} x one provider ({provider_p50:.0f} ms)   target <= {budget:.0f} ms")
    print(f"cached ISBN lookup:                            p50 {cached_p50:.2f} ms (GET /me {me_p50:.2f} ms, {cached_p50 / me_p50:.1f} x)   target p50 <= 5 ms")
    print(f"five sources, fresh (DNB + K10plus records):   p50 {sru_fresh_p50:.0f} ms = one SRU request ({sru_direct_p50:.0f} ms) + {sru_fresh_p50 - sru_direct_p50:.0f} ms for asking, reading and merging   target merge <= 20 ms")
    print(f"five sources, cached:                          p50 {sru_cached_p50:.2f} ms (GET /me {sru_me_p50:.2f} ms, {sru_cached_p50 / sru_me_p50:.1f} x)   target <= 5 ms")
    for action, runs in bulk.items():
        print(f"500 titles at once, {action:<19}          change p50 {statistics.median(m for m, _ in runs):.0f} ms, undo p50 {statistics.median(u for _, u in runs):.0f} ms "
              f"(one title's PATCH {edit_p50:.1f} ms)   target <= 1000 ms")


if __name__ == "__main__":
    main()
