"""A full disk is a bad day, not an outage: the real binary on a 24 MB tmpfs filled to the last byte.

An installation of 300 titles is made and an API token taken while there is room; then the disk is
filled. Then:
- a command that writes ends with plain words ("The disk is full, so nothing was saved …"), not
  SQLite's own, and exit status 1;
- the server starts all the same: `/health` says the disk is full (503), the catalog reads (200, every
  title), a write is refused as a full disk's (507 disk_full), and the overview says it in the
  reader's language (English and German);
- once space is freed the same process opens the database for writing by itself: `/health` is 200
  and a new title is saved (201), without a restart.
Needs root (to mount the tmpfs), as `make test-e2e` runs on this machine. Run by `make test-e2e`."""
import json, os, shutil, signal, socket, subprocess, sys, tempfile, time, urllib.error, urllib.request

BIN = os.environ.get("E2E_BIN", ".build/debug")
SHELFMARK = os.path.join(BIN, "shelfmark")


def run(env, *args, check=True):
    done = subprocess.run([SHELFMARK, *args], env=env, capture_output=True, text=True, timeout=600)
    if check and done.returncode != 0:
        raise AssertionError(f"shelfmark {' '.join(args)} failed ({done.returncode}): {done.stderr[-2000:]}")
    return done


def free_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def call(base, method, path, token=None, body=None, headers=None):
    request = urllib.request.Request(base + path, method=method, data=json.dumps(body).encode() if body is not None else None)
    request.add_header("Content-Type", "application/json")
    if token:
        request.add_header("Authorization", "Bearer " + token)
    for name, value in (headers or {}).items():
        request.add_header(name, value)
    try:
        with urllib.request.urlopen(request, timeout=30) as reply:
            return reply.status, reply.read().decode()
    except urllib.error.HTTPError as error:
        return error.code, error.read().decode()


def start(env, port):
    server = subprocess.Popen([SHELFMARK, "serve", "--hostname", "127.0.0.1", "--port", str(port)], env=env,
                              stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
    base = f"http://127.0.0.1:{port}"
    for _ in range(300):
        if server.poll() is not None:
            raise AssertionError(f"the server stopped ({server.returncode}): {server.stdout.read()[-3000:]}")
        try:
            call(base, "GET", "/api/v1/health")
            return server, base
        except OSError:
            time.sleep(0.1)
    raise AssertionError("the server did not answer in 30 s")


def stop(server):
    server.send_signal(signal.SIGINT)
    try:
        server.wait(timeout=20)
    except subprocess.TimeoutExpired:
        server.kill()
        server.wait()


def fill(path):
    """Writes zeros into `path` until the disk refuses another byte."""
    with open(path, "wb", buffering=0) as f:
        block = b"\0" * (1 << 20)
        while True:
            try:
                f.write(block)
            except OSError:
                break
        for size in (65536, 4096, 512, 1):
            while True:
                try:
                    f.write(b"\0" * size)
                    os.fsync(f.fileno())
                except OSError:
                    break


def main():
    if os.geteuid() != 0:
        raise SystemExit("full_disk.py mounts a tmpfs and needs root (make test-e2e runs as root on this machine)")
    root = tempfile.mkdtemp(prefix="shelfmark-fulldisk-")
    subprocess.run(["mount", "-t", "tmpfs", "-o", "size=24m,mode=0700", "tmpfs", root], check=True)
    server = None
    try:
        env = dict(os.environ, SHELFMARK_DATA_DIR=os.path.join(root, "data"), SHELFMARK_BACKUP_DIR=os.path.join(root, "backups"))
        run(env, "user", "create", "--username", "admin", "--password", "full-disk-test", "--library", "Full Disk School")
        run(env, "seed", "--titles", "300", "--members", "20", "--library", "Full Disk School")
        port = free_port()
        server, base = start(env, port)
        status, body = call(base, "POST", "/api/v1/auth/login", body={"username": "admin", "password": "full-disk-test"})
        assert status == 200, (status, body)
        token = json.loads(body)["token"]
        status, body = call(base, "GET", "/api/v1/libraries", token)
        library = json.loads(body)[0]["id"]
        stop(server)
        server = None

        filler = os.path.join(root, "filler")
        fill(filler)
        assert shutil.disk_usage(root).free < 64 * 1024, shutil.disk_usage(root)

        # A command that writes: plain words, not SQLite's.
        refused = run(env, "user", "create", "--username", "second", "--password", "full-disk-test-2", check=False)
        assert refused.returncode == 1, (refused.returncode, refused.stderr)
        assert "The disk is full, so nothing was saved" in refused.stderr, refused.stderr
        assert "database or disk is full" not in refused.stderr and "readonly" not in refused.stderr, refused.stderr

        # The server starts on the full disk and serves reading.
        server, base = start(env, port)
        pid = server.pid
        status, body = call(base, "GET", "/api/v1/health")
        assert status == 503 and json.loads(body)["problem"] == "the disk is full", (status, body)
        status, body = call(base, "GET", f"/api/v1/libraries/{library}/titles?limit=5", token)
        assert status == 200 and json.loads(body)["total"] == 300, (status, body[:300])
        status, body = call(base, "POST", f"/api/v1/libraries/{library}/titles", token, {"title": "Written on a full disk"})
        assert status == 507 and json.loads(body)["error"]["code"] == "disk_full", (status, body)
        for language, words in (("en", "The server's disk is full"), ("de", "Die Festplatte des Servers ist voll")):
            status, page = call(base, "GET", f"/libraries/{library}/dashboard", token, headers={"Accept": "text/html", "Accept-Language": language})
            assert status == 200 and words in page, (language, status, page[:500])
        print("full disk: the server started, read 300 titles, refused a write (507), said so on the overview")

        # Space freed: the same process opens the database for writing by itself.
        os.remove(filler)
        deadline = time.time() + 40
        while time.time() < deadline:
            status, body = call(base, "GET", "/api/v1/health")
            if status == 200:
                break
            time.sleep(1)
        assert status == 200 and json.loads(body)["writes"] == "ok", (status, body)
        status, body = call(base, "POST", f"/api/v1/libraries/{library}/titles", token, {"title": "Written after space was freed"})
        assert status == 201, (status, body)
        status, body = call(base, "GET", f"/api/v1/libraries/{library}/titles?limit=1", token)
        assert json.loads(body)["total"] == 301, body[:200]
        assert server.poll() is None and server.pid == pid
        print("full disk: space freed, the same server saved a title without a restart")
    finally:
        if server is not None:
            stop(server)
        subprocess.run(["umount", "-l", root])
        shutil.rmtree(root, ignore_errors=True)


if __name__ == "__main__":
    main()
