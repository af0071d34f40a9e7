"""The Debian package installed into a fresh Debian 12, as a school would: `make test-package`.

A minimal Debian 12 (`debootstrap --variant=minbase`) is made in a folder; the package is installed in it
with `apt-get install ./shelfmark_….deb`, so apt fetches exactly what its Depends name. Then:
- the package made the service: the system user, the data directory owned by it, the settings file and
  the systemd unit starting the packaged binary;
- the binary starts in that root as the service's user with the service's settings, answers `/health`,
  and serves the setup page and its stylesheet (the web files were found);
- removing the package removes the unit and keeps the data.
Needs root (debootstrap, chroot, mounts). Prints each step's time."""
import glob, json, os, shutil, socket, subprocess, sys, tempfile, time, urllib.request

MIRROR = os.environ.get("DEBIAN_MIRROR", "http://deb.debian.org/debian")
CACHE = os.path.abspath(os.environ.get("PACKAGE_TEST_CACHE", ".tmp/package-test-cache"))


def sh(*args, **kwargs):
    return subprocess.run(args, check=True, **kwargs)


def chroot(root, *args, env=None, capture=False):
    base = {"PATH": "/usr/sbin:/usr/bin:/sbin:/bin", "DEBIAN_FRONTEND": "noninteractive", "LANG": "C.UTF-8"}
    return subprocess.run(["chroot", root, *args], check=True, env={**base, **(env or {})}, capture_output=capture, text=True)


def free_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def get(url):
    with urllib.request.urlopen(url, timeout=10) as reply:
        return reply.status, reply.read()


def step(name, started):
    print(f"package: {name} ({time.time() - started:.0f} s)", flush=True)


def main():
    if os.geteuid() != 0:
        raise SystemExit("package.py needs root (debootstrap, chroot)")
    debs = sorted(glob.glob(sys.argv[1] if len(sys.argv) > 1 else "dist/shelfmark_*.deb"), key=os.path.getmtime)
    if not debs:
        raise SystemExit("no package: run make package first")
    deb = os.path.abspath(debs[-1])
    started = time.time()
    root = tempfile.mkdtemp(prefix="shelfmark-package-root-")
    # A system's root is open to all (mkdtemp makes it its owner's only, and the service's user could not start a shell).
    os.chmod(root, 0o755)
    mounts = []
    server = None
    try:
        os.makedirs(os.path.join(CACHE, "debootstrap"), exist_ok=True)
        os.makedirs(os.path.join(CACHE, "apt"), exist_ok=True)
        sh("debootstrap", "--variant=minbase", f"--cache-dir={os.path.join(CACHE, 'debootstrap')}", "bookworm", root, MIRROR,
           stdout=subprocess.DEVNULL)
        step("a fresh Debian 12 (debootstrap minbase)", started)
        for source, target, kind in (("proc", "proc", "proc"), ("/dev", "dev", "bind"), (os.path.join(CACHE, "apt"), "var/cache/apt/archives", "bind")):
            path = os.path.join(root, target)
            os.makedirs(path, exist_ok=True)
            sh("mount", *(["-t", "proc", "proc"] if kind == "proc" else ["--bind", source]), path)
            mounts.append(path)
        shutil.copy("/etc/resolv.conf", os.path.join(root, "etc/resolv.conf"))
        shutil.copy(deb, os.path.join(root, "tmp", os.path.basename(deb)))
        chroot(root, "apt-get", "update", "-qq")
        chroot(root, "apt-get", "install", "-y", "-qq", "--no-install-recommends", "/tmp/" + os.path.basename(deb))
        step(f"apt-get install ./{os.path.basename(deb)} with its Depends", started)

        # What the package's postinst made: the user, the data directory, the settings and the unit.
        user = chroot(root, "getent", "passwd", "shelfmark", capture=True).stdout
        assert "/var/lib/shelfmark" in user and "nologin" in user, user
        data = os.stat(os.path.join(root, "var/lib/shelfmark"))
        assert data.st_mode & 0o777 == 0o700, oct(data.st_mode)
        unit = open(os.path.join(root, "etc/systemd/system/shelfmark.service")).read()
        assert "ExecStart=/usr/lib/shelfmark/shelfmark serve " in unit and "ProtectSystem=strict" in unit, unit
        settings = {}
        for line in open(os.path.join(root, "etc/shelfmark/shelfmark.env")):
            if "=" in line and not line.startswith("#"):
                key, value = line.rstrip("\n").split("=", 1)
                settings[key] = value
        assert settings["SHELFMARK_DATA_DIR"] == "/var/lib/shelfmark" and settings["SHELFMARK_PUBLIC_DIR"] == "/usr/share/shelfmark/Public", settings

        # The packaged binary, as the service runs it: its user, its settings, its data directory.
        port = free_port()
        env = {**settings, "SHELFMARK_TLS": "false", "SHELFMARK_HTTP_PORT": "", "SHELFMARK_PORT": str(port)}
        exports = " ".join(f"{k}='{v}'" for k, v in env.items())
        server = subprocess.Popen(["chroot", root, "/usr/sbin/runuser", "-u", "shelfmark", "--", "/bin/sh", "-c",
                                   f"cd /var/lib/shelfmark && export {exports} && exec /usr/bin/shelfmark serve --hostname 127.0.0.1 --port {port}"],
                                  env={"PATH": "/usr/sbin:/usr/bin:/sbin:/bin", "LANG": "C.UTF-8"},
                                  stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
        base = f"http://127.0.0.1:{port}"
        for _ in range(600):
            if server.poll() is not None:
                raise AssertionError(f"the packaged binary stopped ({server.returncode}): {server.stdout.read()[-3000:]}")
            try:
                status, body = get(base + "/api/v1/health")
                break
            except OSError:
                time.sleep(0.1)
        else:
            raise AssertionError("the packaged binary did not answer in 60 s")
        health = json.loads(body)
        assert status == 200 and health["status"] == "ok" and health["writes"] == "ok", (status, health)
        status, page = get(base + "/setup")
        assert status == 200 and b"/css/app.css" in page, (status, page[:300])
        status, css = get(base + "/css/app.css")
        assert status == 200 and len(css) > 1000, (status, len(css))
        assert os.path.exists(os.path.join(root, "var/lib/shelfmark/shelfmark.sqlite"))
        step(f"the packaged binary answered /health ({health}) and served the setup page with its stylesheet", started)
        server.terminate()
        server.wait(timeout=30)
        server = None

        # Removing the package removes the service and keeps the data.
        chroot(root, "apt-get", "remove", "-y", "-qq", "shelfmark")
        assert not os.path.exists(os.path.join(root, "etc/systemd/system/shelfmark.service"))
        assert not os.path.exists(os.path.join(root, "usr/lib/shelfmark/shelfmark"))
        assert os.path.exists(os.path.join(root, "var/lib/shelfmark/shelfmark.sqlite"))
        step("apt-get remove: the unit and the binary gone, the data kept", started)
    finally:
        if server is not None:
            server.kill()
            server.wait()
        for path in reversed(mounts):
            subprocess.run(["umount", "-l", path])
        # Only once nothing is mounted in it: never delete through a bind mount.
        if not any(os.path.ismount(os.path.join(root, m)) for m in ("proc", "dev", "var/cache/apt/archives")):
            shutil.rmtree(root, ignore_errors=True)


if __name__ == "__main__":
    main()
