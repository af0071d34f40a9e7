#!/usr/bin/env python3
"""A class signing in at once: 25 sign-ins sent together (bcrypt, cost 12), while another
client keeps asking for a cheap page (`/api/v1/health`) and for a catalog page. Reported: the other
client's p50 and p99 while the class signs in, next to the same requests with nobody signing in,
measured in the same run (medians over BENCH_ROUNDS rounds). Target: p99 ≤ 20 ms meanwhile.

Uses the release build of `make bench` (or BENCH_BIN=<bin dir>)."""
import json, os, statistics, subprocess, sys, tempfile, threading, time, urllib.request

import benchlib

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
ROUNDS = int(os.environ.get("BENCH_ROUNDS", "3"))
PORT = int(os.environ.get("BENCH_PORT", "8199"))
CLASS = int(os.environ.get("BENCH_SIGNINS", "25"))
BASE = f"http://127.0.0.1:{PORT}"


def call(method, path, body=None, token=None):
    req = urllib.request.Request(BASE + path, method=method, data=json.dumps(body).encode() if body is not None else None)
    req.add_header("content-type", "application/json")
    if token:
        req.add_header("authorization", f"Bearer {token}")
    with urllib.request.urlopen(req, timeout=60) as r:
        return r.status, r.read()


def sample(path, token, stop, times):
    while not stop.is_set():
        t = time.perf_counter()
        call("GET", path, token=token)
        times.append((time.perf_counter() - t) * 1000)
        time.sleep(0.005)


def measure(path, token, during):
    """Latencies of `path` while `during()` runs (or for 3 s when it is None)."""
    stop, times = threading.Event(), []
    other = threading.Thread(target=sample, args=(path, token, stop, times))
    other.start()
    if during:
        during()
    else:
        time.sleep(3)
    stop.set()
    other.join()
    return times


def main():
    bin_dir = benchlib.release_bin()
    work = tempfile.mkdtemp(prefix="shelfmark-signin-")
    env = dict(os.environ, SHELFMARK_DATA_DIR=work, LOG_LEVEL="error", SHELFMARK_PROVIDERS_URL="http://127.0.0.1:9")
    env.pop("DATABASE_URL", None)
    binary = f"{bin_dir}/shelfmark"
    for i in range(CLASS):
        subprocess.run([binary, "user", "create", "--username", f"pupil{i}", "--password", "pupil-password", "--library", "School"],
                       env=env, check=True, capture_output=True)
    subprocess.run([binary, "seed", "--library", "School", "--owner", "pupil0", "--titles", "2000", "--members", "50"],
                   env=env, check=True, capture_output=True)
    server = benchlib.start_server(binary, env, PORT, work)
    try:
        token = json.loads(call("POST", "/api/v1/auth/login", {"username": "pupil0", "password": "pupil-password"})[1])["token"]
        lib = json.loads(call("GET", "/api/v1/libraries", token=token)[1])[0]["id"]

        def a_class_signs_in():
            def one(i):
                status, _ = call("POST", "/api/v1/auth/login", {"username": f"pupil{i}", "password": "pupil-password"})
                assert status == 200
            threads = [threading.Thread(target=one, args=(i,)) for i in range(CLASS)]
            t = time.perf_counter()
            for th in threads:
                th.start()
            for th in threads:
                th.join()
            return (time.perf_counter() - t)

        print(f"== {CLASS} sign-ins at once (bcrypt cost 12), {ROUNDS} rounds; another client meanwhile ==", flush=True)
        for label, path in [("health", "/api/v1/health"), ("catalog", f"/api/v1/libraries/{lib}/titles?limit=50")]:
            quiet50, quiet99, busy50, busy99 = [], [], [], []
            for _ in range(ROUNDS):
                quiet = measure(path, token, None)
                busy = measure(path, token, a_class_signs_in)
                quiet50.append(benchlib.pct(quiet, 50)); quiet99.append(benchlib.pct(quiet, 99))
                busy50.append(benchlib.pct(busy, 50)); busy99.append(benchlib.pct(busy, 99))
            q50, q99, b50, b99 = (statistics.median(v) for v in (quiet50, quiet99, busy50, busy99))
            print(f"   {label:8} nobody signing in p50 {q50:6.2f} ms p99 {q99:6.2f} ms | "
                  f"{CLASS} signing in p50 {b50:6.2f} ms p99 {b99:6.2f} ms (×{b99 / q99:.1f} at p99; target p99 ≤ 20 ms)", flush=True)
    finally:
        server.terminate()
        server.wait(timeout=20)


if __name__ == "__main__":
    main()
