"""End-to-end flows in a real browser (Debian's Chromium via Playwright) at a phone viewport.
Run by `make test-e2e` (and `make test`) against a server it starts on a fresh SQLite data
directory, with the metadata providers pointed at the replay server. Screenshots go to
.tmp/e2e/ (phone-sized PNGs).

First-run setup makes the library and its owner; every other flow is independent: it signs in in a
browser context of its own, makes the books and members it needs through the API, and runs even
when another flow failed (each failure is reported with a screenshot, and the run fails at the end).
`E2E_ONLY=lend,search` runs some of them."""
import json, os, re, shutil, subprocess, sys, tempfile, time, traceback, urllib.parse, urllib.request
from playwright.sync_api import sync_playwright, expect

PORT = int(os.environ.get("E2E_PORT", "18480"))
REPLAY_PORT = PORT + 1
BASE = f"http://127.0.0.1:{PORT}"
BIN = os.environ.get("E2E_BIN") or subprocess.run(["swift", "build", "--show-bin-path"], text=True, capture_output=True).stdout.strip()
OUT = os.environ.get("E2E_OUT", ".tmp/e2e")
os.makedirs(OUT, exist_ok=True)


def shot(page, name, full_page=False):
    # After a click that submits a form the next page may still be loading: a screenshot taken in the
    # middle of the navigation fails ("Unable to capture screenshot"), so wait for it, and try again once.
    page.wait_for_load_state("load")
    try:
        page.screenshot(path=f"{OUT}/{name}.png", full_page=full_page)
    except Exception:
        page.wait_for_timeout(500)
        page.wait_for_load_state("load")
        page.screenshot(path=f"{OUT}/{name}.png", full_page=full_page)


def wait_until(page, script, timeout=15):
    """Polls a JavaScript condition with page.evaluate: the pages' CSP refuses wait_for_function's eval
    when the condition is not already true at the first look."""
    deadline = time.monotonic() + timeout
    while not page.evaluate(f"() => !!({script})"):
        assert time.monotonic() < deadline, f"not true after {timeout} s: {script}"
        page.wait_for_timeout(100)


def labelled(page):
    """Every visible form control has a label (for=id, aria-label, or wrapping label)."""
    missing = page.evaluate("""() => [...document.querySelectorAll('input:not([type=hidden]), select, textarea')]
        .filter(el => !(el.labels && el.labels.length) && !el.getAttribute('aria-label'))
        .map(el => el.name || el.id)""")
    assert not missing, f"controls without a label on {page.url}: {missing}"


def start_servers(data, clock_offset_days=0):
    replay = subprocess.Popen([f"{BIN}/shelfmark-replay", "--port", str(REPLAY_PORT)], stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    env = dict(os.environ, SHELFMARK_DATA_DIR=data, SHELFMARK_PROVIDERS_URL=f"http://127.0.0.1:{REPLAY_PORT}", LOG_LEVEL="warning",
               SHELFMARK_CLOCK_OFFSET_DAYS=str(clock_offset_days))
    env.pop("DATABASE_URL", None)
    # Started from its data folder, not the source tree, as an installed server would be: it finds its
    # stylesheet and script by its own location (the contrast check in `overview` needs the stylesheet).
    server = subprocess.Popen([f"{BIN}/shelfmark", "serve", "--hostname", "127.0.0.1", "--port", str(PORT)], env=env, cwd=data,
                              stdout=open(f"{OUT}/server.log", "w"), stderr=subprocess.STDOUT)
    for _ in range(150):
        try:
            urllib.request.urlopen(BASE + "/api/v1/health", timeout=2)
            return replay, server
        except Exception:
            time.sleep(0.2)
    raise SystemExit("the server did not start; see " + OUT + "/server.log")


class Servers:
    """The app and the replay server; `restart(days)` runs the app that many days in the future."""
    def __init__(self, data):
        self.data = data
        self.replay, self.server = start_servers(data)

    def restart(self, clock_offset_days):
        self.stop()
        self.replay, self.server = start_servers(self.data, clock_offset_days)

    def stop(self):
        self.server.terminate(); self.replay.terminate()
        self.server.wait(timeout=30); self.replay.wait(timeout=30)


def main():
    data = tempfile.mkdtemp(prefix="shelfmark-e2e-")
    servers = Servers(data)
    try:
        failures = run(servers)
    finally:
        servers.stop()
        shutil.rmtree(data, ignore_errors=True)
    if failures:
        print("\n".join(failures), file=sys.stderr)
        sys.exit(f"e2e: {len(failures)} flow(s) failed")
    print("e2e: all flows passed")


def api(method, path, body=None, token=None):
    request = urllib.request.Request(BASE + "/api/v1" + path, method=method, data=json.dumps(body).encode() if body is not None else None,
                                     headers={"content-type": "application/json", **({"authorization": f"Bearer {token}"} if token else {})})
    with urllib.request.urlopen(request, timeout=30) as response:
        return json.loads(response.read() or b"{}")


class Library:
    """The library made at setup and its owner's API session (for the data a flow needs)."""
    def __init__(self, lib):
        self.id = lib
        self.token = api("POST", "/auth/login", {"username": "teacher", "password": "a long password"})["token"]

    def url(self, path):
        return f"{BASE}/libraries/{self.id}{path}"

    def title(self, title, authors=(), copies=1, **extra):
        return api("POST", f"/libraries/{self.id}/titles", {"title": title, "authors": list(authors), "copies": copies, **extra}, self.token)

    def member(self, card, first, last=""):
        return api("POST", f"/libraries/{self.id}/members", {"cardId": card, "firstName": first, "lastName": last}, self.token)


def signed_in_page(browser, library, errors):
    """A new browser context signed in as the owner (a session of its own)."""
    context = browser.new_context(viewport={"width": 390, "height": 844}, locale="en-GB")
    token = api("POST", "/auth/login", {"username": "teacher", "password": "a long password"})["token"]
    context.add_cookies([{"name": "shelfmark_session", "value": token, "url": BASE}])
    page = context.new_page()
    page.on("console", lambda m: errors.append(f"console {m.type}: {m.text}") if m.type == "error" else None)
    page.on("pageerror", lambda e: errors.append(f"page error: {e}"))
    page.goto(library.url("/catalog"))
    return page


def flow_setup(page):
    """First-run setup; answers the library's id."""
    page.goto(BASE + "/")
    expect(page).to_have_url(re.compile(r"/setup$"))
    labelled(page)
    page.get_by_label("Library name").fill("Room 12")
    page.get_by_label("Your name").fill("Ms Byrne")
    page.get_by_label("Username").fill("teacher")
    page.get_by_label("Password", exact=True).fill("a long password")
    shot(page, "01-setup")
    page.get_by_role("button", name="Create library").click()
    expect(page.get_by_role("heading", name="No books yet")).to_be_visible()
    shot(page, "02-empty-catalog")
    return re.search(r"/libraries/([^/]+)/", page.url).group(1)


def flow_add_by_isbn(page, library, servers):
    # Add a book by ISBN: lookup, confirmation, add; then edit it: a category and a rating
    page.get_by_role("link", name="Add").first.click()
    labelled(page)
    page.get_by_label("ISBN", exact=True).fill("978-0-306-40615-7")
    page.get_by_role("button", name="Look up").first.click()
    expect(page.get_by_label("Title", exact=True)).to_have_value("Signals and Shelves")
    shot(page, "03-confirm-isbn")
    page.get_by_role("button", name="Add to catalog").click()
    expect(page.get_by_role("heading", name="Signals and Shelves")).to_be_visible()
    shot(page, "04-book")
    page.get_by_role("link", name="Edit").click()
    labelled(page)
    page.get_by_label("Categories").fill("Non-fiction")
    page.locator("label[for='f-rating-8']").click()   # the fourth star of the star control
    expect(page.locator("#f-rating-8")).to_be_checked()
    page.get_by_role("button", name="Save").click()
    expect(page.get_by_text("Changes saved.")).to_be_visible()
    expect(page.locator(".rating")).to_have_text("★★★★☆")


def flow_add_by_hand(page, library, servers):
    # A title that must show as text
    page.goto(library.url("/add?manual=1"))
    labelled(page)
    page.get_by_label("Title", exact=True).fill("<script>alert(1)</script>")
    page.get_by_label("Authors").fill("Anon")
    page.get_by_role("button", name="Add to catalog").click()
    expect(page.get_by_role("heading", name="<script>alert(1)</script>")).to_be_visible()


def flow_member(page, library, servers):
    page.get_by_role("link", name="Members").first.click()
    page.locator("summary", has_text="Add member").click()
    labelled(page)
    page.get_by_label("Card ID").fill("S12345")
    page.get_by_label("First name").fill("Ada")
    page.get_by_label("Last name").fill("Lovelace")
    page.get_by_role("button", name="Add member").click()
    expect(page.locator(".member-row", has_text="Ada Lovelace")).to_be_visible()
    shot(page, "05-members")


def flow_lend_and_return_overdue(page, library, servers):
    # Lend from the book's page; twenty days later the 14-day loan is 6 days overdue; return it
    book = library.title("The Lending Tree", ["Una Ní Bhriain"])
    library.member("L777", "Grace", "Hopper")
    page.goto(library.url(f"/titles/{book['id']}"))
    page.get_by_role("link", name="Lend").first.click()
    labelled(page)
    page.get_by_label("Member").fill("L777")
    page.get_by_role("button", name="Lend").click()
    shot(page, "06-checkout-confirm")
    page.get_by_role("button", name="Lend").click()
    expect(page.get_by_text(re.compile("is lent to Grace Hopper"))).to_be_visible()
    servers.restart(clock_offset_days=20)
    try:
        page.goto(library.url("/loans"))
        expect(page.locator("li.overdue", has_text="The Lending Tree")).to_be_visible()
        page.goto(library.url("/return"))
        labelled(page)
        page.get_by_label("Copy barcode").fill(book["copies"][0]["barcode"])
        page.get_by_role("button", name="Return").first.click()
        expect(page.get_by_role("alert")).to_contain_text("6 days overdue")
        shot(page, "07-return-confirm")
        page.get_by_role("button", name="Return").first.click()
        expect(page.get_by_text(re.compile("is back"))).to_be_visible()
    finally:
        servers.restart(clock_offset_days=0)


def flow_holds(page, library, servers):
    # A lent book is reserved from its page for Mia; when it comes back the return says to put it aside
    # for her; lending it to someone else asks first ("Lend anyway"); the Reservations page shows it.
    book = library.title("Die Wolke", ["Gudrun Pausewang"])
    library.member("H100", "Seán", "Ó Briain")
    library.member("H200", "Mia", "Wang")
    library.member("H300", "Ben", "Kaya")
    api("POST", f"/libraries/{library.id}/checkouts", {"cardId": "H100", "titleId": book["id"]}, library.token)
    page.goto(library.url(f"/titles/{book['id']}"))
    labelled(page)
    page.locator("#f-hold-card").fill("H200")
    page.get_by_role("button", name="Reserve for a member").click()
    expect(page.get_by_role("status")).to_contain_text("Mia Wang is waiting for this book: number 1 in line")
    expect(page.locator("#holds ol.holds li")).to_have_count(1)
    shot(page, "22-title-holds")
    page.goto(library.url("/return"))
    page.get_by_label("Copy barcode").fill(book["copies"][0]["barcode"])
    page.get_by_role("button", name="Return").first.click()
    page.get_by_role("button", name="Return").first.click()
    expect(page.get_by_role("status")).to_contain_text("Put it aside for Mia Wang (H200)")
    shot(page, "23-return-put-aside")
    page.goto(library.url(f"/checkout?title={book['id']}"))
    page.get_by_label("Member").fill("H300")
    page.get_by_role("button", name="Lend").click()
    expect(page.get_by_role("alert")).to_contain_text("put aside for Mia Wang (H200)")
    expect(page.get_by_role("button", name="Lend anyway")).to_be_visible()
    shot(page, "24-lend-held-copy")
    page.goto(library.url("/holds"))
    expect(page.locator("ol.holds li.ready", has_text="Die Wolke")).to_be_visible()
    shot(page, "25-reservations")

    # Seán's due dates in a calendar: the link made on his page is shown once with its QR code; the feed
    # parses as iCalendar (the `icalendar` package) with his loan on its due day, and a renewal moves it.
    seans = api("GET", f"/libraries/{library.id}/members?q=H100", token=library.token)[0]
    lent = api("POST", f"/libraries/{library.id}/checkouts", {"cardId": "H100", "titleId": library.title("Krabat", ["Otfried Preußler"])["id"]},
               library.token)
    page.goto(library.url(f"/members/{seans['id']}"))
    page.get_by_role("button", name="Make a calendar link").click()
    link = page.locator("#f-calendar-link").input_value()
    expect(page.locator("img.calendar-qr")).to_be_visible()
    shot(page, "26-calendar-link")
    import icalendar
    def events():
        with urllib.request.urlopen(link, timeout=10) as response:
            assert response.headers["content-type"].startswith("text/calendar")
            feed = icalendar.Calendar.from_ical(response.read())
        return {str(e["UID"]): e for e in feed.walk("VEVENT")}
    before = events()[f"loan-{lent['id'].lower()}@shelfmark"]
    assert str(before["SUMMARY"]) == "Due back: Krabat" and int(before["SEQUENCE"]) == 0, before
    api("POST", f"/libraries/{library.id}/loans/{lent['id']}/renew", token=library.token)
    after = events()[f"loan-{lent['id'].lower()}@shelfmark"]
    assert int(after["SEQUENCE"]) == 1 and after["DTSTART"].dt > before["DTSTART"].dt, (before, after)
    page.reload()
    expect(page.locator("#f-calendar-link")).to_have_count(0)  # shown once


def flow_wishlist(page, library, servers):
    # Find at the providers, add, then acquire with two copies
    page.get_by_role("link", name="More").click()
    page.get_by_role("link", name="Wishlist").click()
    labelled(page)
    page.get_by_label("Find a book").fill("children of time")
    page.get_by_role("button", name="Find a book").click()
    page.get_by_role("button", name="Add to wishlist: Children of Time").click()
    expect(page.get_by_text("“Children of Time” is on the wishlist.")).to_be_visible()
    shot(page, "08-wishlist")
    page.locator(".wish", has_text="Children of Time").get_by_label("Number of copies").fill("2")
    page.locator(".wish", has_text="Children of Time").get_by_role("button", name="Acquired").click()
    expect(page.get_by_text("“Children of Time” is now in the catalog.")).to_be_visible()
    expect(page.get_by_text("2 copies available").first).to_be_visible()


def flow_overview(page, library, servers):
    library.title("Counted Book")
    total = api("GET", f"/libraries/{library.id}/titles", token=library.token)["total"]
    page.goto(library.url("/dashboard"))
    expect(page.locator(".stat", has_text="Books")).to_contain_text(str(total))
    page.goto(library.url("/activity"))
    labelled(page)
    shot(page, "09-activity")
    # The stylesheet arrived (the server runs outside the source tree and finds it by its own location).
    assert page.evaluate("[...document.styleSheets].some(s => (s.href || '').includes('/css/app.css') && s.cssRules.length > 50)")
    # Text and icons on colour keep 4.5:1 (WCAG AA) in light and dark.
    for scheme in ["light", "dark"]:
        page.emulate_media(color_scheme=scheme)
        for path in ["/activity", "/catalog", "/reading/stats"]:
            page.goto(library.url(path))
            low = page.evaluate(CONTRAST_CHECK)
            assert not low, f"{path} ({scheme}): {low}"
    page.emulate_media(color_scheme="light")


# Every coloured pill, icon and primary button: contrast of its text with its own background.
CONTRAST_CHECK = """() => {
  const rgb = (s) => (s.match(/[\\d.]+/g) || []).slice(0, 3).map(Number);
  const lum = ([r, g, b]) => [r, g, b].map((c) => { c /= 255; return c <= 0.03928 ? c / 12.92 : ((c + 0.055) / 1.055) ** 2.4; })
    .reduce((sum, c, i) => sum + c * [0.2126, 0.7152, 0.0722][i], 0);
  const low = [];
  for (const el of document.querySelectorAll(".act-icon, .badge, .chip.current, .button.primary, .flash")) {
    const style = getComputedStyle(el);
    if (style.backgroundColor === "rgba(0, 0, 0, 0)") continue;
    const a = lum(rgb(style.color)), b = lum(rgb(style.backgroundColor));
    const ratio = (Math.max(a, b) + 0.05) / (Math.min(a, b) + 0.05);
    if (ratio < 4.5) low.push(`${el.className} "${el.textContent.trim().slice(0, 20)}" ${ratio.toFixed(2)}`);
  }
  return low;
}"""


def flow_import_backup_restore(page, library, servers):
    # Import a small CSV from the Import & Export page: the job's page shows the report, which names
    # the bad line; then back up, restore the file as a new library, and delete that copy's data
    page.goto(library.url("/more"))
    page.get_by_role("link", name="Import & export").click()
    labelled(page)
    csv = "isbn,title,author,category,genre\n,The Little Prince,Antoine de Saint-Exupéry,Classics,\n978-0-306-40615-8,Bad,X,,\n"
    # Once sent, the button says the import is running and cannot send the file twice (the
    # navigation is held back here so that the busy state can be seen).
    page.get_by_label("File to import").set_input_files(files=[{"name": "books.csv", "mimeType": "text/csv", "buffer": csv.encode()}])
    page.evaluate("document.querySelector('button[data-busy]').form.addEventListener('submit', e => e.preventDefault())")
    page.get_by_role("button", name="Import", exact=True).click()
    busy = page.get_by_role("button", name=re.compile("^Importing"))
    expect(busy).to_be_disabled()
    expect(busy).to_have_attribute("aria-busy", "true")
    shot(page, "10a-importing")
    page.reload()
    page.get_by_label("File to import").set_input_files(files=[{"name": "books.csv", "mimeType": "text/csv", "buffer": csv.encode()}])
    page.get_by_role("button", name="Import", exact=True).click()
    expect(page.get_by_text("Import finished")).to_be_visible()
    expect(page.get_by_text(re.compile("Line 3: .*check digit"))).to_be_visible()
    shot(page, "10-import")
    assert "/exchange/jobs/" in page.url, page.url
    page.get_by_role("link", name="Import another file").click()
    with page.expect_download() as download:
        page.get_by_role("link", name="Download a backup").click()
    backup_path = os.path.join(OUT, "backup.json")
    download.value.save_as(backup_path)
    assert download.value.suggested_filename.startswith("shelfmark-backup-room-12-"), download.value.suggested_filename
    page.get_by_label("Backup file").set_input_files(backup_path)
    page.get_by_label("Restore as a new library named").fill("Room 12 copy")
    page.get_by_role("button", name="Restore").click()
    expect(page.get_by_text("Restored “Room 12 copy”.")).to_be_visible()
    expect(page.locator("#results")).to_contain_text("The Little Prince")
    copy_url = page.url
    page.goto(copy_url.replace("/catalog", "/exchange"))
    page.get_by_label(re.compile("Yes, delete every book")).check()
    page.get_by_role("button", name="Delete all data").click()
    expect(page.get_by_text("All of the library's data was deleted.")).to_be_visible()
    shot(page, "10b-erased")


def flow_category_filter(page, library, servers):
    library.title("Tidepools", ["Mara Quinn"], categories=["Seashore"])
    page.goto(library.url("/catalog"))
    page.get_by_role("link", name="Seashore (1)").click()
    expect(page.locator("#results")).to_contain_text("1 book")


def flow_search(page, library, servers):
    library.title("Quiet Harbour Lights", ["Orla Keane"])
    page.goto(library.url("/catalog"))
    page.get_by_label("Search").fill("quiet harb")
    expect(page.locator("#results").get_by_text("Quiet Harbour Lights")).to_be_visible()
    shot(page, "11-search")


def flow_languages(page, library, servers):
    # The language menu: German, Irish and Chinese, each page's tab bar in that language
    for code, catalog, name in [("de", "Katalog", "12-german"), ("ga", "Catalóg", "12b-irish"), ("zh-Hans", "书目", "12c-chinese")]:
        page.get_by_label(re.compile("Language|Sprache|Teanga|语言")).select_option(code)
        expect(page.get_by_role("link", name=catalog).first).to_be_visible()
        expect(page.locator("html")).to_have_attribute("lang", code)
        shot(page, name)
    page.get_by_label(re.compile("Language|Sprache|Teanga|语言")).select_option("en")


def tiny_png():
    """A 64×48 grey PNG, written by hand (no imaging library in the test venv)."""
    import struct, zlib
    width, height = 64, 48
    raw = b"".join(b"\x00" + bytes([200]) * width for _ in range(height))
    def chunk(kind, data):
        return struct.pack(">I", len(data)) + kind + data + struct.pack(">I", zlib.crc32(kind + data) & 0xFFFFFFFF)
    return (b"\x89PNG\r\n\x1a\n" + chunk(b"IHDR", struct.pack(">IIBBBBB", width, height, 8, 0, 0, 0, 0))
            + chunk(b"IDAT", zlib.compress(raw)) + chunk(b"IEND", b""))


def raw_post(path, data, content_type, token):
    request = urllib.request.Request(BASE + "/api/v1" + path, method="POST", data=data,
                                     headers={"content-type": content_type, "authorization": f"Bearer {token}"})
    with urllib.request.urlopen(request, timeout=30) as response:
        return json.loads(response.read() or b"{}")


def every_page(samples):
    """Every page of the web app, from the server's own list (`shelfmark pages`, generated from
    `WebRoute.all`), filled in with `samples`: a new page is walked by adding its route case."""
    lines = subprocess.run([f"{BIN}/shelfmark", "pages"], text=True, capture_output=True, check=True).stdout.splitlines()
    routes = [json.loads(line) for line in lines if line.strip()]
    assert len(routes) > 50, f"shelfmark pages listed only {len(routes)} routes"
    paths = []
    for route in routes:
        if not route["page"]:
            continue
        names = re.findall(r"\{([A-Za-z]+)\}", route["path"])
        missing = [n for n in names if n not in samples]
        assert not missing, f"the walk has no sample for {missing} (route {route['name']}): add one to flow_every_page"
        paths.append(re.sub(r"\{([A-Za-z]+)\}", lambda m: samples[m.group(1)], route["path"]))
    return paths


AXE_BLOCKING = {"serious", "critical"}
# WCAG 2.1 AA, with full detail (every node's selector) only for the violations: axe-core builds a
# unique selector for every node of every result it details, most of its time on a page, and the walk
# reads only the violations' nodes (the passes are still listed, so a run that checked nothing shows).
AXE_OPTIONS = {"runOnly": {"type": "tag", "values": ["wcag2a", "wcag2aa", "wcag21a", "wcag21aa"]}, "resultTypes": ["violations"]}


def axe_check(page):
    """axe-core's results on the page (its JSON), axe-core being there already (the walk's tab has it as an init script)."""
    return page.evaluate("options => axe.run(document, options)", AXE_OPTIONS)


def flow_every_page(page, library, servers):
    # Every page of the app, in the four languages at 360 px: no sideways scrolling (
    # long words, a German compound, an unbroken title, a long e-mail, never widen a page), names in lists
    # keep room, tab labels break between words, and axe-core finds no serious or critical violation
    # of WCAG 2.1 AA.
    from axe_playwright_python.sync_playwright import Axe
    axe = Axe()
    long_word = "Donaudampfschifffahrtsgesellschaftskapitänsmützenabzeichenherstellungsbetrieb"
    book = library.title(long_word + " und die Rechtsschutzversicherungsgesellschaften", [long_word + " von Unterschleißheim"], copies=2,
                         publisher=long_word, notes=long_word * 3, categories=[long_word])
    member = library.member("LONGWORD1", long_word, long_word)
    # The public catalog's pages are walked as well: the library publishes its catalog.
    api("PATCH", f"/libraries/{library.id}", {"publicCatalog": True}, library.token)
    loan = api("POST", f"/libraries/{library.id}/checkouts", {"cardId": "LONGWORD1", "titleId": book["id"]}, library.token)
    detail = api("GET", f"/libraries/{library.id}/titles/{book['id']}", token=library.token)
    category = api("GET", f"/libraries/{library.id}/categories", token=library.token)
    photo = raw_post(f"/libraries/{library.id}/titles/{book['id']}/photos?page=12", tiny_png(), "image/png", library.token)
    job = raw_post(f"/libraries/{library.id}/import", ("Title,Author\n" + long_word + ",Ende\n,\n").encode(), "text/csv", library.token)
    me = api("GET", "/me", token=library.token)
    # A mail server nobody answers at, and a test message through it: the delivery log and the reminders
    # page then show a failure (its problem said in the page's language, the network's words beside it).
    api("PUT", f"/libraries/{library.id}/mail/server", {"host": "127.0.0.1", "port": 9, "security": "tls",
        "senderAddress": "library@school.example", "senderName": long_word}, library.token)
    failed = api("POST", f"/libraries/{library.id}/mail/test", {"to": "teacher@school.example"}, library.token)
    assert failed.get("status") == "failed" and failed.get("problem") == "connect", failed
    # A shared year's link, made on the statistics page (shown once).
    page.goto(library.url("/reading/stats"))
    page.locator("form[action$='/reading/share'] button").first.click()
    page.wait_for_load_state("load")
    link = re.search(r"/shared/year/[A-Za-z0-9_-]{43}", page.content())
    assert link, "the shared year's link is shown after it is made"
    categories = category if isinstance(category, list) else category.get("items", [])
    # A shelf named by the long word (its room too), with a stocktake under way that found an unknown code.
    shelf = api("POST", f"/libraries/{library.id}/shelves", {"name": long_word, "room": long_word}, library.token)
    stocktake = api("POST", f"/libraries/{library.id}/shelves/{shelf['id']}/stocktakes", {}, library.token)
    api("POST", f"/libraries/{library.id}/stocktakes/{stocktake['id']}/scans", {"code": long_word[:40]}, library.token)
    # A roster read and not applied: its preview is a page (a pupil with the long word for a name).
    run = raw_post(f"/libraries/{library.id}/roster/preview?mode=delta", f"Student number,First name,Class\nLW-1,{long_word},{long_word[:40]}\n".encode(),
                   "text/csv", library.token)
    samples = {
        "libraryID": library.id, "titleID": book["id"], "memberID": member["id"], "copyID": detail["copies"][0]["id"], "runID": run["id"],
        "categoryID": categories[0]["id"], "loanID": loan["id"], "photoID": photo["id"], "jobID": job["id"],
        "userID": (me.get("user") or me)["id"], "token": link.group(0).rsplit("/", 1)[1],
        "shelfID": shelf["id"], "stocktakeID": stocktake["id"], "kind": "circulation",
    }
    paths = every_page(samples) + [f"/libraries/{library.id}/reading?show=finished"]
    # The walk's own tab, into which the browser puts axe-core as each page loads: sent from here
    # before every check (560 kB each time) it took a tenth of the walk.
    home, page = page, page.context.new_page()
    page.add_init_script(script=axe.axe_script)
    page.set_viewport_size({"width": 360, "height": 780})
    problems, checked, minor = [], 0, {}
    for code in ["en", "de", "ga", "zh-Hans"]:
        page.context.add_cookies([{"name": "shelfmark_lang", "value": code, "url": BASE}])
        for path in paths:
            response = page.goto(BASE + path)
            assert response.status < 400, f"{path} in {code} answered {response.status}"
            name = f"{code}-{path.strip('/').replace('/', '-')[:80]}"
            if code == "de" and path.endswith("/background"):
                shot(page, "14-background-work-de-360")
            if code == "de" and path.endswith("/reminders"):
                shot(page, "27-reminders-de-360")
            if code == "zh-Hans" and path.endswith("/reminders/sent"):
                shot(page, "28-sent-messages-zh-360")
            width = page.evaluate("() => document.documentElement.scrollWidth")
            if width > 360:
                shot(page, f"overflow-{name}")
                problems.append(f"{path} in {code} is {width} px wide at 360 px")
            # Names in lists keep room to be read (German's longer loan badge squeezed them to a letter a line).
            narrow = page.evaluate("() => [...document.querySelectorAll('.member-row .name, .title-row .name')].filter(e => e.getBoundingClientRect().width < 100).length")
            if narrow:
                problems.append(f"{path} in {code}: {narrow} names squeezed under 100 px")
            results = axe_check(page)
            assert results.get("passes"), f"axe-core did not run on {path}"
            checked += 1
            for violation in results.get("violations", []):
                minor[violation.get("impact")] = minor.get(violation.get("impact"), 0) + 1
                if violation.get("impact") in AXE_BLOCKING:
                    targets = [", ".join(n.get("target", [])) for n in violation.get("nodes", [])][:3]
                    problems.append(f"axe {violation['impact']} on {path} in {code}: {violation['id']} ({violation['help']}) at {targets}")
        # The tab bar's labels break between words only ("Hinzufügen" was split mid-word).
        split = page.evaluate("""() => [...document.querySelectorAll('nav.tabs .tab > span:last-child')].filter(s => {
            const lines = Math.round(s.getBoundingClientRect().height / parseFloat(getComputedStyle(s).lineHeight));
            return lines > s.textContent.trim().split(/\\s+/).length || s.scrollWidth > s.clientWidth + 1;
          }).map(s => s.textContent)""")
        if split:
            problems.append(f"tab labels broken mid-word in {code}: {split}")
    # The same pages on a tablet (768×1024) and at the desk (1280×800), in English: nothing
    # wider than the screen, and axe-core finds no serious or critical violation there either.
    page.context.add_cookies([{"name": "shelfmark_lang", "value": "en", "url": BASE}])
    for width, height in [(768, 1024), (1280, 800)]:
        page.set_viewport_size({"width": width, "height": height})
        for path in paths:
            response = page.goto(BASE + path)
            assert response.status < 400, f"{path} at {width} px answered {response.status}"
            scroll = page.evaluate("() => document.documentElement.scrollWidth")
            if scroll > width:
                shot(page, f"overflow-{width}-{path.strip('/').replace('/', '-')[:80]}")
                problems.append(f"{path} is {scroll} px wide at {width} px")
            results = axe_check(page)
            checked += 1
            for violation in results.get("violations", []):
                if violation.get("impact") in AXE_BLOCKING:
                    targets = [", ".join(n.get("target", [])) for n in violation.get("nodes", [])][:3]
                    problems.append(f"axe {violation['impact']} on {path} at {width} px: {violation['id']} ({violation['help']}) at {targets}")
        if width == 1280:
            # At the desk the navigation stands at the side of the page, not at its foot.
            page.goto(library.url("/catalog"))
            nav = page.evaluate("() => { const n = document.querySelector('nav.tabs').getBoundingClientRect(), m = document.querySelector('main').getBoundingClientRect(); return [n.right <= m.left + 1, n.height > 300]; }")
            if nav != [True, True]:
                problems.append(f"at 1280 px the navigation is not at the side: {nav}")
            shot(page, "29-desk-catalog-1280")
    page.set_viewport_size({"width": 360, "height": 780})
    print(f"e2e: every_page walked {len(paths)} pages × 4 languages at 360 px and in English at 768 and 1280 px; axe-core checked {checked}, violations by impact: {minor or 'none'}", flush=True)
    assert not problems, "\n".join(problems)
    # The checker itself finds what it is there to find: an image without a text is critical.
    page.set_content("<!DOCTYPE html><html lang='en'><head><title>t</title></head><body><main><img src='/icon.svg'></main></body></html>")
    found = [v["id"] for v in axe_check(page).get("violations", []) if v.get("impact") in AXE_BLOCKING]
    assert "image-alt" in found, f"axe-core missed an image without alt: {found}"
    page.goto(library.url(f"/titles/{book['id']}"))
    shot(page, "13-long-words-360")
    page.close()
    home.context.add_cookies([{"name": "shelfmark_lang", "value": "en", "url": BASE}])


def flow_return_and_renew_from_member(page, library, servers):
    # Each loan on the member page has its own Return and Renew.
    book = library.title("The Lighthouse Keeper's Lunch", ["Rhonda Armitage"], copies=2)
    member = library.member("RR1", "Nora", "Quinn")
    for _ in range(2):
        api("POST", f"/libraries/{library.id}/checkouts", {"cardId": "RR1", "titleId": book["id"]}, library.token)
    page.goto(library.url(f"/members/{member['id']}"))
    page.get_by_role("button", name="Renew: The Lighthouse Keeper's Lunch").first.click()
    expect(page.get_by_role("status")).to_contain_text("is renewed")
    page.get_by_role("button", name="Return: The Lighthouse Keeper's Lunch").first.click()
    # The same confirmation as the Return page: who has it and the dates, then the return.
    expect(page.locator("section.confirm")).to_contain_text("Nora Quinn (RR1)")
    shot(page, "14-member-return-confirm")
    page.get_by_role("button", name="Return").first.click()
    expect(page.get_by_role("status")).to_contain_text("is back")
    assert f"/members/{member['id']}" in page.url, page.url
    shot(page, "14-member-return-renew")


def flow_public_catalog(page, library, servers):
    # A member finds a book in the library's public catalog on their phone, signs in with card
    # and PIN, places a hold and renews a loan; the server has both.
    api("PATCH", f"/libraries/{library.id}", {"publicCatalog": True}, library.token)
    wanted = library.title("The Gruffalo's Child", ["Julia Donaldson"], copies=1)
    mine = library.title("Room on the Broom", ["Julia Donaldson"], copies=1)
    aoife = library.member("PC1", "Aoife", "Nic Giolla")
    library.member("PC2", "Cian", "Mac Aodha")
    api("POST", f"/libraries/{library.id}/checkouts", {"cardId": "PC2", "titleId": wanted["id"]}, library.token)
    loan = api("POST", f"/libraries/{library.id}/checkouts", {"cardId": "PC1", "titleId": mine["id"]}, library.token)
    request = urllib.request.Request(f"{BASE}/api/v1/libraries/{library.id}/members/{aoife['id']}/pin", method="PUT",
                                     data=json.dumps({"pin": "4711"}).encode(),
                                     headers={"content-type": "application/json", "authorization": f"Bearer {library.token}"})
    assert urllib.request.urlopen(request, timeout=30).status == 204
    context = page.context.browser.new_context(viewport={"width": 390, "height": 844}, locale="en-GB")
    phone = context.new_page()
    try:
        phone.goto(f"{BASE}/public/libraries/{library.id}")
        expect(phone.get_by_role("heading", level=1)).to_contain_text("catalog")
        phone.get_by_placeholder("Title, author or ISBN").fill("gruffalo")
        phone.keyboard.press("Enter")
        phone.get_by_role("link", name="The Gruffalo's Child").click()
        expect(phone.locator("main")).to_contain_text("due back")
        assert "Cian" not in phone.content() and "PC2" not in phone.content()
        phone.get_by_role("button", name="Sign in to place a hold").click()
        phone.locator("#f-cardId").fill("PC1")
        phone.get_by_label("PIN", exact=True).fill("4711")
        phone.get_by_role("button", name="Sign in").click()
        expect(phone.get_by_role("heading", level=1)).to_have_text("The Gruffalo's Child")
        phone.get_by_role("button", name="Place a hold").click()
        expect(phone.get_by_role("status")).to_contain_text("number 1 in the queue")
        shot(phone, "30-public-book-hold-390")
        phone.get_by_role("banner").get_by_role("link", name="My books").click()
        phone.get_by_role("button", name="Renew: Room on the Broom").click()
        expect(phone.get_by_role("status")).to_contain_text("is renewed")
        expect(phone.locator("#holds")).to_contain_text("Number 1 in the queue")
        # Every button of the member's page is a thumb's target.
        small = phone.evaluate("() => [...document.querySelectorAll('main button, main a.button')].filter(b => b.getBoundingClientRect().height < 44).map(b => b.textContent)")
        assert not small, f"targets under 44 px: {small}"
        shot(phone, "31-public-account-390")
    finally:
        context.close()
    holds = api("GET", f"/libraries/{library.id}/holds", token=library.token)
    assert any(h["cardId"] == "PC1" and h["titleId"] == wanted["id"] for h in holds), holds
    loans = api("GET", f"/libraries/{library.id}/loans", token=library.token)
    assert any(l["id"] == loan["id"] and l["renewals"] == 1 for l in loans), loans


def flow_kiosk(page, library, servers):
    # A tablet by the door in kiosk mode; a member scans their card and a book with a wedge
    # scanner (the code, then Enter), borrows it, sees the due date in Irish, returns it; a librarian ends it.
    book = library.title("Ar an Traein", ["Éilís Ní Dhuibhne"], copies=1)
    api("POST", f"/libraries/{library.id}/members", {"cardId": "K100", "firstName": "Siobhán", "lastName": "Ní Bhriain", "language": "ga"},
        library.token)
    barcode = api("GET", f"/libraries/{library.id}/titles/{book['id']}", token=library.token)["copies"][0]["barcode"]
    context = page.context.browser.new_context(viewport={"width": 768, "height": 1024}, locale="en-GB")
    token = api("POST", "/auth/login", {"username": "teacher", "password": "a long password"})["token"]
    context.add_cookies([{"name": "shelfmark_session", "value": token, "url": BASE}])
    tablet = context.new_page()
    try:
        tablet.goto(library.url("/more"))
        tablet.get_by_role("link", name="Self-service kiosk").click()
        tablet.get_by_role("button", name="Start kiosk mode on this device").click()
        expect(tablet.get_by_role("heading", level=1)).to_contain_text("Welcome")
        expect(tablet.get_by_label("Library card")).to_be_focused(timeout=5000)
        tablet.keyboard.type("K100")
        tablet.keyboard.press("Enter")
        expect(tablet.get_by_role("heading", level=1)).to_have_text("Dia duit, Siobhán!")
        expect(tablet.get_by_label("Barrachód an leabhair")).to_be_focused(timeout=5000)
        tablet.keyboard.type(barcode)
        tablet.keyboard.press("Enter")
        expect(tablet.get_by_role("status")).to_contain_text("Is leatsa “Ar an Traein”: tabhair ar ais é faoi")
        shot(tablet, "32-kiosk-borrowed-ga-768")
        loans = api("GET", f"/libraries/{library.id}/loans", token=library.token)
        assert any(l["memberCardId"] == "K100" for l in loans), loans
        expect(tablet.get_by_label("Barrachód an leabhair")).to_be_focused(timeout=5000)
        tablet.keyboard.type(barcode)
        tablet.keyboard.press("Enter")
        expect(tablet.get_by_role("status")).to_contain_text("Tá “Ar an Traein” ar ais")
        loans = api("GET", f"/libraries/{library.id}/loans", token=library.token)
        assert not any(l["memberCardId"] == "K100" for l in loans), loans
        tablet.get_by_role("link", name="Tá mé réidh").click()
        expect(tablet.get_by_label("Library card")).to_be_focused(timeout=5000)
        # No staff page from the kiosk: its librarian was signed out on it.
        tablet.goto(library.url("/loans"))
        expect(tablet).to_have_url(re.compile(r"/login"))
        tablet.goto(f"{BASE}/kiosk/{library.id}/end")
        tablet.get_by_label("Username").fill("teacher")
        tablet.get_by_label("Password").fill("a long password")
        tablet.get_by_role("button", name="End kiosk mode").click()
        expect(tablet.get_by_role("status")).to_contain_text("Kiosk mode has ended")
    finally:
        context.close()


def flow_class_list_import(page, library, servers):
    # A class list from a spreadsheet, from the members page.
    csv = "Card ID,First Name,Last Name,Class\n" + "".join(f"K{i:03d},Kid{i},Family{i},2B\n" for i in range(30))
    path = os.path.join(OUT, "class-2b.csv")
    with open(path, "w") as f:
        f.write(csv)
    page.goto(library.url("/members"))
    page.get_by_text("Import a class list").click()
    page.get_by_label("File").set_input_files(path)
    page.get_by_role("button", name="Import", exact=True).click()
    expect(page.get_by_role("status")).to_contain_text("30 added")
    page.goto(library.url("/members?q=2b"))
    expect(page.locator("ul.members li")).to_have_count(30)
    shot(page, "15-class-list")
    # The cards of the class: three sheets previewed as the images of the PDF's pages, and the PDF.
    page.goto(library.url("/members/cards?q=2b"))
    expect(page.locator("p.count")).to_have_text("Cards: 30 · sheets: 3")
    sheets = page.locator("ol.sheets img")
    expect(sheets).to_have_count(3)
    sheets.first.scroll_into_view_if_needed()
    wait_until(page, "document.querySelector('ol.sheets img') && document.querySelector('ol.sheets img').naturalWidth > 700")
    pdf = page.request.get(urllib.parse.urljoin(page.url, page.get_by_role("link", name="Download PDF").get_attribute("href")))
    assert pdf.ok and pdf.body().startswith(b"%PDF-") and pdf.headers["x-item-count"] == "30", pdf.headers
    shot(page, "16-cards-sheets")
    # This week's labels on a partly used Avery L7160 sheet: start at label 5, preview, download.
    page.goto(library.url("/labels"))
    page.get_by_label("Start at label").fill("5")
    page.get_by_role("button", name="Show the sheets").click()
    expect(page.locator("p.count")).to_contain_text("Labels:")
    wait_until(page, "document.querySelector('ol.sheets img') && document.querySelector('ol.sheets img').naturalWidth > 700")
    href = page.get_by_role("link", name="Download PDF").get_attribute("href")
    assert "start=5" in href, href
    labels = page.request.get(urllib.parse.urljoin(page.url, href))
    assert labels.ok and labels.body().startswith(b"%PDF-"), labels.status
    shot(page, "16b-labels")


def flow_shelf_and_stocktake(page, library, servers):
    # A volunteer with a keyboard-wedge scanner (it types the code and Enter) at a shelf:
    # a book without a place put on it, then a stocktake of its twelve books that finds one from another
    # shelf (moved here) and two missing, kept with its date.
    def barcode(book):
        return api("GET", f"/libraries/{library.id}/titles/{book['id']}", token=library.token)["copies"][0]["barcode"]
    books = [library.title(f"Shelf book {n:02d}", ["Ann Author"], location="Room 7") for n in range(12)]
    stray = library.title("Stray atlas", ["Mercator"], location="Hall")
    loose = library.title("Loose leaflet", ["Nobody"])
    page.goto(library.url("/more"))
    page.get_by_role("link", name="Shelves", exact=True).click()
    page.get_by_role("link", name="Room 7", exact=True).click()
    expect(page.locator("h1")).to_have_text("Shelf Room 7")
    expect(page.locator("img.qr")).to_be_visible()
    field = page.get_by_label("Scan a book")
    field.fill(barcode(loose))
    field.press("Enter")
    expect(page.locator(".flash")).to_contain_text("“Loose leaflet”")
    expect(page.locator(".flash")).to_contain_text("is now on Room 7")
    page.get_by_role("button", name="Start a stocktake").click()
    expect(page.locator("h1")).to_have_text("Stocktake: Room 7")
    expect(page.locator("p.count")).to_have_text("Scanned on this shelf: 0 of 13")
    for book in books[:10] + [loose]:
        field = page.get_by_label("Scan a book")
        expect(field).to_be_focused()
        field.fill(barcode(book))
        field.press("Enter")
        expect(page.locator(".flash")).to_contain_text("on its shelf")
    page.get_by_label("Scan a book").fill(barcode(stray))
    page.get_by_label("Scan a book").press("Enter")
    expect(page.locator(".flash")).to_contain_text("“Stray atlas” belongs on Hall.")
    expect(page.locator("#misplaced li")).to_have_count(1)
    expect(page.locator("#not-scanned li")).to_have_count(2)
    shot(page, "17-stocktake-scanning")
    page.locator("#misplaced").get_by_role("button", name="Move here").click()
    expect(page.locator(".flash")).to_have_text("Books moved to this shelf: 1")
    page.get_by_role("button", name="Finish the stocktake").click()
    expect(page.locator("p.count")).to_have_text("Found 12 · missing 2 · elsewhere 0 · unknown 0")
    expect(page.locator("#not-scanned h2")).to_have_text("Missing (2)")
    expect(page.locator("#not-scanned")).to_contain_text("Shelf book 10")
    assert page.evaluate("document.documentElement.scrollWidth") <= 390
    shot(page, "18-stocktake-finished")
    # The shelf keeps it with its date; the signs print with the shelf's QR code.
    page.get_by_role("link", name="Shelf Room 7").click()
    expect(page.locator("#stocktake li")).to_have_count(1)
    page.get_by_role("link", name="Print this shelf's QR code").click()
    deadline = time.monotonic() + 15  # polled from here: the page's CSP refuses wait_for_function's eval
    while not page.evaluate("() => { const img = document.querySelector('ol.sheets img'); return !!img && img.naturalWidth > 700; }"):
        assert time.monotonic() < deadline, "the sign's preview did not load"
        time.sleep(0.1)
    pdf = page.request.get(urllib.parse.urljoin(page.url, page.get_by_role("link", name="Download PDF").get_attribute("href")))
    assert pdf.ok and pdf.body().startswith(b"%PDF-") and pdf.headers["x-item-count"] == "1", pdf.headers


# A speech recogniser that hears what the test put in sessionStorage (headless Chromium has none).
SPEECH_STUB = """
window.SpeechRecognition = class {
  start() {
    sessionStorage.setItem("heardLang", this.lang);
    setTimeout(() => {
      const transcript = sessionStorage.getItem("transcript") || "";
      if (this.onresult) this.onresult({ results: [[{ transcript }]] });
      if (this.onend) this.onend();
    }, 50);
  }
  stop() {}
};
"""


def flow_reading_by_keypad_and_voice(page, library, servers):
    # The page typed on the number pad, then said into the microphone, in English and German;
    # the Reading list and the year's statistics with a goal.
    book = library.title("Matilda", ["Roald Dahl"], pageCount=320)
    page.add_init_script(SPEECH_STUB)
    page.goto(library.url(f"/titles/{book['id']}"))
    card = page.locator("#reading")
    card.get_by_label("Page", exact=True).fill("40")
    card.get_by_role("button", name="Save").click()
    expect(page.get_by_role("status")).to_contain_text("Page 40 of 320 · 12 %")
    expect(page.locator("#reading progress")).to_have_attribute("value", "12")
    page.evaluate("sessionStorage.setItem('transcript', 'I am on page one hundred and fifty-seven')")
    page.get_by_role("button", name="Say the page").click()
    expect(page.get_by_role("status")).to_contain_text("Page 157 of 320 · 49 %")
    shot(page, "17-reading-card")
    # In German, the recogniser listens for German and the server reads the German number.
    page.context.add_cookies([{"name": "shelfmark_lang", "value": "de", "url": BASE}])
    page.goto(library.url(f"/titles/{book['id']}"))
    page.evaluate("sessionStorage.setItem('transcript', 'Seite zweihundertzehn')")
    page.get_by_role("button", name="Seite sagen").click()
    expect(page.get_by_role("status")).to_contain_text("Seite 210 von 320")
    assert page.evaluate("sessionStorage.getItem('heardLang')") == "de-DE"
    page.context.add_cookies([{"name": "shelfmark_lang", "value": "en", "url": BASE}])
    # The Reading list: the page field on each current book.
    page.goto(library.url("/reading"))
    expect(page.get_by_role("link", name="Matilda")).to_be_visible()
    page.locator("li.read").first.get_by_label("Page", exact=True).fill("320")
    page.locator("li.read").first.get_by_role("button", name="Save").click()
    expect(page.get_by_role("status")).to_contain_text("Finished “Matilda”")
    # The finished book takes the reader's stars on its card: four and a half.
    page.goto(library.url(f"/titles/{book['id']}"))
    page.locator("label[for='f-read-rating-9']").click()
    page.get_by_role("button", name="Save rating").click()
    expect(page.get_by_role("status")).to_contain_text("Rating saved")
    expect(page.locator("#f-read-rating-9")).to_be_checked()
    shot(page, "17-reading-card-rated")
    # Statistics: set a goal, see the ring and the monthly chart.
    page.goto(library.url("/reading/stats"))
    page.get_by_label("Books", exact=True).fill("12")
    page.get_by_role("button", name="Save goal").click()
    expect(page.get_by_role("status")).to_contain_text("Goal saved")
    expect(page.locator("svg.ring")).to_be_visible()
    expect(page.locator("svg.bars").first).to_be_visible()
    shot(page, "18-reading-stats")


GOODREADS_EXPORT = r'''Book Id,Title,Author,Author l-f,Additional Authors,ISBN,ISBN13,My Rating,Average Rating,Publisher,Binding,Number of Pages,Year Published,Original Publication Year,Date Read,Date Added,Bookshelves,Bookshelves with positions,Exclusive Shelf,My Review,Spoiler,Private Notes,Read Count,Owned Copies
1,Matilda,Roald Dahl,"Dahl, Roald",,"=""""","=""""",5,4.3,Puffin,Paperback,240,2007,1988,2025/03/02,2024/12/24,"read, favourites",,read,Loved it,,,1,1
2,Krabat,Otfried Preußler,"Preußler, Otfried",,"=""""","=""""",4,4.1,Thienemann,Hardcover,320,1971,1971,2025/07/19,2025/05/01,read,,read,,,,1,1
3,Momo,Michael Ende,"Ende, Michael",,"=""""","=""""",0,4.2,Thienemann,Hardcover,300,1973,1973,,2025/01/10,currently-reading,,currently-reading,,,,0,1
'''


def flow_goodreads_history(page, library, servers):
    # A Goodreads export with dates read, imported from the Import & export page, fills the
    # reading history and last year's statistics; the history goes out again in Goodreads' layout.
    # (No ISBNs, as Goodreads writes them for books without one: the flows share a library, and the
    # add-by-ISBN flow expects its ISBN to be new.)
    page.goto(library.url("/exchange"))
    page.get_by_label("File to import").set_input_files(
        files=[{"name": "goodreads_library_export.csv", "mimeType": "text/csv", "buffer": GOODREADS_EXPORT.encode()}])
    page.get_by_role("button", name="Import", exact=True).click()
    expect(page.get_by_text("Import finished")).to_be_visible()
    page.goto(library.url("/reading?show=finished"))
    expect(page.get_by_role("link", name="Matilda")).to_be_visible()
    expect(page.get_by_role("link", name="Krabat")).to_be_visible()
    page.goto(library.url("/reading"))
    expect(page.get_by_role("link", name="Momo")).to_be_visible()
    page.goto(library.url("/reading/stats?year=2025"))
    figures = page.locator("dl.figures")
    expect(figures).to_contain_text("560")          # 240 + 320 pages finished in 2025
    expect(page.locator("svg.bars").first).to_be_visible()
    # The books-per-month table says March 1 and July 1.
    page.locator("details", has_text="Show as a table").first.locator("summary").click()
    rows = page.locator("table.data").first.locator("tbody tr")
    assert rows.nth(2).inner_text().split()[-1] == "1" and rows.nth(6).inner_text().split()[-1] == "1", rows.all_inner_texts()
    assert rows.nth(0).inner_text().split()[-1] == "0"
    shot(page, "22-goodreads-year")
    # And out again, in Goodreads' own columns.
    page.goto(library.url("/reading"))
    with page.expect_download() as download:
        page.get_by_role("link", name=re.compile("Download your reading history")).click()
    path = os.path.join(OUT, "history.csv")
    download.value.save_as(path)
    exported = open(path, encoding="utf-8").read()
    assert exported.startswith("Book Id,Title,Author"), exported[:200]
    assert "Matilda,Roald Dahl" in exported and "2025/03/02" in exported and "2025/07/19" in exported, exported
    assert "currently-reading" in exported, exported


def flow_page_photo_to_quote(page, library, servers):
    # Photograph a page (here: a page rendered by the browser, tilted on a grey desk),
    # straighten it by dragging its corners, mark it up, make a quote from its text by OCR.
    book = library.title("Momo", ["Michael Ende"], pageCount=300)
    shot_page = page.context.new_page()
    shot_page.set_viewport_size({"width": 900, "height": 700})
    shot_page.set_content("""<body style="margin:0;background:#777">
      <div id="p" style="position:absolute;left:150px;top:120px;width:560px;height:420px;background:#fff;transform:rotate(4deg);
           font:bold 40px/1.4 sans-serif;padding:30px;box-sizing:border-box">TIME IS LIFE<br>AND LIFE LIVES<br>IN THE HEART</div></body>""")
    corners = shot_page.evaluate("""() => {
      const r = document.getElementById('p'), a = 4 * Math.PI / 180, cx = 150 + 280, cy = 120 + 210;
      return [[-280,-210],[280,-210],[280,210],[-280,210]].map(([x, y]) =>
        [(cx + x * Math.cos(a) - y * Math.sin(a)) / 900, (cy + x * Math.sin(a) + y * Math.cos(a)) / 700]);
    }""")
    photo_path = os.path.join(OUT, "page-photo.png")
    shot_page.screenshot(path=photo_path)
    shot_page.close()

    page.goto(library.url(f"/titles/{book['id']}"))
    page.get_by_label("Photograph a page").set_input_files(photo_path)
    page.locator("#photos").get_by_label("Page", exact=True).fill("42")
    page.get_by_role("button", name="Keep the photo").click()
    # The page's edges are found against the desk: kept straightened, the corners where the page's are.
    expect(page.get_by_role("status")).to_contain_text("straightened at the page's edges")
    wait_until(page, "document.getElementById('page-image') && document.getElementById('page-image').complete")
    found = page.evaluate("[document.getElementById('page-image').naturalWidth, document.getElementById('page-image').naturalHeight]")
    assert found[0] < 900 and abs(found[0] / found[1] - 560 / 420) < 0.1, found
    page.get_by_text("Straighten the page", exact=True).first.click()
    placed = [float(v) for v in page.locator("#f-corners").input_value().split(",")]
    for i, (x, y) in enumerate(corners):
        assert abs(placed[2 * i] - x) < 0.03 and abs(placed[2 * i + 1] - y) < 0.03, (i, placed, corners)
    shot(page, "19-photo-edges-found")

    # A corner that is off is dragged onto the page's corner; straightened again by hand.
    crop = page.locator("[data-crop]")
    crop.evaluate("e => e.scrollIntoView({block: 'center'})")   # all four handles on screen, clear of the tab bar
    box = crop.bounding_box()
    for i, (x, y) in enumerate(corners):
        handle = page.locator(f"[data-corner='{i}']")
        hb = handle.bounding_box()
        page.mouse.move(hb["x"] + hb["width"] / 2, hb["y"] + hb["height"] / 2)
        page.mouse.down()
        page.mouse.move(box["x"] + x * box["width"], box["y"] + y * box["height"], steps=5)
        page.mouse.up()
    shot(page, "19b-photo-corners")
    page.get_by_role("button", name="Straighten the page").click()
    expect(page.get_by_role("status")).to_contain_text("Page straightened")
    wait_until(page, "document.getElementById('page-image') && document.getElementById('page-image').complete")
    straight = page.evaluate("[document.getElementById('page-image').naturalWidth, document.getElementById('page-image').naturalHeight]")
    assert straight[0] < 900 and abs(straight[0] / straight[1] - 560 / 420) < 0.08, straight
    shot(page, "20-photo-straightened")

    # Mark up: a blue pencil line, a ruler's straight red line, a highlighter stroke taken back with
    # Undo; zoomed in and out again while marking. Saved: two lines over the page.
    page.get_by_text("Mark up", exact=True).first.click()
    canvas = page.locator(".markup-canvas canvas")
    canvas.scroll_into_view_if_needed()

    def draw(points):
        cb = canvas.bounding_box()
        page.mouse.move(cb["x"] + cb["width"] * points[0][0], cb["y"] + cb["height"] * points[0][1])
        page.mouse.down()
        for x, y in points[1:]:
            page.mouse.move(cb["x"] + cb["width"] * x, cb["y"] + cb["height"] * y, steps=6)
        page.mouse.up()

    def strokes():
        return json.loads(page.locator("#f-markup").input_value())["strokes"]

    page.get_by_role("button", name="Pencil", exact=True).click()
    page.get_by_role("button", name="Blue", exact=True).click()
    expect(page.get_by_role("button", name="Pencil", exact=True)).to_have_attribute("aria-pressed", "true")
    draw([(0.15, 0.3), (0.4, 0.35), (0.8, 0.3)])
    page.get_by_role("button", name="Pen", exact=True).click()
    page.get_by_role("button", name="Red", exact=True).click()
    page.get_by_role("button", name="Ruler", exact=True).click()
    draw([(0.1, 0.7), (0.3, 0.6), (0.5, 0.75), (0.9, 0.7)])
    drawn = strokes()
    assert [(s["tool"], s["color"]) for s in drawn] == [("pencil", "#1565c0"), ("pen", "#d32f2f")], drawn
    assert len(drawn[0]["points"]) > 4 and len(drawn[1]["points"]) == 4, drawn   # the ruler's line: two points
    page.get_by_role("button", name="Zoom in", exact=True).click()
    page.get_by_role("button", name="Zoom in", exact=True).click()
    zoomed = page.evaluate("document.querySelector('.markup-canvas').getBoundingClientRect().width / document.querySelector('.markup-scroll').clientWidth")
    assert zoomed > 1.9, zoomed
    page.get_by_role("button", name="Ruler", exact=True).click()
    page.get_by_role("button", name="Highlighter", exact=True).click()
    draw([(0.3, 0.5), (0.45, 0.52)])
    assert len(strokes()) == 3
    shot(page, "20b-photo-markup-zoomed")
    page.get_by_role("button", name="Undo", exact=True).click()
    assert strokes() == drawn, strokes()
    page.get_by_role("button", name="Zoom out", exact=True).click()
    page.get_by_role("button", name="Zoom out", exact=True).click()
    page.get_by_role("button", name="Save markup").click()
    expect(page.get_by_role("status")).to_contain_text("Markup saved")
    expect(page.locator("svg.markup polyline")).to_have_count(2)
    expect(page.locator("svg.markup polyline.pencil")).to_have_count(1)

    # The same tools in German.
    page.context.add_cookies([{"name": "shelfmark_lang", "value": "de", "url": BASE}])
    try:
        page.reload()
        page.get_by_text("Markieren", exact=True).first.click()
        for name in ["Stift", "Bleistift", "Textmarker", "Radierer", "Lineal", "Blau", "Rückgängig", "Vergrößern"]:
            expect(page.get_by_role("button", name=name, exact=True)).to_be_visible()
        shot(page, "20c-photo-markup-de")
    finally:
        page.context.add_cookies([{"name": "shelfmark_lang", "value": "en", "url": BASE}])
        page.reload()

    # A quote from the page's text, trimmed, saved, found among all quotes.
    page.get_by_role("button", name="Make a quote from this page").click()
    text = page.get_by_label("Quote", exact=True)
    assert "HEART" in text.input_value().upper(), text.input_value()
    text.fill("TIME IS LIFE")
    page.get_by_role("button", name="Save quote").click()
    expect(page.get_by_role("status")).to_contain_text("Quote saved")
    page.goto(library.url("/reading/quotes?q=life"))
    expect(page.locator("ul.quotes blockquote")).to_contain_text("TIME IS LIFE")
    shot(page, "21-quotes")


def flow_reports(page, library, servers):
    # Two pupils of class R9X borrow this month, one book comes back; an old book nobody borrows stands
    # on the report shelf. The circulation report, narrowed to the class with its form, reads those
    # numbers back at 390 px in English and at 1280 px in German; the CSV and the PDF (read back with
    # pdftotext) say the same; the weeding list of the shelf is exactly the old book. Saved under a name
    # and scheduled monthly, the report mailed now arrives at a real SMTP server with its PDF and CSV.
    lib = f"/libraries/{library.id}"
    for card, name in [("R901", "Rosa"), ("R902", "Rami")]:
        api("POST", f"{lib}/members", {"cardId": card, "firstName": name, "grade": "R9X"}, library.token)
    book = library.title("The Report Card", copies=2, location="Report shelf", categories=["Reportage"])
    old = library.title("An Old Almanac", location="Report shelf", publishedDate="1979")
    first = api("POST", f"{lib}/checkouts", {"cardId": "R901", "titleId": book["id"]}, library.token)
    api("POST", f"{lib}/checkouts", {"cardId": "R902", "titleId": book["id"]}, library.token)
    api("POST", f"{lib}/returns", {"copyBarcode": first["copyBarcode"]}, library.token)

    def row(page, table, label):
        section = page.locator("section.report-table", has=page.get_by_role("heading", name=table, exact=True))
        return [c.strip() for c in section.locator("tr", has=page.locator(f"th:text-is('{label}')")).first.locator("td").all_inner_texts()]

    page.goto(library.url("/more"))
    page.get_by_role("link", name="Reports").click()
    page.get_by_role("link", name="Circulation").first.click()
    labelled(page)
    page.get_by_label("Period", exact=True).select_option(label="This month")
    page.get_by_label("Class", exact=True).select_option(label="R9X")
    page.get_by_role("button", name="Show the report").click()
    expect(page).to_have_url(re.compile(r"class=R9X"))
    assert row(page, "Loans by class", "R9X") == ["2", "2"], row(page, "Loans by class", "R9X")
    assert row(page, "At a glance", "Loans") == ["2"] and row(page, "At a glance", "Returns") == ["1"], row(page, "At a glance", "Returns")
    assert row(page, "Loans by shelf", "Report shelf") == ["2"]
    assert page.locator("svg[role=img]").count() >= 2, "the report draws its charts"
    width = page.evaluate("() => document.documentElement.scrollWidth")
    assert width <= 390, f"the report is {width} px wide at 390 px"
    shot(page, "30-report-circulation-390", full_page=True)
    csv_link = page.get_by_role("link", name="Loans by class as CSV").get_attribute("href")
    csv = page.request.get(BASE + csv_link).text()
    assert "R9X,2,2" in csv, csv
    pdf = page.request.get(BASE + page.get_by_role("link", name="Download PDF").get_attribute("href")).body()
    with tempfile.NamedTemporaryFile(suffix=".pdf") as f:
        f.write(pdf); f.flush()
        text = subprocess.run(["pdftotext", "-layout", f.name, "-"], capture_output=True, text=True, check=True).stdout
    assert "Loans by class" in text and re.search(r"R9X\s+2\s+2", text), text[:2000]

    # Saved under a name, scheduled monthly for the head teacher, and mailed now.
    spool = tempfile.mkdtemp(prefix="shelfmark-e2e-smtp-")
    smtp = subprocess.Popen([sys.executable, os.path.join(os.path.dirname(__file__), "..", "smtp", "server.py"), spool, "--mode", "plain"],
                            stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True)
    try:
        port = json.loads(smtp.stdout.readline())["port"]
        api("PUT", f"{lib}/mail/server", {"host": "127.0.0.1", "port": port, "security": "none",
                                          "senderAddress": "library@school.example", "senderName": "Room 12"}, library.token)
        page.get_by_label("Name", exact=True).fill("R9X this month")
        page.get_by_role("button", name="Save", exact=True).click()
        expect(page.locator(".flash")).to_contain_text("Saved as “R9X this month”")
        page.goto(library.url("/reports"))
        item = page.locator("ul.saved-reports li", has_text="R9X this month")
        item.locator("summary").click()
        item.get_by_label("Mail it").select_option("monthly")
        item.get_by_label("Send to (one address a line, at most 10)").fill("head@school.example")
        item.get_by_role("button", name="Save", exact=True).click()
        expect(page.locator(".flash")).to_contain_text("“R9X this month” saved")
        item = page.locator("ul.saved-reports li", has_text="R9X this month")
        expect(item).to_contain_text("Mailed to head@school.example; next on 1 ")
        item.locator("summary").click()
        shot(page, "33-saved-reports-390", full_page=True)
        item.get_by_role("button", name="Send now").click()
        expect(page.locator(".flash")).to_contain_text("Sent to 1 recipient")
        deadline = time.monotonic() + 20
        while not [n for n in os.listdir(spool) if n.endswith(".json")] and time.monotonic() < deadline:
            time.sleep(0.2)
        received = json.load(open(os.path.join(spool, sorted(n for n in os.listdir(spool) if n.endswith(".json"))[0]), encoding="utf-8"))
        assert received["rcpt_tos"] == ["head@school.example"] and received["subject"].startswith("R9X this month · "), received["subject"]
        files = {a["content_type"]: a["path"] for a in received["attachments"]}
        assert set(files) == {"application/pdf", "text/csv"}, received["attachments"]
        mailed = subprocess.run(["pdftotext", "-layout", files["application/pdf"], "-"], capture_output=True, text=True, check=True).stdout
        assert re.search(r"R9X\s+2\s+2", mailed), mailed[:2000]
        assert "R9X,2,2" in open(files["text/csv"], encoding="utf-8-sig").read()
    finally:
        smtp.stdin.close()
        smtp.wait(timeout=10)
        shutil.rmtree(spool, ignore_errors=True)

    # At the desk, in German: the same numbers under German headings.
    page.set_viewport_size({"width": 1280, "height": 800})
    page.context.add_cookies([{"name": "shelfmark_lang", "value": "de", "url": BASE}])
    try:
        page.goto(library.url("/reports/circulation?period=this-month&class=R9X"))
        assert row(page, "Ausleihen nach Klasse", "R9X") == ["2", "2"], row(page, "Ausleihen nach Klasse", "R9X")
        assert row(page, "Auf einen Blick", "Rückgaben") == ["1"]
        shot(page, "31-report-circulation-de-1280", full_page=True)
        page.goto(library.url("/reports/weeding?shelf=Report%20shelf"))
        titles = page.locator("section.report-table").first.locator("tbody tr td:nth-child(2)").all_inner_texts()
        assert titles == ["An Old Almanac"], titles
        shot(page, "32-report-weeding-de-1280")
    finally:
        page.context.add_cookies([{"name": "shelfmark_lang", "value": "en", "url": BASE}])
        page.set_viewport_size({"width": 390, "height": 844})
    assert old["id"]


def roster_zip(users, enrollments):
    """A OneRoster 1.1 bundle as a school's system exports it (zipped CSV files)."""
    import io, zipfile
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w", zipfile.ZIP_DEFLATED) as z:
        z.writestr("oneroster/manifest.csv", "propertyName,value\noneroster.version,1.1\nfile.users,bulk\nfile.classes,bulk\n")
        z.writestr("oneroster/classes.csv", "sourcedId,status,title,classType\nc-5a,,5A,homeroom\nc-6a,,6A,homeroom\n")
        z.writestr("oneroster/users.csv", "sourcedId,status,enabledUser,role,givenName,familyName,identifier,email\n" + "\n".join(users) + "\n")
        z.writestr("oneroster/enrollments.csv", "sourcedId,classSourcedId,userSourcedId,role\n" + "\n".join(enrollments) + "\n")
    return buffer.getvalue()


def flow_school_year(page, library, servers):
    # September: the school's system sends its roster; the librarian reads the preview on a phone
    # (390 px, in German) and applies it: three pupils arrive with their classes. A Tuesday: one of them
    # borrows a book. June: the roster no longer names them; the preview (in English) lists the book
    # they still have, and once applied they are gone from the members, refused at the desk, and found
    # among the former members with their history. The owner's audit log says who did it.
    import urllib.error
    lib = f"/libraries/{library.id}"
    folder = tempfile.mkdtemp(prefix="shelfmark-e2e-roster-")
    september = os.path.join(folder, "september.zip")
    with open(september, "wb") as f:
        f.write(roster_zip(["s-1,,true,student,Aoife,Byrne,5001,aoife@school.example", "s-2,,true,student,Jonas,Weber,5002,",
                            "s-3,,true,student,Mei,Chen,5003,", "t-1,,true,teacher,Kim,Teacher,T1,kim@school.example"],
                           ["e1,c-5a,s-1,student", "e2,c-5a,s-2,student", "e3,c-6a,s-3,student", "e4,c-5a,t-1,teacher"]))
    page.context.add_cookies([{"name": "shelfmark_lang", "value": "de", "url": BASE}])
    page.goto(library.url("/more"))
    page.get_by_role("link", name="Schülerliste der Schule").click()
    labelled(page)
    page.get_by_label("Datei der Schülerliste").set_input_files(september)
    page.get_by_role("button", name="Vorschau").click()
    expect(page.locator("h1")).to_have_text("Schülerliste september.zip")
    expect(page.locator("p[role=status]")).to_have_text("3 neu, 0 geändert, 0 gehen, 0 Zeilen nicht übernommen")
    expect(page.locator("li", has_text="Mei Chen")).to_contain_text("5003 · 6A")
    width = page.evaluate("() => document.documentElement.scrollWidth")
    assert width <= 390, f"the roster's preview is {width} px wide at 390 px"
    shot(page, "34-roster-preview-de-390", full_page=True)
    expect(page.locator("li", has_text="Kim Teacher")).to_contain_text("Kim Teacher · kim@school.example · 5A — ein neues Konto")
    page.get_by_label("Lehrkräfte kommen ins Team als").select_option("viewer")
    page.get_by_role("button", name="Diese Änderungen übernehmen").click()
    expect(page.locator(".flash[role=status]")).to_contain_text("Schülerliste übernommen: 3 neu, 0 geändert, 0 archiviert.")
    staff = {s.get("email"): s["role"] for s in api("GET", f"{lib}/staff", token=library.token)}
    assert staff.get("kim@school.example") == "viewer", staff
    pupils = [m for m in api("GET", f"{lib}/members?q=5A", token=library.token)]
    assert sorted(m["cardId"] for m in pupils) == ["5001", "5002"], pupils

    # A Tuesday: Mei borrows a book.
    book = library.title("The Leaver's Atlas")
    api("POST", f"{lib}/checkouts", {"cardId": "5003", "titleId": book["id"]}, library.token)

    # June: Mei has left the school.
    june = os.path.join(folder, "june.zip")
    with open(june, "wb") as f:
        f.write(roster_zip(["s-1,,true,student,Aoife,Byrne,5001,aoife@school.example", "s-2,,true,student,Jonas,Weber,5002,"],
                           ["e1,c-6a,s-1,student", "e2,c-6a,s-2,student"]))
    page.context.add_cookies([{"name": "shelfmark_lang", "value": "en", "url": BASE}])
    page.goto(library.url("/roster"))
    page.get_by_label("Roster file").set_input_files(june)
    page.get_by_role("button", name="Preview").click()
    expect(page.locator("p[role=status]")).to_have_text("0 to add, 2 to change, 1 leaving, 0 rows not taken")
    leaver = page.locator("li", has_text="Mei Chen")
    expect(leaver).to_contain_text("Still out: The Leaver's Atlas")
    page.get_by_role("button", name="Apply these changes").click()
    expect(page.locator(".flash[role=status]")).to_contain_text("Roster applied: 0 added, 2 changed, 1 archived.")
    page.goto(library.url("/members?q=5003"))
    expect(page.locator("ul.members")).to_have_count(0)
    page.get_by_role("link", name=re.compile(r"Former members \(\d+\)")).click()
    expect(page.locator("ul.members")).to_contain_text("Mei Chen")
    page.locator("ul.members a", has_text="Mei Chen").click()
    expect(page.locator(".flash.error")).to_contain_text("Left the library on")
    expect(page.locator("ul.loans").first).to_contain_text("The Leaver's Atlas")
    try:
        api("POST", f"{lib}/checkouts", {"cardId": "5003", "titleId": library.title("Another Book")["id"]}, library.token)
        raise AssertionError("a member who left borrowed a book")
    except urllib.error.HTTPError as refused:
        assert refused.code == 409 and json.loads(refused.read())["error"]["code"] == "member_archived"

    # The last day of June: the rollover moves every class up and the top year (6A) leaves; undone in
    # one step, every class is as it was.
    for card, name, grade in [("5101", "Lena", "4C"), ("5102", "Omar", "5C")]:
        api("POST", f"{lib}/members", {"cardId": card, "firstName": name, "grade": grade}, library.token)
    page.goto(library.url("/more"))
    page.get_by_role("link", name="Year-end rollover").click()
    labelled(page)
    expect(page.locator("fieldset.rollover-class", has_text="4C").get_by_label("Becomes")).to_have_value("5C")
    expect(page.locator("fieldset.rollover-class", has_text="6A").get_by_label("Leaves the school")).to_be_checked()
    width = page.evaluate("() => document.documentElement.scrollWidth")
    assert width <= 390, f"the rollover is {width} px wide at 390 px"
    shot(page, "36-rollover-390", full_page=True)
    page.get_by_role("button", name="Move everyone up").click()
    expect(page.locator(".flash[role=status]")).to_contain_text("Done: 2 moved up, 2 archived.")
    grades = {m["cardId"]: m.get("grade") for m in api("GET", f"{lib}/members?q=510", token=library.token)}
    assert grades == {"5101": "5C", "5102": "6C"}, grades
    assert [m["cardId"] for m in api("GET", f"{lib}/members?q=500", token=library.token)] == [], "6A left"
    page.get_by_role("button", name="Undo this rollover").click()
    expect(page.locator(".flash[role=status]")).to_contain_text("The rollover is undone")
    grades = {m["cardId"]: m.get("grade") for m in api("GET", f"{lib}/members?q=5", token=library.token)}
    assert grades == {"5001": "6A", "5002": "6A", "5101": "4C", "5102": "5C"}, grades

    page.goto(library.url("/audit"))
    expect(page.locator("li", has_text="School roster applied")).to_have_count(2)
    expect(page.locator("li", has_text="Rollover undone")).to_have_count(1)
    shot(page, "35-audit-log-390")


def start_oidc_provider(port, *args):
    """oidc-provider-mock (a real OpenID Connect provider, from PyPI) on this machine."""
    binary = os.path.join(os.path.dirname(sys.executable), "oidc-provider-mock")
    process = subprocess.Popen([binary, "--port", str(port), *args], stdout=open(f"{OUT}/oidc-{port}.log", "w"), stderr=subprocess.STDOUT)
    for _ in range(100):
        try:
            urllib.request.urlopen(f"http://127.0.0.1:{port}/.well-known/openid-configuration", timeout=2)
            return process
        except Exception:
            time.sleep(0.2)
    process.terminate()
    raise AssertionError(f"oidc-provider-mock did not start on {port}")


def oidc_user(port, sub, claims):
    request = urllib.request.Request(f"http://127.0.0.1:{port}/users/{sub}", method="PUT", data=json.dumps(claims).encode(),
                                     headers={"content-type": "application/json"})
    urllib.request.urlopen(request, timeout=10)


def flow_school_sign_in(page, library, servers):
    # The administrator sets up sign-in with the school's accounts on a phone (the page, 390 px); a
    # librarian signs in with her school account at a real OpenID Connect provider, a pupil signs in to
    # the public catalog with theirs. The same answer twice, a forged state and an expired token are
    # refused with the reason; with passwords off for librarians, her password is refused and her school
    # account still works. Everything is set back at the end (the other flows sign in with passwords).
    import urllib.error
    lib = f"/libraries/{library.id}"
    oidc_port, expired_port = PORT + 2, PORT + 3
    provider = start_oidc_provider(oidc_port)
    expired = start_oidc_provider(expired_port, "--token-max-age", "-300")
    issuer = f"http://127.0.0.1:{oidc_port}"
    try:
        api("POST", f"{lib}/staff", {"username": "lena", "role": "librarian", "password": "lenas own password"}, library.token)
        lena = next(s for s in api("GET", f"{lib}/staff", token=library.token) if s["username"] == "lena")
        api("PUT", f"{lib}/staff/{lena['userId']}/email", {"email": "lena@school.example"}, library.token)
        oidc_user(oidc_port, "lena-sub", {"email": "lena@school.example", "email_verified": True, "name": "Lena Librarian"})
        oidc_user(expired_port, "lena-sub", {"email": "lena@school.example", "email_verified": True})
        api("PATCH", f"{lib}", {"publicCatalog": True}, library.token)
        # The school's roster (a delta: it only adds): Pia in 7T, and Tess who teaches 7T, made a viewer.
        import io, zipfile
        bundle = io.BytesIO()
        with zipfile.ZipFile(bundle, "w", zipfile.ZIP_DEFLATED) as z:
            z.writestr("manifest.csv", "propertyName,value\noneroster.version,1.1\nfile.users,delta\nfile.classes,bulk\nfile.enrollments,bulk\n")
            z.writestr("classes.csv", "sourcedId,status,title,classType\nc-7t,,7T,homeroom\n")
            z.writestr("users.csv", "sourcedId,status,enabledUser,role,givenName,familyName,identifier,email\n"
                       "sp-1,,true,student,Pia,Nowak,7001,\ntt-1,,true,teacher,Tess,Teacher,T7,tess@school.example\n")
            z.writestr("enrollments.csv", "sourcedId,classSourcedId,userSourcedId,role\ne1,c-7t,sp-1,student\ne2,c-7t,tt-1,teacher\n")
        preview = urllib.request.Request(f"{BASE}/api/v1{lib}/roster/preview?fileName=seven.zip", method="POST", data=bundle.getvalue(),
                                         headers={"content-type": "application/zip", "authorization": f"Bearer {library.token}"})
        with urllib.request.urlopen(preview, timeout=30) as answer:
            run = json.loads(answer.read())["id"]
        api("POST", f"{lib}/roster/runs/{run}/apply", {"teachersAs": "viewer"}, library.token)
        oidc_user(oidc_port, "pia-sub", {"student_number": "7001"})
        oidc_user(oidc_port, "tess-sub", {"email": "tess@school.example", "email_verified": True, "name": "Tess Teacher"})
        read = library.title("Die kleine Hexe")
        api("POST", f"{lib}/checkouts", {"cardId": "7001", "titleId": read["id"]}, library.token)
        wanted = library.title("Das Sams")
        library.member("SS-2", "Someone", "Else")
        api("POST", f"{lib}/checkouts", {"cardId": "SS-2", "titleId": wanted["id"]}, library.token)

        page.goto(library.url("/more"))
        page.get_by_role("link", name="Sign-in with school accounts").click()
        labelled(page)
        expect(page.locator("pre.command code")).to_have_text(f"{BASE}/login/school/return")
        page.get_by_label("Provider").select_option("other")
        page.get_by_label("Issuer").fill(issuer)
        page.get_by_label("Client ID").fill("shelfmark-e2e")
        page.get_by_label("Client secret").fill("e2e-client-secret")
        page.get_by_label("School e-mail domain").fill("school.example")
        page.get_by_label("Staff (matched by their account's school e-mail)").check()
        page.get_by_label("Members in the public catalog (matched by student number or e-mail)").check()
        page.get_by_label("Claim with the student number").fill("student_number")
        width = page.evaluate("() => document.documentElement.scrollWidth")
        assert width <= 390, f"the sign-in settings are {width} px wide at 390 px"
        shot(page, "37-school-sign-in-settings-390", full_page=True)
        page.get_by_role("button", name="Save").click()
        expect(page.locator(".flash[role=status]")).to_contain_text("Sign-in with school accounts saved.")
        expect(page.get_by_label("Client secret")).to_have_value("")

        # Lena, signed out, on her phone.
        context = page.context.browser.new_context(viewport={"width": 390, "height": 844}, locale="en-GB")
        lena_page = context.new_page()
        lena_page.goto(BASE + "/login")
        lena_page.get_by_role("link", name="Sign in with 127.0.0.1").click()
        lena_page.wait_for_url(re.compile(rf"^{re.escape(issuer)}/oauth2/authorize"))
        authorize_url = lena_page.url
        query = urllib.parse.parse_qs(urllib.parse.urlparse(authorize_url).query)
        assert query["code_challenge_method"] == ["S256"] and len(query["code_challenge"][0]) == 43 and query["nonce"], query
        lena_page.locator("input[name=sub]").fill("lena-sub")
        with lena_page.expect_response(lambda r: r.url.startswith(BASE + "/login/school/return")) as answer:
            lena_page.get_by_role("button", name="Authorize").click()
        callback = answer.value
        timing = callback.request.timing
        round_trip = timing["responseStart"] - timing["requestStart"]
        print(f"e2e: school sign-in: the way back (code exchange, ID token checked, session) took {round_trip:.0f} ms", flush=True)
        assert round_trip < 1000, f"the way back from the provider took {round_trip:.0f} ms"
        lena_page.wait_for_url(re.compile(r"/catalog"))
        me = lena_page.evaluate("() => fetch('/api/v1/me').then(r => r.json())")
        assert me["username"] == "lena", me
        shot(lena_page, "38-school-sign-in-catalog-390")
        # The same answer again: refused, with the reason, on the sign-in page.
        lena_page.goto(callback.url)
        expect(lena_page.locator(".flash.error")).to_contain_text("This sign-in has ended or was already used.")
        context.close()

        # A forged state in a browser that started nothing.
        context = page.context.browser.new_context(viewport={"width": 390, "height": 844}, locale="en-GB")
        other = context.new_page()
        other.goto(BASE + "/login")
        other.goto(BASE + "/login/school/return?code=stolen&state=forged")
        expect(other.locator(".flash.error")).to_contain_text("This sign-in has ended or was already used.")
        # Started here, answered with a state this browser never got.
        other.goto(BASE + "/login/school")
        other.wait_for_url(re.compile(rf"^{re.escape(issuer)}/"))
        other.goto(BASE + "/login/school/return?code=stolen&state=" + query["state"][0])
        expect(other.locator(".flash.error")).to_be_visible()
        assert not [c for c in context.cookies() if c["name"] == "shelfmark_session"], "no session from a forged answer"
        context.close()

        # An expired ID token from a provider whose tokens are dead on arrival.
        api("PATCH", "/server/sign-in", {"issuer": f"http://127.0.0.1:{expired_port}"}, library.token)
        context = page.context.browser.new_context(viewport={"width": 390, "height": 844}, locale="en-GB")
        late = context.new_page()
        late.goto(BASE + "/login")
        late.get_by_role("link", name="Sign in with 127.0.0.1").click()
        late.locator("input[name=sub]").fill("lena-sub")
        late.get_by_role("button", name="Authorize").click()
        expect(late.locator(".flash.error")).to_contain_text("could not be trusted")
        assert not [c for c in context.cookies() if c["name"] == "shelfmark_session"], "no session from an expired token"
        context.close()
        api("PATCH", "/server/sign-in", {"issuer": issuer}, library.token)

        # Pia, in the public catalog, in German.
        context = page.context.browser.new_context(viewport={"width": 390, "height": 844}, locale="de-DE")
        context.add_cookies([{"name": "shelfmark_lang", "value": "de", "url": BASE}])
        pupil = context.new_page()
        pupil.goto(f"{BASE}/public/libraries/{library.id}/sign-in")
        pupil.get_by_role("link", name="Mit 127.0.0.1 anmelden").click()
        pupil.locator("input[name=sub]").fill("pia-sub")
        pupil.get_by_role("button", name="Authorize").click()
        expect(pupil.locator("h1")).to_contain_text("Pia")
        expect(pupil.locator("main")).to_contain_text("Die kleine Hexe")
        shot(pupil, "39-school-sign-in-member-de-390")
        # Pia places a hold on a book that is out.
        pupil.goto(f"{BASE}/public/libraries/{library.id}/titles/{wanted['id']}")
        pupil.get_by_role("button", name="Vormerken").click()
        expect(pupil.get_by_role("status")).to_be_visible()
        holds = api("GET", f"{lib}/holds", token=library.token)
        assert any(h["cardId"] == "7001" and h["titleId"] == wanted["id"] for h in holds), holds
        context.close()

        # Tess, the roster's teacher of 7T, signs in with her school account and reads her class's report.
        context = page.context.browser.new_context(viewport={"width": 390, "height": 844}, locale="en-GB")
        tess = context.new_page()
        tess.goto(BASE + "/login")
        tess.get_by_role("link", name="Sign in with 127.0.0.1").click()
        tess.locator("input[name=sub]").fill("tess-sub")
        tess.get_by_role("button", name="Authorize").click()
        tess.wait_for_url(re.compile(r"/catalog"))
        tess.goto(library.url("/more"))
        tess.get_by_role("link", name="Reading in my classes").click()
        expect(tess.locator("main")).to_contain_text("Pia Nowak")
        expect(tess.locator("main")).to_contain_text("7T")
        shot(tess, "40-class-teacher-report-390", full_page=True)
        context.close()

        # Passwords off for librarians: Lena's password is refused with the reason; her school account works.
        api("PATCH", "/server/sign-in", {"passwordOff": ["librarian"]}, library.token)
        try:
            api("POST", "/auth/login", {"username": "lena", "password": "lenas own password"})
            raise AssertionError("a librarian signed in with a password that is switched off")
        except urllib.error.HTTPError as refused:
            assert refused.code == 401 and json.loads(refused.read())["error"]["code"] == "password_off"
        context = page.context.browser.new_context(viewport={"width": 390, "height": 844}, locale="en-GB")
        again = context.new_page()
        again.goto(BASE + "/login")
        again.get_by_label("Username").fill("lena")
        again.get_by_label("Password").fill("lenas own password")
        again.get_by_role("button", name="Sign in", exact=True).click()
        expect(again.locator(".flash.error")).to_contain_text("Passwords are switched off for you here")
        again.get_by_role("link", name="Sign in with 127.0.0.1").click()
        again.locator("input[name=sub]").fill("lena-sub")
        again.get_by_role("button", name="Authorize").click()
        again.wait_for_url(re.compile(r"/catalog"))
        context.close()
    finally:
        api("PATCH", "/server/sign-in", {"passwordOff": [], "staff": False, "members": False}, library.token)
        provider.terminate(); expired.terminate()
        provider.wait(timeout=10); expired.wait(timeout=10)


def flow_many_books(page, library, servers):
    # A librarian chooses books in the catalog's select mode (a box on each row, the change in a bar
    # above the tabs), says what to change, is asked once, and undoes it; then the same in German.
    for name in ("Feet of Quill", "Quill Tower", "The Last Quill"):
        library.title(name, ["Ursula Quillon"], copies=1)
    page.goto(library.url("/catalog?q=quillon"))
    page.get_by_role("link", name="Select books").click()
    expect(page.locator("label.picker")).to_have_count(3)
    labelled(page)
    page.locator("label.picker", has_text="Feet of Quill").locator("input").check()
    page.locator("label.picker", has_text="Quill Tower").locator("input").check()
    bar = page.locator(".bulk-bar").bounding_box()
    tabs = page.locator(".tabs").bounding_box()
    assert bar["y"] + bar["height"] <= tabs["y"] + 1, (bar, tabs)   # above the tabs, where a thumb reaches it
    assert page.get_by_role("button", name="Continue").bounding_box()["height"] >= 44
    page.get_by_label("Change the chosen books").select_option("series")
    page.get_by_label("To", exact=True).fill("Quill Chronicles")
    shot(page, "bulk-01-select-mode")
    page.get_by_role("button", name="Continue").click()
    expect(page.get_by_role("heading", name="Change many books")).to_be_visible()
    expect(page.get_by_text("Set series: “Quill Chronicles” — 2 books?")).to_be_visible()
    expect(page.locator(".bulk-confirm li")).to_have_count(2)
    shot(page, "bulk-02-asked-once", full_page=True)
    page.get_by_role("button", name="Change 2 books").click()
    expect(page.get_by_text("Set series: “Quill Chronicles”: 2 books changed.")).to_be_visible()
    expect(page.get_by_text(re.compile("Last change to many books: Set series"))).to_be_visible()
    shot(page, "bulk-03-changed-with-undo")
    page.goto(library.url("/catalog?q=quill+chronicles"))
    expect(page.locator("ul.titles li")).to_have_count(2)
    page.get_by_role("button", name="Undo", exact=True).click()
    expect(page.get_by_text("Undone: Set series: “Quill Chronicles” for 2 books.")).to_be_visible()
    page.goto(library.url("/catalog?q=quill+chronicles"))
    expect(page.locator("ul.titles li")).to_have_count(0)
    # In German: every book of the page to a shelf.
    page.get_by_label(re.compile("Language|Sprache")).select_option("de")
    expect(page.locator("html")).to_have_attribute("lang", "de")
    page.goto(library.url("/catalog?q=quillon&select=1"))
    page.get_by_role("link", name="Alle auf dieser Seite auswählen").click()
    expect(page.locator("label.picker input:checked")).to_have_count(3)
    page.get_by_label("Ausgewählte Bücher ändern").select_option("shelf")
    page.get_by_label("Auf", exact=True).fill("Raum 4")
    page.get_by_role("button", name="Weiter").click()
    expect(page.get_by_text("Ins Regal stellen: „Raum 4“ — 3 Bücher?")).to_be_visible()
    shot(page, "bulk-04-asked-de", full_page=True)
    page.get_by_role("button", name="3 Bücher ändern").click()
    expect(page.get_by_text("Ins Regal stellen: „Raum 4“: 3 Bücher geändert.")).to_be_visible()
    shot(page, "bulk-05-changed-de")
    page.get_by_role("button", name="Rückgängig").click()
    expect(page.get_by_text(re.compile("Rückgängig gemacht"))).to_be_visible()
    page.get_by_label(re.compile("Language|Sprache")).select_option("en")
    expect(page.locator("html")).to_have_attribute("lang", "en")


def flow_two_series(page, library, servers):
    # A book in two series ("Mort": Discworld #4 and Death #1): given on the Edit page in German, shown
    # on the book's page with both, and on each series' page in order.
    mort = library.title("Mort", ["Terry Pratchett"], series="Discworld", seriesNumber="4")["id"]
    library.title("Reaper Man", ["Terry Pratchett"], series="Discworld", seriesNumber="11", moreSeries=[{"name": "Death", "number": "2"}])
    page.get_by_label(re.compile("Language|Sprache")).select_option("de")
    expect(page.locator("html")).to_have_attribute("lang", "de")
    page.goto(library.url(f"/titles/{mort}/edit"))
    labelled(page)
    page.get_by_label("Auch in Reihe").fill("Death #1")
    shot(page, "series-01-edit-de", full_page=True)
    page.get_by_role("button", name="Speichern").click()
    facts = page.locator("dl.facts")
    expect(facts.get_by_role("link", name="Discworld · Band 4")).to_be_visible()
    expect(facts.get_by_role("link", name="Death · Band 1")).to_be_visible()
    shot(page, "series-02-book-de")
    facts.get_by_role("link", name="Death · Band 1").click()
    expect(page.get_by_text("Bände in der Bibliothek: 2")).to_be_visible()
    names = [n for n in page.locator("ul.titles .name").all_inner_texts() if n in ("Mort", "Reaper Man")]
    assert names == ["Mort", "Reaper Man"], names
    shot(page, "series-03-death-de")
    page.get_by_label(re.compile("Language|Sprache")).select_option("en")
    expect(page.locator("html")).to_have_attribute("lang", "en")
    page.goto(library.url(f"/titles/{mort}"))
    expect(page.locator("dl.facts").get_by_role("link", name="Death · Volume 1")).to_be_visible()


def flow_wishlist_shared_and_nfc(page, library, servers):
    # A wish shared from a published library opens its public wishlist, which a friend sees in German
    # at 390 px; on a phone with Web NFC (faked here: Chromium on a desktop has none), Add reads a book's
    # ISBN from a tag's link and a book's page writes its ISBN to a tag.
    api("PATCH", f"/libraries/{library.id}", {"publicCatalog": True}, library.token)
    wish = api("POST", f"/libraries/{library.id}/wishlist", {"title": "The Wished-For Atlas", "authors": ["Ana Cartógrafa"],
                                                            "requestedBy": "Ada L."}, library.token)["id"]
    page.goto(library.url("/wishlist"))
    share = page.locator(".wish", has_text="The Wished-For Atlas").locator("[data-share-url]")
    assert share.get_attribute("data-share-url") == f"/public/libraries/{library.id}/wishlist#wish-{wish}", share.get_attribute("data-share-url")
    friend = page.context.browser.new_context(viewport={"width": 390, "height": 844}, locale="de-DE")
    public = friend.new_page()
    public.goto(BASE + share.get_attribute("data-share-url"))
    expect(public.locator("html")).to_have_attribute("lang", "de")
    expect(public.get_by_role("heading", name=re.compile("Wunschliste"))).to_be_visible()
    expect(public.locator(f"#wish-{wish}")).to_contain_text("The Wished-For Atlas")
    assert "Ada L." not in public.content()
    shot(public, "wish-01-public-de", full_page=True)
    friend.close()
    # NFC: the tag's link names the ISBN; the Add page looks it up.
    page.context.add_init_script("""
      window.NDEFReader = class {
        async scan() { setTimeout(() => this.onreading && this.onreading({ message: { records: [
          { recordType: "url", data: new TextEncoder().encode("https://example.org/isbn/978-0-306-40615-7") }] } }), 100); }
        async write(message) { window.__nfcWritten = message; }
      };""")
    page.goto(library.url("/add"))
    page.get_by_role("button", name="Read an NFC tag").click()
    expect(page.get_by_label("Title", exact=True)).to_have_value("Signals and Shelves")
    shot(page, "wish-02-nfc-isbn-looked-up")
    book = library.title("Nineteen Eighty-Four", ["George Orwell"], isbn="9780141036144")["id"]
    page.goto(library.url(f"/titles/{book}"))
    page.get_by_role("button", name="Write to an NFC tag").first.click()
    expect(page.get_by_text(re.compile("Written to the tag"))).to_be_visible()
    written = page.evaluate("window.__nfcWritten.records.map(r => r.data)")
    assert "9780141036144" in written, written


def flow_cataloguers_desk(page, library, servers):
    # The administrator puts the Deutsche Nationalbibliothek first among the book sources; a German book
    # that Google Books does not know is catalogued from its record (the MARC record kept, the call
    # number suggested), the catalog lists in shelf order in German, and the spine label's PDF
    # carries the call number broken across lines.
    page.get_by_role("link", name="More").first.click()
    page.get_by_role("link", name="Book sources").click()
    labelled(page)
    page.get_by_label("Deutsche Nationalbibliothek").select_option("1")
    page.get_by_label("Google Books").select_option("2")
    page.get_by_label("Open Library").select_option("3")
    shot(page, "cat-01-book-sources")
    page.get_by_role("button", name="Save").click()
    expect(page.get_by_text("Book sources saved.")).to_be_visible()
    page.get_by_role("link", name="Add").first.click()
    page.get_by_label("ISBN", exact=True).fill("9783871347108")
    page.get_by_role("button", name="Look up").first.click()
    expect(page.get_by_label("Title", exact=True)).to_have_value("Tschick")
    expect(page.get_by_label("Call number")).to_have_value("833.92 HER")
    page.get_by_text("Where this record came from").click()
    expect(page.get_by_text(re.compile(r"Deutsche Nationalbibliothek: Title"))).to_be_visible()
    shot(page, "cat-02-confirm-from-dnb", full_page=True)
    page.get_by_role("button", name="Add to catalog").click()
    expect(page.get_by_role("heading", name="Tschick")).to_be_visible()
    expect(page.locator("dl.facts")).to_contain_text("833.92 HER")
    page.get_by_text("Library record (MARC)").click()
    expect(page.locator("table.marc-fields")).to_contain_text("Herrndorf, Wolfgang")
    shot(page, "cat-03-book-with-marc", full_page=True)
    book = re.search(r"/titles/([0-9A-Fa-f-]{36})", page.url).group(1)
    library.title("Animals of the World", ["Ann Ilse"], callNumber="J 590 ANI")
    library.title("Swift for Schools", ["Sam Swift"], callNumber="005.133 SWI")
    # In German: the catalog in shelf order.
    page.get_by_label(re.compile("Language|Sprache")).select_option("de")
    expect(page.locator("html")).to_have_attribute("lang", "de")
    page.goto(library.url("/catalog?sort=shelf"))
    expect(page.get_by_role("link", name="Regalordnung")).to_have_attribute("aria-current", "true")
    names = page.locator("ul.titles .name").all_inner_texts()
    shelved = [n for n in names if n in ("Swift for Schools", "Tschick", "Animals of the World")]
    assert shelved == ["Swift for Schools", "Tschick", "Animals of the World"], names
    shot(page, "cat-04-shelf-order-de")
    # The spine label, German page, its PDF read back.
    page.goto(library.url(f"/labels?layout=spine-70x16.9&title={book}"))
    link = page.get_by_role("link", name="PDF herunterladen")
    expect(link).to_be_visible()
    shot(page, "cat-05-spine-labels-de")
    pdf = page.request.get(BASE + link.get_attribute("href"))
    assert pdf.ok, pdf.status
    with tempfile.NamedTemporaryFile(suffix=".pdf") as f:
        f.write(pdf.body()); f.flush()
        lines = [l.strip() for l in subprocess.run(["pdftotext", "-layout", f.name, "-"], text=True, capture_output=True, check=True).stdout.splitlines() if l.strip()]
    assert lines[:2] == ["833.92", "HER"] or ("833.92" in lines and lines[lines.index("833.92") + 1].startswith("HER")), lines
    page.get_by_label(re.compile("Language|Sprache")).select_option("en")
    expect(page.locator("html")).to_have_attribute("lang", "en")
    # A book without a barcode: a photo of its cover, its words searched, the book picked from what was found.
    painter = page.context.new_page()
    painter.set_viewport_size({"width": 600, "height": 800})
    painter.set_content('<body style="margin:40px;font-family:sans-serif;background:#fff">'
                        '<h1 style="font-size:64px">CHILDREN OF TIME</h1><p style="font-size:40px">Adrian Tchaikovsky</p></body>')
    photo = painter.screenshot(type="png")
    painter.close()
    page.goto(library.url("/add"))
    page.get_by_label(re.compile("take a photo of the barcode or the cover", re.I)).set_input_files({"name": "cover.png", "mimeType": "image/png", "buffer": photo})
    page.locator("form[action$='/add/photo'] button").click()
    expect(page.get_by_text(re.compile("Read from the cover"))).to_be_visible()
    shot(page, "cat-06-cover-candidates")
    page.get_by_role("link", name=re.compile("Children of Time")).first.click()
    expect(page.get_by_label("Title", exact=True)).to_have_value("Children of Time")
    api("PATCH", "/server/book-sources", {"order": ["google_books", "open_library"]}, library.token)


FLOWS = [flow_many_books, flow_two_series, flow_wishlist_shared_and_nfc, flow_cataloguers_desk, flow_school_year, flow_school_sign_in, flow_reports, flow_shelf_and_stocktake, flow_goodreads_history, flow_page_photo_to_quote, flow_reading_by_keypad_and_voice, flow_every_page, flow_public_catalog, flow_kiosk, flow_return_and_renew_from_member, flow_class_list_import, flow_add_by_isbn, flow_add_by_hand, flow_member, flow_lend_and_return_overdue, flow_holds, flow_wishlist, flow_overview,
         flow_import_backup_restore, flow_category_filter, flow_search, flow_languages]


def run(servers):
    only = set(filter(None, os.environ.get("E2E_ONLY", "").split(",")))
    failures = []
    with sync_playwright() as p:
        browser = p.chromium.launch(executable_path="/usr/bin/chromium", args=["--no-sandbox"])
        errors = []
        context = browser.new_context(viewport={"width": 390, "height": 844}, locale="en-GB")
        page = context.new_page()
        page.on("console", lambda m: errors.append(f"console {m.type}: {m.text}") if m.type == "error" else None)
        page.on("pageerror", lambda e: errors.append(f"page error: {e}"))
        library = Library(flow_setup(page))  # every other flow needs the library: a failure here ends the run
        context.close()
        for flow in FLOWS:
            name = flow.__name__[len("flow_"):]
            if only and name not in only:
                continue
            errors.clear()
            page = None
            started = time.monotonic()
            try:
                page = signed_in_page(browser, library, errors)
                flow(page, library, servers)
                assert not errors, errors
                print(f"e2e: {name} passed ({time.monotonic() - started:.1f} s)", flush=True)
            except Exception:
                failures.append(f"e2e: {name} FAILED\n{traceback.format_exc()}")
                print(f"e2e: {name} FAILED", flush=True)
                if page is not None:
                    try:
                        page.screenshot(path=f"{OUT}/failed-{name}.png")
                    except Exception:
                        pass
            finally:
                if page is not None:
                    page.context.close()
        browser.close()
    return failures


if __name__ == "__main__":
    main()
