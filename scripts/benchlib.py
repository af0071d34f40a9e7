"""What the benchmark scripts share: the release build they measure, percentiles, a seeded school and a
started server."""
import os, subprocess, time, urllib.request

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
