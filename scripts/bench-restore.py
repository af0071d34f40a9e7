#!/usr/bin/env python3
"""A long restore over a library, and everyone else meanwhile. A library of
BENCH_RESTORE_TITLES titles (default 100,000, 2 copies each, 600 members) is backed up and restored
over itself through the API, while another client keeps asking for `/api/v1/health` and keeps writing
into another library of the same server (a title's edit). Reported: the restore's time, and the other
client's p50 / p99 / max and errors while it runs, next to the same requests with nothing running,
measured in the same run. On SQLite a restore was one transaction that held the only writer for its
whole length (`/health` 500 after 10 s, a write to another library 19.6 s); then no transaction of it was
longer than one batch of 500 rows, but its batches ran on a request connection (one per
event loop), so every request of that loop waited for each; now it reads and writes on connections of its
own (`Application.jobStorage`): reads never wait, writes queue behind at most one batch, and a batch is
as many rows as take about 10 ms (`BatchPacer`).

Uses the release build of `make bench` (or BENCH_BIN=<bin dir>); DATABASE_URL unset: SQLite."""
import json, os, subprocess, tempfile, time

import benchlib

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
PORT = int(os.environ.get("BENCH_PORT", "8198"))
TITLES = int(os.environ.get("BENCH_RESTORE_TITLES", "100000"))
BASE = f"http://127.0.0.1:{PORT}"
SLOW_MS = 500  # the target's longest wait


def call(method, path, body=None, token=None, raw=None):
    return benchlib.call(BASE, method, path, body, token, raw)


def main():
    bin_dir = benchlib.release_bin()
    work = tempfile.mkdtemp(prefix="shelfmark-restore-")
    env = dict(os.environ, SHELFMARK_DATA_DIR=work, LOG_LEVEL=os.environ.get("BENCH_LOG_LEVEL", "error"), SHELFMARK_PROVIDERS_URL="http://127.0.0.1:9")
    env.pop("DATABASE_URL", None)
    binary = f"{bin_dir}/shelfmark"
    for library in ["School", "Other"]:
        subprocess.run([binary, "user", "create", "--username", "bench", "--password", "bench-password", "--library", library],
                       env=env, check=False, capture_output=True)
    t0 = time.time()
    subprocess.run([binary, "seed", "--library", "School", "--owner", "bench", "--titles", str(TITLES), "--members", "600", "--copies", "2"],
                   env=env, check=True, capture_output=True)
    subprocess.run([binary, "seed", "--library", "Other", "--owner", "bench", "--titles", "200", "--members", "20"],
                   env=env, check=True, capture_output=True)
    print(f"== restore over a library of {TITLES:,} titles × 2 copies (SQLite; seeded in {time.time() - t0:.0f} s) ==", flush=True)
    server = benchlib.start_server(binary, env, PORT, work)
    try:
        token = json.loads(call("POST", "/api/v1/auth/login", {"username": "bench", "password": "bench-password"})[1])["token"]
        libraries = {l["name"]: l["id"] for l in json.loads(call("GET", "/api/v1/libraries", token=token)[1])}
        school, other = libraries["School"], libraries["Other"]
        status, backup = call("GET", f"/api/v1/libraries/{school}/backup", token=token)
        assert status == 200, status
        title = json.loads(call("GET", f"/api/v1/libraries/{other}/titles?limit=1", token=token)[1])["items"][0]
        flip = [0]

        def edit():
            flip[0] += 1
            return call("PATCH", f"/api/v1/libraries/{other}/titles/{title['id']}", {"subtitle": f"edit {flip[0]}"}, token=token)[0]

        requests = {"health": lambda: call("GET", "/api/v1/health")[0],
                    "read another library": lambda: call("GET", f"/api/v1/libraries/{other}/titles?limit=20", token=token)[0],
                    "write to another library": edit}

        def restore():
            t = time.perf_counter()
            status, body = call("POST", f"/api/v1/libraries/{school}/restore?confirm=true", token=token, raw=backup)
            assert status == 202, (status, body[:300])
            job = json.loads(body)["id"]
            while True:
                state = json.loads(call("GET", f"/api/v1/jobs/{job}", token=token)[1])
                if state["state"] != "running":
                    assert state["state"] == "done", state
                    return time.perf_counter() - t
                time.sleep(0.25)

        quiet, _ = benchlib.measure(requests, None, slow_ms=SLOW_MS)
        busy, seconds = benchlib.measure(requests, restore, slow_ms=SLOW_MS)
        total = json.loads(call("GET", f"/api/v1/libraries/{school}/titles?limit=1", token=token)[1])["total"]
        assert total == TITLES, total
        print(f"   restore of {len(backup) / 1e6:.1f} MB: {seconds:.1f} s (job done; {total:,} titles after)", flush=True)
        for name in requests:
            (qt, qe, _), (bt, be, slow) = quiet[name], busy[name]
            print(f"   {name:25} nothing running p50 {benchlib.pct(qt, 50):7.2f} p99 {benchlib.pct(qt, 99):7.2f} max {max(qt):7.1f} ms | "
                  f"during the restore p50 {benchlib.pct(bt, 50):7.2f} p99 {benchlib.pct(bt, 99):7.2f} max {max(bt):7.1f} ms, "
                  f"{len(bt)} requests, {len(be)} errors {sorted(set(be))} (×{benchlib.pct(bt, 99) / benchlib.pct(qt, 99):.1f} at p99)", flush=True)
            if slow:
                print(f"   {'':25} over {SLOW_MS} ms (started at, UTC; ms): {slow}", flush=True)
    finally:
        server.terminate()
        try:
            server.wait(timeout=30)
        except subprocess.TimeoutExpired:
            server.kill()


if __name__ == "__main__":
    main()
