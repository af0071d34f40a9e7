#!/usr/bin/env python3
"""The targets, measured (part of `make bench`): the daily reminder run for a library with 600
members and 3,000 open loans (400 overdue) hands every message to a real SMTP server (aiosmtpd on
127.0.0.1, from the test venv) in <= 10 s, and the letters PDF for 200 members without email is made
in <= 5 s. Runs `shelfmark bench-reminders` on a throwaway SQLite directory; prints each round and the
medians, and each median as a share of its target.

    BENCH_BIN=.build/release scripts/bench-reminders.py      (default: the release build)
"""
import json, os, statistics, subprocess, sys, tempfile

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
BIN = os.environ.get("BENCH_BIN") or os.path.join(ROOT, ".build", "release")
PYTHON = os.environ.get("BENCH_PYTHON") or os.path.join(ROOT, ".tmp", "venv", "bin", "python")


def main():
    with tempfile.TemporaryDirectory() as spool, tempfile.TemporaryDirectory() as data:
        smtp = subprocess.Popen([PYTHON, os.path.join(ROOT, "Tests/smtp/server.py"), spool, "--mode", "plain"],
                                stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True)
        try:
            port = json.loads(smtp.stdout.readline())["port"]
            env = dict(os.environ, SHELFMARK_DATA_DIR=data)
            out = subprocess.run([os.path.join(BIN, "shelfmark"), "bench-reminders", "--smtp-port", str(port), "--rounds", "5"],
                                 env=env, capture_output=True, text=True, timeout=900)
            if out.returncode != 0:
                sys.exit(out.stderr)
            rounds = [json.loads(line) for line in out.stdout.splitlines() if line.startswith("{")]
            for r in rounds:
                print(json.dumps(r))
            run = statistics.median(r["reminder_run_s"] for r in rounds)
            letters = statistics.median(r["letters_s"] for r in rounds)
            print(f"reminder run (600 members, 3,000 loans, 400 overdue): median {run:.2f} s = {run / 10:.0%} of the 10 s target; "
                  f"sent {rounds[-1]['sent']}, failed {rounds[-1]['failed']}")
            print(f"letters PDF ({rounds[-1]['letters']} members): median {letters:.2f} s = {letters / 5:.0%} of the 5 s target")
        finally:
            smtp.stdin.close()
            smtp.wait(timeout=10)


if __name__ == "__main__":
    main()
