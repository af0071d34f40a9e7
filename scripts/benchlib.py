"""What the benchmark scripts share: the release build they measure, percentiles, a seeded school, a
started server, one API call, and latencies sampled while something runs."""
import json, os, subprocess, threading, time, urllib.error, urllib.request

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


def release_bin():
    """The directory of the release build's `shelfmark`: BENCH_BIN, else `swift build -c release`
    (built first unless BENCH_SKIP_BUILD is set, as `make bench` does once for all scripts)."""
    bin_dir = os.environ.get("BENCH_BIN")
    if bin_dir:
        return bin_dir
    if not os.environ.get("BENCH_SKIP_BUILD"):
        subprocess.run(["swift", "build", "-c", "release", "--product", "shelfmark"], cwd=ROOT, check=True)
    return subprocess.run(["swift", "build", "-c", "release", "--show-bin-path"], cwd=ROOT, check=True,
                          capture_output=True, text=True).stdout.strip()


def pct(values, q):
    """The q-th percentile of `values` (nearest rank)."""
    values = sorted(values)
    return values[min(len(values) - 1, int(round(q / 100 * (len(values) - 1))))]


def seed_school(binary, env, name, titles, members):
    """A user `bench` (password `bench-password`) owning the library "School", seeded with `titles` titles ×
    3 copies and `members` members; prints how long the seeding took."""
    subprocess.run([binary, "user", "create", "--username", "bench", "--password", "bench-password", "--library", "School"],
                   env=env, check=True, capture_output=True)
    t0 = time.time()
    subprocess.run([binary, "seed", "--library", "School", "--owner", "bench", "--titles", str(titles), "--members", str(members),
                    "--copies", "3"], env=env, check=True, capture_output=True)
    print(f"   {name}: seeded {titles:,} titles × 3 copies, {members} members in {time.time() - t0:.0f} s", flush=True)


def start_server(binary, env, port, log_dir, seconds=30):
    """`shelfmark serve` on 127.0.0.1:`port` with `env`, its log in `log_dir`/server.log; returned once its
    health check answers (up to `seconds`: a database of an earlier run may have a migration to run first)."""
    log = open(os.path.join(log_dir, "server.log"), "w")
    server = subprocess.Popen([binary, "serve", "--hostname", "127.0.0.1", "--port", str(port)], env=env, stdout=log,
                              stderr=subprocess.STDOUT)
    deadline = time.time() + seconds
    while time.time() < deadline:
        try:
            with urllib.request.urlopen(f"http://127.0.0.1:{port}/api/v1/health", timeout=5) as r:
                if r.status == 200:
                    break
        except Exception:
            time.sleep(0.2)
    return server


def call(base, method, path, body=None, token=None, raw=None):
    """One API request to `base`: (status, body bytes); `raw` bytes instead of `body` as JSON."""
    data = raw if raw is not None else (json.dumps(body).encode() if body is not None else None)
    req = urllib.request.Request(base + path, method=method, data=data)
    req.add_header("content-type", "application/json")
    if token:
        req.add_header("authorization", f"Bearer {token}")
    try:
        with urllib.request.urlopen(req, timeout=120) as r:
            return r.status, r.read()
    except urllib.error.HTTPError as e:
        return e.code, e.read()


def _sampler(make_request, stop, times, errors, slow, slow_ms=1000):
    while not stop.is_set():
        t = time.perf_counter()
        try:
            status = make_request()
        except Exception:
            status = 0
        times.append((time.perf_counter() - t) * 1000)
        if times[-1] > slow_ms:
            slow.append((time.strftime("%H:%M:%S", time.gmtime(time.time() - times[-1] / 1000)), round(times[-1])))
        if not 200 <= status < 300:
            errors.append(status)
        time.sleep(0.01)


def measure(requests, during, slow_ms=1000):
    """Each request of `requests` (name → a function answering a status) in a loop of its own while
    `during()` runs (or for 5 s when it is None): {name: (latencies in ms, error statuses, waits over
    `slow_ms` with their start)}, and what `during()` answered."""
    stop = threading.Event()
    results = {name: ([], [], []) for name in requests}
    threads = [threading.Thread(target=_sampler, args=(fn, stop, *results[name], slow_ms)) for name, fn in requests.items()]
    for th in threads:
        th.start()
    value = during() if during else time.sleep(5)
    stop.set()
    for th in threads:
        th.join()
    return results, value
