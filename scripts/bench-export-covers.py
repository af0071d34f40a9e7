#!/usr/bin/env python3
"""The catalog CSV with covers inside: the server's peak memory while it writes one.

A library of 5,000 titles seeded on SQLite, one 5 MB cover stored once and shown by BENCH_COVER_TITLES of
them (default 140: ~1 GB of base64, just under the export's bound), downloaded through the API and read
as it streams. Prints the server's resident memory before, its peak (VmHWM) after, the file's size and
the time; then the same library with every title showing the cover (5,000 × 5 MB: ~33 GB as written),
which is refused at once with `covers_too_large`, its peak memory again.

    scripts/bench-export-covers.py          (release build; BENCH_BIN=.build/debug for a debug one)
"""
import json, os, shutil, sqlite3, subprocess, sys, tempfile, time, urllib.error, urllib.request, uuid

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from benchlib import release_bin, seed_school, start_server

PORT = int(os.environ.get("BENCH_PORT", "18093"))
TITLES = 5_000
SHARING = int(os.environ.get("BENCH_COVER_TITLES", "140"))


def status_kb(pid, field):
    with open(f"/proc/{pid}/status") as f:
        for line in f:
            if line.startswith(field + ":"):
                return int(line.split()[1])
    return 0


def api(method, path, body=None, token=None):
    req = urllib.request.Request(f"http://127.0.0.1:{PORT}{path}", method=method,
                                 data=json.dumps(body).encode() if body is not None else None)
    req.add_header("Content-Type", "application/json")
    if token:
        req.add_header("Authorization", f"Bearer {token}")
    return urllib.request.urlopen(req, timeout=600)


def main():
    binary = os.path.join(release_bin(), "shelfmark")
    work = tempfile.mkdtemp(prefix="shelfmark-bench-covers-")
    db = os.path.join(work, "shelfmark.sqlite")
    env = dict(os.environ, SHELFMARK_DATA_DIR=work, SHELFMARK_PUBLIC_RATE="0", LOG_LEVEL="error")
    try:
        seed_school(binary, env, "SQLite", TITLES, 10)
        # One 5 MB cover (a JPEG's first bytes, then noise), stored once and pointed at by SHARING titles.
        cover = uuid.uuid4()
        con = sqlite3.connect(db)
        con.execute("INSERT INTO covers (id, sha256, content_type, bytes, source_url, created_at) VALUES (?, ?, 'image/jpeg', ?, NULL, ?)",
                    (cover.bytes, "bench", b"\xff\xd8\xff\xe0" + os.urandom(5 * 1024 * 1024 - 4), "2026-01-01T00:00:00Z"))
        def share(n):
            con.execute("UPDATE titles SET cover_url = NULL")
            con.execute("UPDATE titles SET cover_url = ? WHERE rowid IN (SELECT rowid FROM titles WHERE wishlist = 0 LIMIT ?)",
                        (f"/api/v1/covers/{str(cover).upper()}", n))
            con.commit()
        share(SHARING)
        server = start_server(binary, env, PORT, work)
        try:
            token = json.load(api("POST", "/api/v1/auth/login", {"username": "bench", "password": "bench-password"}))["token"]
            lib = json.load(api("GET", "/api/v1/libraries", token=token))[0]["id"]
            before = status_kb(server.pid, "VmRSS")
            t0, size = time.time(), 0
            with api("GET", f"/api/v1/libraries/{lib}/export?format=csv&covers=true", token=token) as r:
                while True:
                    chunk = r.read(1 << 20)
                    if not chunk:
                        break
                    size += len(chunk)
            took = time.time() - t0
            peak = status_kb(server.pid, "VmHWM")
            print(f"   {SHARING} of {TITLES:,} titles sharing a 5 MB cover: {size / 1e6:,.0f} MB written in {took:.1f} s; "
                  f"server RSS {before / 1024:.0f} MB before, peak {peak / 1024:.0f} MB", flush=True)
        finally:
            server.terminate()
            server.wait()
        share(TITLES)
        server = start_server(binary, env, PORT, work)
        try:
            token = json.load(api("POST", "/api/v1/auth/login", {"username": "bench", "password": "bench-password"}))["token"]
            t0 = time.time()
            try:
                api("GET", f"/api/v1/libraries/{lib}/export?format=csv&covers=true", token=token)
                answer = "200 (not refused)"
            except urllib.error.HTTPError as e:
                answer = f"{e.code} {json.load(e)['error']['code']}"
            print(f"   all {TITLES:,} titles sharing it: answered {answer} in {time.time() - t0:.2f} s; "
                  f"server peak {status_kb(server.pid, 'VmHWM') / 1024:.0f} MB", flush=True)
        finally:
            server.terminate()
            server.wait()
    finally:
        shutil.rmtree(work, ignore_errors=True)


if __name__ == "__main__":
    main()
