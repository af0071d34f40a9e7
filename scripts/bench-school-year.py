#!/usr/bin/env python3
"""The school year's targets, measured (part of `make bench`): a 2,000-student OneRoster bundle (80
homerooms, a teacher each, guardians) previewed <= 3 s and applied <= 10 s; an incremental re-run (a
delta of 20 changes: 15 moved or renamed, 5 left) previewed and applied <= 1 s; the year-end rollover
of 600 students in 24 classes in a library of 20,000 titles (the backup taken first included) <= 5 s
and its undo <= 10 s. On SQLite, then on a private PostgreSQL cluster. Each figure is the median of
BENCH_SCHOOL_RUNS runs (each on a library of its own); the same-run baseline is the catalog's first
page (`GET /titles`).

    BENCH_BIN=.build/release scripts/bench-school-year.py      (default: the release build)
    BENCH_SCHOOL_RUNS=3 BENCH_SKIP_POSTGRES=1
"""
import io, json, os, shutil, statistics, subprocess, sys, tempfile, time, zipfile

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from benchlib import ROOT, call, release_bin, start_server  # noqa: E402

RUNS = int(os.environ.get("BENCH_SCHOOL_RUNS", "3"))
PORT, PG_PORT = 18741, 55438
FIRST = ["Ada", "Ben", "Cem", "Dara", "Eoin", "Fatima", "Greta", "Hiro", "Ines", "Jonas", "Kai", "Lena", "Mei", "Niamh", "Omar", "Priya"]
LAST = ["Byrne", "Chen", "Weber", "Okafor", "Murphy", "Silva", "Yilmaz", "Keller", "Nowak", "Rossi", "Walsh", "Kim"]


def bundle(students, classes, delta=None):
    """A OneRoster 1.1 zip: `students` in `classes` homerooms (a teacher each, a guardian for every other
    pupil); `delta` (a list of users.csv rows) makes it a delta of those rows instead."""
    out = io.BytesIO()
    with zipfile.ZipFile(out, "w", zipfile.ZIP_DEFLATED) as z:
        z.writestr("manifest.csv", "propertyName,value\noneroster.version,1.1\nfile.users,%s\nfile.classes,bulk\nfile.enrollments,bulk\n"
                   % ("delta" if delta else "bulk"))
        z.writestr("classes.csv", "sourcedId,status,title,classType\n" + "".join(f"c{c},,{c // 4 + 1}{'ABCD'[c % 4]},homeroom\n" for c in range(classes)))
        header = "sourcedId,status,enabledUser,role,givenName,familyName,identifier,email,agentSourcedIds,grades\n"
        if delta:
            z.writestr("users.csv", header + "".join(delta))
        else:
            rows = [f"t{c},,true,teacher,Teacher,{LAST[c % len(LAST)]},T{c},t{c}@school.example,,\n" for c in range(classes)]
            for s in range(students):
                guardian = f"g{s}" if s % 2 == 0 else ""
                rows.append(f"s{s},,true,student,{FIRST[s % len(FIRST)]},{LAST[(s // 3) % len(LAST)]},{100000 + s},,{guardian},\n")
                if guardian:
                    rows.append(f"g{s},,true,guardian,Parent,{LAST[(s // 3) % len(LAST)]},,parent{s}@home.example,,\n")
            z.writestr("users.csv", header + "".join(rows))
        z.writestr("enrollments.csv", "sourcedId,classSourcedId,userSourcedId,role\n"
                   + "".join(f"e{s},c{s % classes},s{s},student\n" for s in range(students))
                   + "".join(f"et{c},c{c},t{c},teacher\n" for c in range(classes)))
    return out.getvalue()


def timed(fn):
    t = time.perf_counter()
    result = fn()
    return (time.perf_counter() - t) * 1000, result


def ok(status, body, what, expect=(200, 201)):
    if status not in expect:
        sys.exit(f"{what}: {status} {body[:300]!r}")
    return json.loads(body) if body else {}


def run_backend(binary, name, env, work):
    subprocess.run([binary, "user", "create", "--username", "bench", "--password", "bench-password", "--library", "School 0"],
                   env=env, check=True, capture_output=True)
    for i in range(RUNS):
        subprocess.run([binary, "seed", "--library", f"June {i}", "--owner", "bench", "--titles", "20000", "--members", "0", "--copies", "1"],
                       env=env, check=True, capture_output=True)
    server = start_server(binary, env, PORT, work, seconds=120)
    base = f"http://127.0.0.1:{PORT}"
    try:
        token = json.loads(call(base, "POST", "/api/v1/auth/login", {"username": "bench", "password": "bench-password"})[1])["token"]
        libraries = {l["name"]: l["id"] for l in json.loads(call(base, "GET", "/api/v1/libraries", token=token)[1])}
        for i in range(1, RUNS):
            libraries[f"School {i}"] = ok(*call(base, "POST", "/api/v1/libraries", {"name": f"School {i}"}, token=token), "library")["id"]
        june_lib = libraries["June 0"]
        baseline = sorted(timed(lambda: call(base, "GET", f"/api/v1/libraries/{june_lib}/titles?limit=50", token=token))[0] for _ in range(20))
        b50 = statistics.median(baseline)
        print(f"   {name}: baseline, the catalog's first page at 20,000 titles: p50 {b50:.1f} ms", flush=True)
        september = bundle(2000, 80)
        changes = [f"s{s},active,true,student,{FIRST[s % len(FIRST)]},Renamed,{100000 + s},,,\n" for s in range(15)] \
            + [f"s{s},tobedeleted,true,student,X,Y,{100000 + s},,,\n" for s in range(100, 105)]
        tuesday = bundle(2000, 80, delta=changes)
        figures = {k: [] for k in ["preview", "apply", "delta", "rollover", "undo"]}
        for i in range(RUNS):
            api = f"/api/v1/libraries/{libraries[f'School {i}']}"
            ms, run = timed(lambda: ok(*call(base, "POST", f"{api}/roster/preview?fileName=september.zip", raw=september, token=token), "preview"))
            figures["preview"].append(ms)
            assert len(run["plan"]["added"]) == 2000, run["plan"]["refused"][:3]
            ms, applied = timed(lambda: ok(*call(base, "POST", f"{api}/roster/runs/{run['id']}/apply", token=token), "apply"))
            figures["apply"].append(ms)

            def incremental():
                preview = ok(*call(base, "POST", f"{api}/roster/preview?fileName=tuesday.zip", raw=tuesday, token=token), "delta preview")
                done = ok(*call(base, "POST", f"{api}/roster/runs/{preview['id']}/apply", token=token), "delta apply")
                assert len(done["plan"]["changed"]) == 15 and len(done["plan"]["leaving"]) == 5, done["plan"]
            figures["delta"].append(timed(incremental)[0])

            # June: 600 students in 24 classes (years 1 to 6), in a library of 20,000 titles.
            june = f"/api/v1/libraries/{libraries[f'June {i}']}"
            run = ok(*call(base, "POST", f"{june}/roster/preview", raw=bundle(600, 24), token=token), "june preview")
            ok(*call(base, "POST", f"{june}/roster/runs/{run['id']}/apply", token=token), "june apply")
            plan = ok(*call(base, "GET", f"{june}/rollover", token=token), "rollover plan")
            classes = [{"from": c["name"], "to": c["becomes"]} if not c["leaves"] else {"from": c["name"], "leave": True} for c in plan["classes"]]
            ms, done = timed(lambda: ok(*call(base, "POST", f"{june}/rollover", {"classes": classes, "clearGoals": True}, token=token), "rollover"))
            figures["rollover"].append(ms)
            assert done["summary"]["moved"] == 500 and done["summary"]["archived"] == 100, done["summary"]
            ms, _ = timed(lambda: ok(*call(base, "POST", f"{june}/rollovers/{done['id']}/undo", token=token), "undo"))
            figures["undo"].append(ms)
        targets = {"preview": 3000, "apply": 10000, "delta": 1000, "rollover": 5000, "undo": 10000}
        labels = {"preview": "2,000-student bundle previewed", "apply": "applied (2,000 members made)",
                  "delta": "a delta of 20 changes previewed and applied", "rollover": "rollover of 600 in 24 classes (backup first)",
                  "undo": "its undo"}
        out = {}
        for key, values in figures.items():
            median = statistics.median(values)
            out[key] = median
            print(f"   {name}: {labels[key]}: median {median:,.0f} ms of {len(values)} (target ≤ {targets[key]:,} ms, "
                  f"{median / targets[key]:.0%}); {median / b50:,.0f} x the baseline", flush=True)
        return out
    finally:
        server.terminate()
        server.wait(timeout=30)


def main():
    binary = os.path.join(release_bin(), "shelfmark")
    print(f"== school year: rosters, rollover, undo ({RUNS} runs each) ==", flush=True)
    work = tempfile.mkdtemp(prefix="shelfmark-school-year-")
    env = dict(os.environ, SHELFMARK_DATA_DIR=os.path.join(work, "sqlite"), LOG_LEVEL="error",
               SHELFMARK_PROVIDERS_URL="http://127.0.0.1:9", SHELFMARK_LOOKUP_TIMEOUT="1")
    env.pop("DATABASE_URL", None)
    os.makedirs(env["SHELFMARK_DATA_DIR"])
    try:
        run_backend(binary, "SQLite", env, work)
        if os.path.exists("/usr/lib/postgresql") and not os.environ.get("BENCH_SKIP_POSTGRES"):
            cluster = os.path.join(ROOT, ".tmp", "bench-school-pg")
            url = subprocess.run([os.path.join(ROOT, "scripts", "pg-test-cluster.sh"), "start", cluster, str(PG_PORT)], check=True,
                                 capture_output=True, text=True).stdout.strip()
            try:
                pg_env = dict(env, SHELFMARK_DATA_DIR=os.path.join(work, "pgdata"), DATABASE_URL=url)
                os.makedirs(pg_env["SHELFMARK_DATA_DIR"])
                run_backend(binary, "PostgreSQL", pg_env, work)
            finally:
                subprocess.run([os.path.join(ROOT, "scripts", "pg-test-cluster.sh"), "stop", cluster], capture_output=True)
    finally:
        shutil.rmtree(work, ignore_errors=True)


if __name__ == "__main__":
    main()
