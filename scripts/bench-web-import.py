#!/usr/bin/env python3
"""A 100,000-row import through the web page: the upload answers at once with the job's
page, which shows rows landing, then the report. Per round, into a new library: the time from
sending the file to the answer (303 to the job page), the time until the job is done, and how many
times the page showed more rows than the time before (progress seen). Medians over rounds; the
answer time is set against the time the whole import took in the same round.

Uses the release build of `make bench` (or BENCH_BIN=<bin dir>, e.g. the debug build)."""
import http.cookiejar, json, os, re, statistics, subprocess, sys, tempfile, time, urllib.request, uuid

import benchlib

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, os.path.join(ROOT, "scripts"))
from importlib import import_module
write_catalog = import_module("bench-import").write_catalog

ROWS = int(os.environ.get("BENCH_IMPORT_ROWS", "100000"))
ROUNDS = int(os.environ.get("BENCH_ROUNDS", "3"))
PORT = int(os.environ.get("BENCH_PORT", "8199"))
BASE = f"http://127.0.0.1:{PORT}"


class NoRedirect(urllib.request.HTTPRedirectHandler):
    def redirect_request(self, *args):
        return None


def main():
    bin_dir = benchlib.release_bin()
    work = tempfile.mkdtemp(prefix="shelfmark-web-import-")
    csv_path = os.path.join(work, "catalog.csv")
    write_catalog(csv_path, ROWS)
    data = open(csv_path, "rb").read()
    env = dict(os.environ, SHELFMARK_DATA_DIR=os.path.join(work, "data"), LOG_LEVEL="error",
               SHELFMARK_PROVIDERS_URL="http://127.0.0.1:9", SHELFMARK_LOOKUP_TIMEOUT="1")
    env.pop("DATABASE_URL", None)
    log = os.path.join(work, "server.log")
    server = subprocess.Popen([f"{bin_dir}/shelfmark", "serve", "--hostname", "127.0.0.1", "--port", str(PORT)], env=env,
                              stdout=open(log, "w"), stderr=subprocess.STDOUT)
    try:
        for _ in range(100):
            try:
                urllib.request.urlopen(BASE + "/api/v1/health", timeout=2); break
            except Exception:
                time.sleep(0.2)
        setup = json.loads(urllib.request.urlopen(urllib.request.Request(
            BASE + "/api/v1/setup", method="POST", headers={"content-type": "application/json"},
            data=json.dumps({"username": "bench", "password": "a long password", "libraryName": "Bench"}).encode()), timeout=30).read())
        token = setup["session"]["token"]
        jar = http.cookiejar.CookieJar()
        opener = urllib.request.build_opener(urllib.request.HTTPCookieProcessor(jar), NoRedirect)
        cookie = f"shelfmark_session={token}"
        answers, totals, seen = [], [], []
        for round_ in range(ROUNDS):
            library = json.loads(urllib.request.urlopen(urllib.request.Request(
                BASE + "/api/v1/libraries", method="POST", data=json.dumps({"name": f"Round {round_ + 1}"}).encode(),
                headers={"content-type": "application/json", "authorization": f"Bearer {token}"}), timeout=30).read())
            page = f"{BASE}/libraries/{library['id']}/exchange"
            html = opener.open(urllib.request.Request(page, headers={"cookie": cookie}), timeout=30).read().decode()
            csrf = re.search(r'name="csrf-token" content="([^"]+)"', html).group(1)
            boundary = uuid.uuid4().hex
            body = (f"--{boundary}\r\nContent-Disposition: form-data; name=\"_csrf\"\r\n\r\n{csrf}\r\n"
                    f"--{boundary}\r\nContent-Disposition: form-data; name=\"file\"; filename=\"catalog.csv\"\r\n"
                    f"Content-Type: text/csv\r\n\r\n").encode() + data + f"\r\n--{boundary}--\r\n".encode()
            request = urllib.request.Request(page, method="POST", data=body, headers={
                "cookie": cookie, "content-type": f"multipart/form-data; boundary={boundary}"})
            started = time.monotonic()
            try:
                opener.open(request, timeout=600)
                sys.exit("the upload did not answer with a redirect to the job's page")
            except urllib.error.HTTPError as e:
                if e.code != 303:
                    sys.exit(f"the upload answered {e.code}")
                location = e.headers["location"]
            answered = time.monotonic() - started
            last_rows, increases, done = -1, 0, False
            while time.monotonic() - started < 900:
                html = opener.open(urllib.request.Request(BASE + location, headers={"cookie": cookie}), timeout=30).read().decode()
                if 'id="job" aria-live="polite" data-refresh' not in html:
                    done = "Import finished" in html
                    break
                rows = int(re.search(r"([\d,]+) rows read", html).group(1).replace(",", ""))
                if rows > last_rows:
                    increases += 1
                last_rows = rows
                time.sleep(0.25)
            if not done:
                sys.exit("the job did not finish with a report")
            total = time.monotonic() - started
            answers.append(answered); totals.append(total); seen.append(increases)
            print(f"round {round_ + 1}: answered in {answered * 1000:.0f} ms, done after {total:.1f} s, "
                  f"the page showed more rows {increases} times", flush=True)
        a, t = statistics.median(answers), statistics.median(totals)
        print(f"\n{ROWS:,}-row CSV through the web page, median of {ROUNDS}: the upload answers in {a * 1000:.0f} ms "
              f"({a / t:.3f} of the {t:.1f} s the import takes); progress seen {statistics.median(seen):.0f} times")
    finally:
        if server.poll() is not None:
            print(f"the server stopped (exit {server.returncode}); its log: {log}", file=sys.stderr)
        server.terminate(); server.wait(timeout=30)


if __name__ == "__main__":
    main()
