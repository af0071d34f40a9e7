"""A power cut during the nightly backup, with the real binary and a real kill -9.

An installation of 3,000 titles and 200 members (`shelfmark seed`) is backed up whole
(`shelfmark backup --all`, what the nightly job runs). A second backup is killed with SIGKILL as soon as
its unfinished folder appears. Then:
- the first backup is exactly as it was (its manifest byte for byte, its database copy whole by
  `sqlite3`'s integrity check, its library file readable);
- the dead run left only its `.incomplete-` folder, never a finished-looking backup;
- the next run succeeds, removes the dead folder, and its backup is whole.
Run by `make test-e2e`."""
import json, os, shutil, signal, sqlite3, subprocess, sys, tempfile, time

BIN = os.environ.get("E2E_BIN", ".build/debug")
SHELFMARK = os.path.join(BIN, "shelfmark")


def run(env, *args, timeout=600):
    done = subprocess.run([SHELFMARK, *args], env=env, capture_output=True, text=True, timeout=timeout)
    if done.returncode != 0:
        raise AssertionError(f"shelfmark {' '.join(args)} failed ({done.returncode}): {done.stderr[-2000:]}")
    return done.stdout


def finished(folder):
    return sorted(n for n in os.listdir(folder) if n.startswith("shelfmark-") and os.path.exists(os.path.join(folder, n, "manifest.json")))


def unfinished(folder):
    return [n for n in os.listdir(folder) if n.startswith(".incomplete-")]


def whole(folder, name):
    """The backup's database copy passes SQLite's integrity check and its library files decode."""
    base = os.path.join(folder, name)
    manifest = json.load(open(os.path.join(base, "manifest.json")))
    db = sqlite3.connect(os.path.join(base, "shelfmark.sqlite"))
    assert db.execute("PRAGMA integrity_check").fetchone()[0] == "ok", name
    titles = db.execute("SELECT COUNT(*) FROM titles").fetchone()[0]
    db.close()
    assert titles == manifest["databaseCounts"]["titles"] == 3000, (titles, manifest["databaseCounts"])
    for library in manifest["libraries"]:
        data = json.load(open(os.path.join(base, library["file"])))
        assert len(data["titles"]) == library["titles"] == 3000, library
    return manifest


def main():
    root = tempfile.mkdtemp(prefix="shelfmark-powercut-")
    try:
        folder = os.path.join(root, "backups")
        env = dict(os.environ, SHELFMARK_DATA_DIR=os.path.join(root, "data"), SHELFMARK_BACKUP_DIR=folder)
        run(env, "user", "create", "--username", "admin", "--password", "power-cut-test", "--library", "Power Cut School")
        run(env, "seed", "--titles", "3000", "--members", "200", "--library", "Power Cut School")
        started = time.time()
        print(run(env, "backup", "--all").strip())
        first = finished(folder)
        assert len(first) == 1, first
        whole(folder, first[0])
        kept = open(os.path.join(folder, first[0], "manifest.json"), "rb").read()
        one_run = time.time() - started

        # The second run, killed as soon as its unfinished folder is there.
        time.sleep(1.1)  # a backup's name has the second it was made
        victim = subprocess.Popen([SHELFMARK, "backup", "--all"], env=env, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        deadline = time.time() + 120
        while not unfinished(folder) and victim.poll() is None and time.time() < deadline:
            time.sleep(0.005)
        assert victim.poll() is None, "the backup ended before it could be killed"
        time.sleep(0.05)
        os.kill(victim.pid, signal.SIGKILL)
        victim.wait()
        assert victim.returncode == -signal.SIGKILL
        assert unfinished(folder), "the killed run left no unfinished folder: it was not killed half-way"
        assert finished(folder) == first, finished(folder)
        assert open(os.path.join(folder, first[0], "manifest.json"), "rb").read() == kept
        whole(folder, first[0])

        # The next run: whole, and the dead folder gone.
        time.sleep(1.1)
        print(run(env, "backup", "--all").strip())
        assert not unfinished(folder), unfinished(folder)
        last = finished(folder)[-1]
        assert last != first[0]
        whole(folder, last)
        print(f"power cut: killed mid-way, earlier backup intact, next run whole (one run {one_run:.1f} s)")
    finally:
        shutil.rmtree(root, ignore_errors=True)


if __name__ == "__main__":
    try:
        main()
    except AssertionError as e:
        print(f"FAILED: {e}", file=sys.stderr)
        sys.exit(1)
