#!/usr/bin/env python3
"""Pages at the size of a real school library: 20,000 titles, 60,000 copies, 600 members and
3,000 open loans, on SQLite and, when PostgreSQL is installed, on a private throwaway cluster. At a
community library's size too: BENCH_PAGE_TITLES=100000; every sort, a far page and the
letters W and Z are among the pages, so a list that grows with the library shows.

For each page a librarian uses all day (catalog, searches (a word, a letter, two words, an ISBN's start), a letter of the A–Z, a book, a member, the
loans, the lend confirmation, the activity log), the time from request to the whole page over
127.0.0.1, after a warm-up: p50 and p99 over BENCH_PAGE_REQUESTS requests in each of BENCH_ROUNDS rounds
(medians over rounds). Time on the wire to localhost is part of it, so the figures bound the server's
own time from above. And the weight of the catalog's first page: its HTML, CSS and JavaScript,
compressed (gzip -6) as they would go over a compressing proxy, and as served.

Uses the release build of `make bench` (or BENCH_BIN_DIR=<bin dir>). BENCH_PAGE_REUSE=<dir> measures the SQLite
data directory an earlier run seeded (its `sqlite` folder, kept under /tmp/shelfmark-pages-*) again,
without seeding or lending. BENCH_SKIP_POSTGRES=1 measures SQLite only, BENCH_SKIP_SQLITE=1 PostgreSQL only (a
million titles take a while to seed on each)."""
import gzip, json, os, re, statistics, subprocess, sys, tempfile, time, urllib.parse, urllib.request

import benchlib

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
TITLES = int(os.environ.get("BENCH_PAGE_TITLES", "20000"))
MEMBERS = int(os.environ.get("BENCH_PAGE_MEMBERS", "600"))
LOANS = int(os.environ.get("BENCH_PAGE_LOANS", "3000"))
REQUESTS = int(os.environ.get("BENCH_PAGE_REQUESTS", "200"))
ROUNDS = int(os.environ.get("BENCH_ROUNDS", "3"))
PORT = int(os.environ.get("BENCH_PORT", "8199"))
PG_PORT = int(os.environ.get("BENCH_PG_PORT", "55499"))
BASE = f"http://127.0.0.1:{PORT}"


class NoRedirect(urllib.request.HTTPRedirectHandler):
    def redirect_request(self, *args):
        return None


OPENER = urllib.request.build_opener(NoRedirect)


def request(method, path, cookie=None, token=None, body=None, form=None, headers=None):
    h = dict(headers or {})
    data = None
    if body is not None:
        data, h["content-type"] = json.dumps(body).encode(), "application/json"
    if form is not None:
        data, h["content-type"] = urllib.parse.urlencode(form).encode(), "application/x-www-form-urlencoded"
    if cookie:
        h["cookie"] = cookie
    if token:
        h["authorization"] = f"Bearer {token}"
    req = urllib.request.Request(BASE + path, method=method, data=data, headers=h)
    try:
        with OPENER.open(req, timeout=30) as r:
            return r.status, r.read(), dict(r.headers)
    except urllib.error.HTTPError as e:
        return e.code, e.read(), dict(e.headers)


def sign_in(library):
    """Signs in as the benchmark's user: its API token, its session cookie and the named library's id."""
    token = json.loads(request("POST", "/api/v1/auth/login", body={"username": "bench", "password": "bench-password"})[1])["token"]
    lib = [l for l in json.loads(request("GET", "/api/v1/libraries", token=token)[1]) if l["name"] == library][0]["id"]
    return token, f"shelfmark_session={token}", lib


def run_backend(bin_dir, name, env, reuse=False):
    binary = f"{bin_dir}/shelfmark"
    if not reuse:
        benchlib.seed_school(binary, env, name, TITLES, MEMBERS)
    database = os.path.join(env["SHELFMARK_DATA_DIR"], "shelfmark.sqlite")
    if "DATABASE_URL" not in env and os.path.exists(database):
        size = sum(os.path.getsize(database + suffix) for suffix in ["", "-wal"] if os.path.exists(database + suffix))
        print(f"   {name}: database {size / 1e6:.1f} MB (file and its write-ahead log)", flush=True)
    server = benchlib.start_server(binary, env, PORT, env["SHELFMARK_DATA_DIR"], seconds=600 if reuse else 30)
    try:
        token, cookie, lib = sign_in("School")
        api = f"/api/v1/libraries/{lib}"
        members = []
        for offset in range(0, MEMBERS, 500):
            members += json.loads(request("GET", f"{api}/members?limit=500&offset={offset}", token=token)[1])
        titles = []
        for offset in range(0, 4000, 500):
            titles += json.loads(request("GET", f"{api}/titles?limit=500&offset={offset}", token=token)[1])["items"]
        t0 = time.time()
        lent = 0
        for i in range(0 if reuse else LOANS):
            status, _, _ = request("POST", f"{api}/checkouts", token=token,
                                   body={"cardId": members[i % len(members)]["cardId"], "titleId": titles[i % len(titles)]["id"]})
            lent += status == 201
        print(f"   {name}: {lent:,} open loans made in {time.time() - t0:.0f} s", flush=True)
        # Ratings and the bench user's own reading, for the rating and reading filters: every fourth of the
        # first 4,000 titles rated by the library (1–5), every twentieth finished by the user with a vote.
        t0 = time.time()
        for i, title in enumerate([] if reuse else titles):
            if i % 4 == 0:
                request("PATCH", f"{api}/titles/{title['id']}", token=token, body={"rating": 1 + i % 5})
            if i % 20 == 0:
                request("POST", f"{api}/reads", token=token, body={"titleId": title["id"], "status": "finished", "rating": 1 + (i // 20) % 5})
        if not reuse:
            print(f"   {name}: {len(titles) // 4:,} titles rated, {len(titles) // 20:,} finished by the user in {time.time() - t0:.0f} s", flush=True)
        web = f"/libraries/{lib}"
        catalog_html = request("GET", f"{web}/catalog", cookie=cookie)[1].decode()
        csrf = re.search(r'name="csrf-token" content="([^"]+)"', catalog_html).group(1)
        letter = request("GET", f"{web}/catalog?letter=W", cookie=cookie)[2].get("Location", f"{web}/catalog").split("#")[0]
        letter_z = request("GET", f"{web}/catalog?letter=Z", cookie=cookie)[2].get("Location", f"{web}/catalog").split("#")[0]
        far = max(1, min(1000, TITLES // 50))
        # Page `far` as a reader reaches it: by the pager's links (the page before's "next" link, which
        # carries its last title), and the last page by its link; `page=N` typed by number skips by offset.
        before_far = request("GET", f"{web}/catalog?page={max(1, far - 1)}", cookie=cookie)[1].decode()
        next_link = re.search(r'href="([^"]*)" rel="next"', before_far)
        far_by_link = next_link.group(1).replace("&amp;", "&") if next_link else f"{web}/catalog?page={far}"
        last_link = re.search(r'href="([^"]*end=1[^"]*)"', catalog_html)
        last_page = last_link.group(1).replace("&amp;", "&") if last_link else f"{web}/catalog"
        before_far_shelf = request("GET", f"{web}/catalog?sort=shelf&page={max(1, far - 1)}", cookie=cookie)[1].decode()
        shelf_next = re.search(r'href="([^"]*)" rel="next"', before_far_shelf)
        far_shelf = shelf_next.group(1).replace("&amp;", "&") if shelf_next else f"{web}/catalog?sort=shelf&page={far}"
        book = titles[len(titles) // 2]["id"]
        free = next(t for t in titles[len(titles) // 2:] if t["availability"]["available"] > 0)["id"]
        pages = [
            ("catalog", "GET", f"{web}/catalog", None),
            ("newest", "GET", f"{web}/catalog?sort=newest", None),
            ("by author", "GET", f"{web}/catalog?sort=author", None),
            ("most borrowed", "GET", f"{web}/catalog?sort=borrowed", None),
            ("shelf order", "GET", f"{web}/catalog?sort=shelf", None),
            (f"shelf page {far:,} by link", "GET", far_shelf, None),
            (f"page {far:,} by link", "GET", far_by_link, None),
            (f"page {far:,} by number", "GET", f"{web}/catalog?page={far}", None),
            ("last page", "GET", last_page, None),
            ("rating at least 4", "GET", f"{web}/catalog?rating=4", None),
            ("not read by me", "GET", f"{web}/catalog?reading=unread", None),
            ("select mode", "GET", f"{web}/catalog?select=1", None),
            ("on loan", "GET", f"{web}/catalog?show=onloan", None),
            ("search 'the'", "GET", f"{web}/catalog?q=the", None),
            ("search 't'", "GET", f"{web}/catalog?q=t", None),
            ("search 'sum oc'", "GET", f"{web}/catalog?q=sum+oc", None),
            ("search '9781'", "GET", f"{web}/catalog?q=9781", None),
            ("letter W", "GET", letter, None),
            ("letter Z", "GET", letter_z, None),
            ("dashboard", "GET", f"{web}/dashboard", None),
            ("shelves", "GET", f"{web}/shelves", None),
            ("book", "GET", f"{web}/titles/{book}", None),
            ("member", "GET", f"{web}/members/{members[0]['id']}", None),
            ("loans", "GET", f"{web}/loans", None),
            ("lend confirmation", "POST", f"{web}/checkout", {"card": members[1]["cardId"], "titleId": free, "days": "14", "_csrf": csrf}),
            ("activity", "GET", f"{web}/activity", None),
        ]
        results = {}
        for label, method, path, form in pages:
            status, body, _ = request(method, path, cookie=cookie, form=form)
            assert status == 200, f"{label}: HTTP {status} {body[:300]!r}"
            p50s, p99s = [], []
            for _ in range(ROUNDS):
                for _ in range(20):
                    request(method, path, cookie=cookie, form=form)
                times = []
                for _ in range(REQUESTS):
                    t = time.perf_counter()
                    request(method, path, cookie=cookie, form=form)
                    times.append((time.perf_counter() - t) * 1000)
                p50s.append(benchlib.pct(times, 50))
                p99s.append(benchlib.pct(times, 99))
            results[label] = (statistics.median(p50s), statistics.median(p99s), len(body))
            print(f"   {name}: {label:22} p50 {results[label][0]:6.2f} ms  p99 {results[label][1]:6.2f} ms  ({len(body) / 1024:.1f} KB)", flush=True)
        # The catalog's first page as a phone loads it: the page, its stylesheet and its script.
        assets = [catalog_html.encode()]
        for ref in re.findall(r'(?:href|src)="(/(?:css|js)/[^"]+)"', catalog_html):
            assets.append(request("GET", ref)[1])
        raw = sum(len(a) for a in assets)
        zipped = sum(len(gzip.compress(a, 6)) for a in assets)
        served = request("GET", f"{web}/catalog", cookie=cookie, headers={"accept-encoding": "gzip"})[2].get("Content-Encoding", "none")
        print(f"   {name}: catalog first page (HTML + CSS + JS): {raw / 1024:.1f} KB, {zipped / 1024:.1f} KB gzip-compressed "
              f"(the server itself sends Content-Encoding: {served})", flush=True)
        return results, raw, zipped
    finally:
        server.terminate()
        server.wait(timeout=20)


def main():
    bin_dir = os.environ.get("BENCH_BIN_DIR") or benchlib.release_bin()  # another build (a same-run baseline)
    print(f"== Pages at school size: {TITLES:,} titles, {MEMBERS} members, {LOANS:,} open loans; "
          f"{REQUESTS} requests × {ROUNDS} rounds per page ==", flush=True)
    reuse = os.environ.get("BENCH_PAGE_REUSE")
    work = tempfile.mkdtemp(prefix="shelfmark-pages-")
    env = dict(os.environ, SHELFMARK_DATA_DIR=reuse or os.path.join(work, "sqlite"), LOG_LEVEL="error",
               SHELFMARK_PROVIDERS_URL="http://127.0.0.1:9", SHELFMARK_LOOKUP_TIMEOUT="1")
    env.pop("DATABASE_URL", None)
    os.makedirs(env["SHELFMARK_DATA_DIR"], exist_ok=bool(reuse))
    worst, zipped = [], None
    if not os.environ.get("BENCH_SKIP_SQLITE") or reuse:
        results, _, zipped = run_backend(bin_dir, "SQLite", env, reuse=bool(reuse))
        worst.append(("SQLite", max(r[1] for r in results.values())))
    if os.path.exists("/usr/lib/postgresql") and not os.environ.get("BENCH_SKIP_POSTGRES") and not reuse:
        cluster = os.path.join(ROOT, ".tmp", "bench-pg")  # a directory the postgres user can reach
        url = subprocess.run([os.path.join(ROOT, "scripts", "pg-test-cluster.sh"), "start", cluster, str(PG_PORT)], check=True,
                             capture_output=True, text=True).stdout.strip()
        try:
            pg_env = dict(env, SHELFMARK_DATA_DIR=os.path.join(work, "pgdata"), DATABASE_URL=url)
            os.makedirs(pg_env["SHELFMARK_DATA_DIR"])
            pg_results, _, pg_zipped = run_backend(bin_dir, "PostgreSQL", pg_env)
            zipped = zipped or pg_zipped
            worst.append(("PostgreSQL", max(r[1] for r in pg_results.values())))
        finally:
            subprocess.run([os.path.join(ROOT, "scripts", "pg-test-cluster.sh"), "stop", cluster], capture_output=True)
    for name, p99 in worst:
        print(f"   {name}: slowest page p99 {p99:.2f} ms (target ≤ {25 if TITLES <= 100_000 else 50} ms)")
    if zipped is not None:
        print(f"   catalog first page {zipped / 1024:.1f} KB compressed (target ≤ 60 KB)")


if __name__ == "__main__":
    main()
