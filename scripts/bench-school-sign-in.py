#!/usr/bin/env python3
"""Sign-in with the school's account, measured (part of `make bench`): the whole round trip without the
person — Shelfmark's start (the sign-in kept, the browser sent on), the provider's authorization, and the
way back (the code exchanged, the ID token checked against the provider's keys, the session made) —
target <= 200 ms; the way back alone too. Against oidc-provider-mock (a real OpenID Connect provider,
from PyPI, in the test venv) on this machine, on SQLite. Medians and p95 of BENCH_OIDC_RUNS sign-ins
after a warm-up; the same-run baseline is the sign-in page (`GET /login`).

    BENCH_BIN=.build/release scripts/bench-school-sign-in.py      (default: the release build)
    BENCH_OIDC_RUNS=200
"""
import http.cookies, os, shutil, statistics, subprocess, sys, tempfile, time, urllib.error, urllib.parse, urllib.request

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from benchlib import ROOT, call, pct, release_bin, start_server  # noqa: E402

RUNS = int(os.environ.get("BENCH_OIDC_RUNS", "200"))
PORT, OIDC_PORT = 18761, 18762
VENV = os.environ.get("VENV", os.path.join(ROOT, ".tmp", "venv"))


class NoRedirect(urllib.request.HTTPRedirectHandler):
    def redirect_request(self, *args, **kwargs):
        return None


OPENER = urllib.request.build_opener(NoRedirect)


def request(url, method="GET", data=None, cookie=None):
    """(status, Location, Set-Cookie values) of one request, redirects not followed."""
    req = urllib.request.Request(url, method=method, data=data)
    if cookie:
        req.add_header("cookie", cookie)
    if data is not None:
        req.add_header("content-type", "application/x-www-form-urlencoded")
    try:
        with OPENER.open(req, timeout=30) as r:
            return r.status, r.headers.get("location"), r.headers.get_all("set-cookie") or []
    except urllib.error.HTTPError as e:
        return e.code, e.headers.get("location"), e.headers.get_all("set-cookie") or []


def cookie_value(set_cookies, name):
    for header in set_cookies:
        jar = http.cookies.SimpleCookie()
        jar.load(header)
        if name in jar and jar[name].value:
            return jar[name].value
    return None


def main():
    binary = os.path.join(release_bin(), "shelfmark")
    mock = os.path.join(VENV, "bin", "oidc-provider-mock")
    if not os.path.exists(mock):
        sys.exit(f"{mock} is missing: make test-venv installs oidc-provider-mock")
    data = tempfile.mkdtemp(prefix="shelfmark-bench-oidc-")
    base, issuer = f"http://127.0.0.1:{PORT}", f"http://127.0.0.1:{OIDC_PORT}"
    provider = subprocess.Popen([mock, "--port", str(OIDC_PORT)], stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    env = dict(os.environ, SHELFMARK_DATA_DIR=data, LOG_LEVEL="error")
    env.pop("DATABASE_URL", None)
    server = start_server(binary, env, PORT, data)
    try:
        for _ in range(100):
            try:
                urllib.request.urlopen(issuer + "/.well-known/openid-configuration", timeout=2)
                break
            except Exception:
                time.sleep(0.2)
        status, body = call(base, "POST", "/api/v1/setup", {"username": "owner", "password": "bench-password", "libraryName": "School"})
        assert status == 201, body
        import json
        setup = json.loads(body)
        token, library = setup["session"]["token"], setup["library"]["id"]
        status, body = call(base, "POST", "/api/v1/libraries/%s/staff" % library,
                            {"username": "kim", "role": "librarian", "password": "kims own password"}, token)
        assert status == 201, body
        kim = json.loads(body)["userId"]
        assert call(base, "PUT", f"/api/v1/libraries/{library}/staff/{kim}/email", {"email": "kim@school.example"}, token)[0] == 200
        assert call(base, "PATCH", "/api/v1/server/sign-in", {"preset": "other", "issuer": issuer, "clientId": "bench", "clientSecret": "s",
                                                                "domain": "school.example", "staff": True}, token)[0] == 200
        claims = json.dumps({"email": "kim@school.example", "email_verified": True}).encode()
        urllib.request.urlopen(urllib.request.Request(f"{issuer}/users/kim-sub", method="PUT", data=claims,
                                                      headers={"content-type": "application/json"}), timeout=10)

        def sign_in():
            t0 = time.perf_counter()
            status, location, cookies = request(base + "/login/school")
            assert status == 303 and location.startswith(issuer), (status, location)
            binding = cookie_value(cookies, "smo_signin")
            status, back, _ = request(location, "POST", urllib.parse.urlencode({"sub": "kim-sub"}).encode())
            assert status in (302, 303) and back.startswith(base + "/login/school/return"), (status, back)
            t1 = time.perf_counter()
            status, landed, cookies = request(back, cookie=f"smo_signin={binding}")
            t2 = time.perf_counter()
            assert status == 303 and landed == "/" and cookie_value(cookies, "shelfmark_session"), (status, landed)
            return (t2 - t0) * 1000, (t2 - t1) * 1000

        def page():
            t = time.perf_counter()
            with urllib.request.urlopen(base + "/login", timeout=30) as r:
                r.read()
            return (time.perf_counter() - t) * 1000

        for _ in range(10):
            sign_in(); page()
        whole, back, baseline = [], [], []
        for _ in range(RUNS):
            a, b = sign_in()
            whole.append(a); back.append(b); baseline.append(page())
        base_median = statistics.median(baseline)
        print(f"school sign-in (SQLite, {RUNS} sign-ins against oidc-provider-mock): round trip median {statistics.median(whole):.1f} ms, "
              f"p95 {pct(whole, 95):.1f} ms (target <= 200); the way back median {statistics.median(back):.1f} ms, p95 {pct(back, 95):.1f} ms; "
              f"baseline GET /login median {base_median:.1f} ms (round trip = {statistics.median(whole) / base_median:.1f}x)")
        if pct(whole, 95) > 200:
            sys.exit("school sign-in: the round trip's p95 is over 200 ms")
    finally:
        server.terminate(); provider.terminate()
        server.wait(timeout=30); provider.wait(timeout=30)
        shutil.rmtree(data, ignore_errors=True)


if __name__ == "__main__":
    main()
