"""Lending without a network, in Debian's Chromium at 390×844 over HTTPS (Shelfmark's own
certificate, as phone.py), at a school's size: 20,000 titles × 3 copies and 600 members seeded.

- The offline lending page copies the library to the phone (IndexedDB, from the sync feed); the service
  worker keeps the page.
- The network goes (`context.set_offline(True)`); the page opens again from the phone; the catalog is
  searched as one types (each keystroke's search timed in the page: ≤ 50 ms); ten books are lent with a
  keyboard-wedge scanner (card, Enter, book, Enter) and one is returned: "Offline — 11 changes waiting".
- The network comes back: the changes are sent by themselves; the server has all ten loans (nine open).
- Two phones offline lend the same copy: the first to come back lends it; the second shows the conflict
  with the server's reason, and nothing is dropped.
- Signing out deletes the phone's copy.
Run by `make test-e2e` after phone.py."""
import json, os, shutil, subprocess, sys, tempfile, time, traceback

from playwright.sync_api import sync_playwright, expect

import phone
from phone import BASE, BIN, OUT, api, chromium, nss_home, signed_in

TITLES = int(os.environ.get("E2E_OFFLINE_TITLES", "20000"))
MEMBERS = int(os.environ.get("E2E_OFFLINE_MEMBERS", "600"))


def ready(page, timeout=180):
    """Waits until the page's copy of the library is up to date."""
    deadline = time.time() + timeout
    while time.time() < deadline:
        if page.evaluate("() => document.getElementById('offline-status')?.dataset.state") == "ready":
            return
        page.wait_for_timeout(200)
    raise AssertionError("the offline page never became up to date: " + page.inner_text("#offline-status"))


def controlled(page):
    for _ in range(100):
        if page.evaluate("() => !!navigator.serviceWorker.controller"):
            return
        page.wait_for_timeout(100)
    raise AssertionError("the service worker did not take charge")


def lend(page, card, barcode):
    page.focus("#f-card")
    page.fill("#f-card", "")
    page.keyboard.type(card, delay=5)
    page.keyboard.press("Enter")
    for _ in range(20):
        focused = page.evaluate("() => document.activeElement.id")
        if focused == "f-book":
            break
        page.wait_for_timeout(50)
    assert focused == "f-book", f"Enter after the card did not move on to the book: {focused}, {page.inner_text('#offline-lend-answer')!r}"
    before = int(page.get_attribute("#offline-status", "data-pending") or "0")
    page.keyboard.type(barcode, delay=5)
    page.keyboard.press("Enter")
    expect(page.locator("#offline-lend-answer")).to_contain_text("Lent:")
    # Queued (the phone is offline here): one more change waiting.
    expect(page.locator("#offline-status")).to_have_attribute("data-pending", str(before + 1))


def main():
    data = tempfile.mkdtemp(prefix="shelfmark-offline-")
    env = dict(os.environ, SHELFMARK_DATA_DIR=data, LOG_LEVEL="error")
    env.pop("DATABASE_URL", None)
    t0 = time.time()
    subprocess.run([f"{BIN}/shelfmark", "user", "create", "--username", "teacher", "--password", "a long password", "--library", "Hall"],
                   env=env, check=True, capture_output=True)
    subprocess.run([f"{BIN}/shelfmark", "seed", "--library", "Hall", "--owner", "teacher", "--titles", str(TITLES), "--members", str(MEMBERS),
                    "--copies", "3"], env=env, check=True, capture_output=True)
    print(f"offline: seeded {TITLES:,} titles × 3 copies and {MEMBERS} members in {time.time() - t0:.0f} s", flush=True)
    server, ca = phone.start(data)
    home = nss_home(ca)
    failures = []
    try:
        token = api("POST", "/auth/login", {"username": "teacher", "password": "a long password"}, None, ca)["token"]
        lib = api("GET", "/libraries", None, token, ca)[0]["id"]
        members = api("GET", f"/libraries/{lib}/members?limit=20", None, token, ca)
        card = members[0]["cardId"]
        titles = api("GET", f"/libraries/{lib}/titles?limit=12&q=the", None, token, ca)["items"]
        barcodes = [api("GET", f"/libraries/{lib}/titles/{t['id']}", None, token, ca)["copies"][0]["barcode"] for t in titles[:11]]
        desk = f"{BASE}/libraries/{lib}/offline-lending"
        with sync_playwright() as p:
            browser = chromium(p, home)
            errors = []
            try:
                context, page = signed_in(browser, token, errors)
                t0 = time.time()
                page.goto(desk)
                ready(page)
                copied = time.time() - t0
                controlled(page)
                page.goto(desk)                                  # kept by the service worker as it loads
                ready(page)
                kept = page.evaluate("async () => (await (await caches.open('shelfmark-pages')).keys()).length")
                assert kept == 1, f"the service worker keeps {kept} offline pages"
                print(f"offline: the library copied to the phone in {copied:.1f} s; page kept by the service worker", flush=True)

                # The hall: no network. The page opens from the phone.
                context.set_offline(True)
                page.goto(desk)
                expect(page.locator("h1")).to_have_text("Lend without a network")
                for _ in range(100):
                    if page.evaluate("() => document.querySelector('[data-offline]')?.dataset.ready") == "true":
                        break
                    page.wait_for_timeout(100)
                # Search as one types, timed in the page for each keystroke.
                times = []
                page.focus("#f-find")
                query = titles[3]["title"].lower()
                for ch in query:
                    page.keyboard.type(ch)
                    times.append(float(page.evaluate("() => document.querySelector('[data-offline]').dataset.lastSearchMs || '0'")))
                results = page.locator("#offline-results li")
                assert results.count() > 0, f"no book found offline for {query!r}"
                assert titles[3]["title"] in page.inner_text("#offline-results"), page.inner_text("#offline-results")
                print(f"offline: search as you type over {TITLES:,} titles: worst keystroke {max(times):.1f} ms, median {sorted(times)[len(times) // 2]:.1f} ms", flush=True)
                assert max(times) <= 50, f"an offline search took {max(times)} ms (target ≤ 50 ms)"
                page.fill("#f-find", "")
                # Ten books lent with the wedge scanner, one returned.
                for barcode in barcodes[:10]:
                    lend(page, card, barcode)
                page.focus("#f-barcode")
                page.keyboard.type(barcodes[0], delay=5)
                page.keyboard.press("Enter")
                expect(page.locator("#offline-return-answer")).to_contain_text("Returned:")
                expect(page.locator("#offline-status")).to_have_text("Offline — 11 changes waiting to be sent.")
                assert page.locator("#offline-queue li").count() == 11
                page.screenshot(path=f"{OUT}/offline-waiting.png", full_page=True)

                # Back in the staff room: sent by itself.
                context.set_offline(False)
                ready(page, timeout=30)
                page.screenshot(path=f"{OUT}/offline-sent.png", full_page=True)
                member = api("GET", f"/libraries/{lib}/members/{members[0]['id']}", None, token, ca)
                out = {l["copyBarcode"] for l in member["loans"]}
                assert out == set(barcodes[1:10]), f"open loans on the server: {sorted(out)} vs {sorted(barcodes[1:10])}"
                history = {l["copyBarcode"] for l in member.get("history", [])}
                assert barcodes[0] in history, "the returned loan is not in the member's history"
                print("offline: ten books lent and one returned without a network; all on the server once it came back", flush=True)
                # The member's books on loan, from the phone's copy, each with Renew.
                page.fill("#f-card", card)
                page.dispatch_event("#f-card", "input")
                expect(page.locator("#offline-member-loans li")).to_have_count(9)
                page.locator("#offline-member-loans li button").first.click()
                expect(page.locator("#offline-lend-answer")).to_contain_text("Renewal of")
                ready(page, timeout=30)
                renewed = [l for l in api("GET", f"/libraries/{lib}/members/{members[0]['id']}", None, token, ca)["loans"] if l["renewals"] == 1]
                assert len(renewed) == 1, f"renewed on the server: {len(renewed)}"
                print("offline: a loan renewed from the phone's list", flush=True)
                context.close()

                # Two phones lend the same copy offline: one wins, the other is told.
                last = barcodes[10]
                phones = []
                for who in (members[1]["cardId"], members[2]["cardId"]):
                    ctx, pg = signed_in(browser, token, errors)
                    pg.goto(desk)
                    ready(pg)
                    ctx.set_offline(True)
                    lend(pg, who, last)
                    phones.append((ctx, pg))
                (ctx_a, page_a), (ctx_b, page_b) = phones
                ctx_a.set_offline(False)
                ready(page_a, timeout=30)
                ctx_b.set_offline(False)
                expect(page_b.locator("#offline-attention")).to_be_visible(timeout=30000)
                conflict = page_b.inner_text("#offline-conflicts")
                assert "is on loan" in conflict or "not available" in conflict or "no copy" in conflict.lower(), conflict
                assert "lend or return it again" in conflict, conflict
                page_b.screenshot(path=f"{OUT}/offline-conflict.png", full_page=True)
                print("offline: two phones lent the same copy; the second shows the conflict", flush=True)

                # Reading progress typed without a network: kept on the phone, sent when the network is back.
                book = titles[5]["id"]
                page_b.goto(f"{BASE}/libraries/{lib}/titles/{book}")
                ctx_b.set_offline(True)
                page_b.fill("#f-progress", "42")
                page_b.locator("form.page-form button[type=submit]").click()
                expect(page_b.locator("form.page-form .offline-answer")).to_contain_text("Saved on this phone: 42")
                page_b.fill("#f-progress", "halfway through")
                page_b.locator("form.page-form button[type=submit]").click()
                expect(page_b.locator("form.page-form .offline-answer")).to_contain_text("type a page number")
                ctx_b.set_offline(False)
                expect(page_b.locator("form.page-form .offline-answer")).to_contain_text("has been saved", timeout=30000)
                reads = api("GET", f"/libraries/{lib}/reads?titleId={book}", None, token, ca)
                assert reads and reads[0]["page"] == 42, f"reads on the server: {reads}"
                print("offline: a page typed on a book's page without a network reached the server when it came back", flush=True)

                # Signing out deletes the phone's copy.
                page_b.goto(f"{BASE}/libraries/{lib}/more")
                with page_b.expect_navigation():
                    page_b.click("form[action='/logout'] button")
                left = page_b.evaluate("async () => (await indexedDB.databases()).map((d) => d.name).filter((n) => n.startsWith('shelfmark-sync-') || n.startsWith('shelfmark-reading-'))")
                kept = page_b.evaluate("async () => (await caches.keys()).includes('shelfmark-pages')")
                assert left == [] and not kept, f"signed out, the phone still keeps {left} and pages: {kept}"
                print("offline: signing out deleted the phone's copy", flush=True)
                assert not errors, errors
            except Exception:
                failures.append(traceback.format_exc())
            finally:
                browser.close()
    finally:
        server.terminate()
        server.wait(timeout=30)
        shutil.rmtree(data, ignore_errors=True)
        shutil.rmtree(home, ignore_errors=True)
    if failures:
        print("\n".join(failures), file=sys.stderr)
        sys.exit("offline: FAILED")
    print("offline: all checks passed")


if __name__ == "__main__":
    main()
