// Lending without a network (issue 28). Loaded by app.js on the page that has [data-offline].
// The library is kept on this phone from the sync feed (GET …/sync/changes, docs/SYNC.md) in IndexedDB:
// titles, copies, members and open loans, and the feed's cursor in the same transaction. Lending and
// returning are queued (IndexedDB too) and pushed (POST …/sync/push) when the network is back; each
// answer removes its change, or moves it to "Needs your attention" with the server's reason. Nothing a
// librarian did is dropped silently. Signing out deletes the phone's copy (app.js).

const root = document.querySelector("[data-offline]");
const api = root.dataset.offline;
const T = JSON.parse(root.dataset.texts);
const user = root.dataset.user;
const library = api.split("/").pop();
const csrf = document.querySelector('meta[name="csrf-token"]')?.content ?? "";
const $ = (id) => document.getElementById(id);
const fill = (text, values) => text.replace(/\{(\w+)\}/g, (_, k) => values[k] ?? "");
const fold = (s) => (s ?? "").normalize("NFD").replace(/[\u0300-\u036f]/g, "").toLowerCase();

// ---- Storage ---------------------------------------------------------------------------------------

const DB_NAME = `shelfmark-sync-${library}`;
let db;

function request(r) {
  return new Promise((resolve, reject) => { r.onsuccess = () => resolve(r.result); r.onerror = () => reject(r.error); });
}

function done(tx) {
  return new Promise((resolve, reject) => { tx.oncomplete = () => resolve(); tx.onerror = tx.onabort = () => reject(tx.error); });
}

async function openDB() {
  const open = indexedDB.open(DB_NAME, 1);
  open.onupgradeneeded = () => {
    const d = open.result;
    d.createObjectStore("things", { keyPath: "key" });
    d.createObjectStore("queue", { keyPath: "seq" });
    d.createObjectStore("meta");
  };
  return request(open);
}

// ---- The phone's copy, in memory --------------------------------------------------------------------

const state = {
  titles: new Map(), copies: new Map(), members: new Map(), loans: new Map(),
  byBarcode: new Map(), byCard: new Map(), loanByCopy: new Map(), copiesByTitle: new Map(),
  queue: [], meta: {},
};

function remember(thing) {
  const { kind, id } = thing;
  forget(kind, id);
  if (kind === "title") state.titles.set(id, { ...thing.title, id, hay: fold([thing.title.title, thing.title.subtitle, ...(thing.title.authors ?? []), thing.title.isbn13, thing.title.series].join(" ")) });
  if (kind === "copy") {
    const copy = { ...thing.copy, id };
    state.copies.set(id, copy);
    state.byBarcode.set(fold(copy.barcode), copy);
    if (!state.copiesByTitle.has(copy.titleId)) state.copiesByTitle.set(copy.titleId, new Set());
    state.copiesByTitle.get(copy.titleId).add(id);
  }
  if (kind === "member") {
    const member = { ...thing.member, id };
    state.members.set(id, member);
    state.byCard.set(fold(member.cardId), member);
  }
  if (kind === "loan") {
    const loan = { ...thing.loan, id };
    state.loans.set(id, loan);
    if (loan.copyId) state.loanByCopy.set(loan.copyId, loan);
  }
}

function forget(kind, id) {
  if (kind === "title") state.titles.delete(id);
  if (kind === "copy") {
    const old = state.copies.get(id);
    if (old) { state.byBarcode.delete(fold(old.barcode)); state.copiesByTitle.get(old.titleId)?.delete(id); }
    state.copies.delete(id);
  }
  if (kind === "member") {
    const old = state.members.get(id);
    if (old) state.byCard.delete(fold(old.cardId));
    state.members.delete(id);
  }
  if (kind === "loan") {
    const old = state.loans.get(id);
    if (old?.copyId) state.loanByCopy.delete(old.copyId);
    state.loans.delete(id);
  }
}

async function load() {
  const tx = db.transaction(["things", "queue", "meta"]);
  const [things, queue, meta] = await Promise.all([
    request(tx.objectStore("things").getAll()), request(tx.objectStore("queue").getAll()), request(tx.objectStore("meta").get("sync")),
  ]);
  state.meta = meta ?? {};
  if (state.meta.user && state.meta.user !== user) {       // another person signed in on this phone
    await wipe();
    return;
  }
  for (const thing of things) remember(thing);
  state.queue = queue;
}

async function saveMeta() {
  const tx = db.transaction("meta", "readwrite");
  tx.objectStore("meta").put(state.meta, "sync");
  await done(tx);
}

async function wipe() {
  const tx = db.transaction(["things", "queue", "meta"], "readwrite");
  for (const store of ["things", "queue", "meta"]) tx.objectStore(store).clear();
  await done(tx);
  for (const map of Object.values(state)) if (map instanceof Map) map.clear();
  state.queue = [];
  state.meta = {};
}

// A copy's status as the phone sees it: the server's, then what is waiting to be sent.
function status(copy) {
  let s = copy.status;
  for (const item of state.queue) {
    if (item.state !== "pending" || fold(item.mutation.copyBarcode) !== fold(copy.barcode)) continue;
    s = item.mutation.op === "checkout" ? "on_loan" : "available";
  }
  return s;
}

// ---- Talking to the server --------------------------------------------------------------------------

class Gone extends Error {}

async function call(path, options = {}) {
  const response = await fetch(api + path, { credentials: "same-origin", ...options,
    headers: { Accept: "application/json", "X-CSRF-Token": csrf, ...(options.body ? { "Content-Type": "application/json" } : {}) } });
  if (response.status === 401 || response.status === 403 || response.status === 404) {
    // Signed out, or no longer staff here: the phone keeps nothing of this library.
    await wipe();
    throw new Gone(String(response.status));
  }
  return response;
}

async function pull() {
  for (let round = 0; round < 1000; round++) {
    const cursor = state.meta.cursor;
    const response = await call(`/sync/changes?limit=5000${cursor ? `&cursor=${encodeURIComponent(cursor)}` : ""}`);
    if (response.status === 410) {                          // too old: fetch everything again, keep the queue
      const tx = db.transaction(["things", "meta"], "readwrite");
      tx.objectStore("things").clear();
      await done(tx);
      for (const kind of ["title", "copy", "member", "loan"]) for (const id of [...state[kind === "copy" ? "copies" : kind + "s"].keys()]) forget(kind, id);
      state.meta.cursor = undefined;
      continue;
    }
    if (!response.ok) throw new Error(`pull: HTTP ${response.status}`);
    const page = await response.json();
    const tx = db.transaction(["things", "meta"], "readwrite");
    const things = tx.objectStore("things");
    for (const change of page.changes) {
      const key = `${change.kind}:${change.id}`;
      if (change.removed) { things.delete(key); forget(change.kind, change.id); } else { const thing = { key, ...change }; things.put(thing); remember(thing); }
    }
    state.meta = { ...state.meta, cursor: page.cursor, user, syncedAt: new Date().toISOString() };
    tx.objectStore("meta").put(state.meta, "sync");
    await done(tx);
    if (page.more) continue;
    if (page.behind) { await new Promise((r) => setTimeout(r, 1000)); continue; }
    return;
  }
}

async function push() {
  const pending = state.queue.filter((item) => item.state === "pending");
  if (!pending.length) return;
  if (!state.meta.client) { state.meta.client = crypto.randomUUID(); await saveMeta(); }
  const response = await call("/sync/push", { method: "POST", body: JSON.stringify({ clientId: state.meta.client, mutations: pending.map((i) => i.mutation) }) });
  if (!response.ok) throw new Error(`push: HTTP ${response.status}`);
  const { results } = await response.json();
  const tx = db.transaction("queue", "readwrite");
  const store = tx.objectStore("queue");
  for (const result of results) {
    const item = state.queue.find((i) => i.seq === result.seq);
    if (!item) continue;
    if (result.status === "applied") {
      store.delete(item.seq);
      state.queue = state.queue.filter((i) => i !== item);
    } else {
      Object.assign(item, { state: "rejected", result });
      store.put(item);
    }
  }
  await done(tx);
}

let syncing = false;
let online = navigator.onLine;

async function sync() {
  if (syncing) return;
  syncing = true;
  try {
    if (state.queue.some((i) => i.state === "pending")) { online = true; render(); }
    await push();
    await pull();
    online = true;
  } catch (error) {
    online = false;
    if (!(error instanceof TypeError) && !(error instanceof Gone)) console.warn("sync failed", error);
  } finally {
    syncing = false;
    render();
  }
}

async function enqueue(mutation, describe) {
  if (!state.meta.next) state.meta.next = 1;
  const seq = state.meta.next++;
  const item = { seq, state: "pending", mutation: { seq, ...mutation }, describe, at: new Date().toISOString() };
  const tx = db.transaction(["queue", "meta"], "readwrite");
  tx.objectStore("queue").put(item);
  tx.objectStore("meta").put(state.meta, "sync");
  await done(tx);
  state.queue.push(item);
  render();
  if (navigator.onLine) sync();
}

// ---- The page ---------------------------------------------------------------------------------------

function render() {
  const pending = state.queue.filter((i) => i.state === "pending");
  const rejected = state.queue.filter((i) => i.state === "rejected");
  const status = $("offline-status");
  let text;
  if (!state.meta.cursor) text = T.copying;
  else if (pending.length && (!online || !navigator.onLine)) text = fill(T.waiting, { count: pending.length });
  else if (pending.length) text = fill(T.sending, { count: pending.length });
  else if (!online || !navigator.onLine) text = fill(T.waiting, { count: 0 });
  else text = fill(T.upToDate, { count: state.titles.size.toLocaleString(document.documentElement.lang) });
  status.textContent = text;
  status.dataset.state = !state.meta.cursor ? "copying" : pending.length ? "waiting" : (!online || !navigator.onLine) ? "offline" : "ready";
  status.dataset.pending = String(pending.length);
  $("offline-queue-box").hidden = !pending.length;
  $("offline-queue").replaceChildren(...pending.map((item) => li(item.describe)));
  $("offline-attention").hidden = !rejected.length;
  $("offline-conflicts").replaceChildren(...rejected.map((item) => {
    const row = li(item.describe);
    row.classList.add("conflict");
    const why = document.createElement("p");
    why.className = "field-error";
    // Who has the copy now, when the phone knows the member.
    const holder = state.members.get(item.result?.openLoan?.memberId);
    why.textContent = (item.result?.message ?? "") + (holder ? ` · ${[holder.firstName, holder.lastName].filter(Boolean).join(" ")} (${holder.cardId})` : "");
    const help = document.createElement("p");
    help.className = "hint";
    help.textContent = T.conflictHelp;
    const dismiss = document.createElement("button");
    dismiss.type = "button";
    dismiss.className = "button quiet";
    dismiss.textContent = T.dismiss;
    dismiss.addEventListener("click", async () => {
      const tx = db.transaction("queue", "readwrite");
      tx.objectStore("queue").delete(item.seq);
      await done(tx);
      state.queue = state.queue.filter((i) => i !== item);
      render();
    });
    row.append(why, help, dismiss);
    return row;
  }));
  $("offline-sync").hidden = false;
  showMemberLoans();
}

function li(text) {
  const item = document.createElement("li");
  item.textContent = text;
  return item;
}

function answer(id, text, ok) {
  const box = $(id);
  box.textContent = text;
  box.className = "offline-answer " + (ok ? "ok" : "field-error");
}

// Search as you type, over the titles kept here (the first 20 matches of every word).
function search(q) {
  const started = performance.now();
  const words = fold(q).split(/\s+/).filter(Boolean);
  const found = [];
  if (words.length) {
    for (const title of state.titles.values()) {
      if (words.every((w) => title.hay.includes(w))) { found.push(title); if (found.length === 20) break; }
    }
  }
  $("offline-results").replaceChildren(...found.map((title) => {
    const copies = [...(state.copiesByTitle.get(title.id) ?? [])].map((id) => state.copies.get(id)).filter(Boolean);
    const shelf = copies.filter((c) => status(c) === "available");
    const row = li(`${title.title}${title.authors?.length ? " — " + title.authors.join(", ") : ""}`);
    const detail = document.createElement("span");
    detail.className = "hint";
    detail.textContent = " · " + fill(T.onShelf, { available: shelf.length, total: copies.length }) + (shelf.length ? " · " + shelf.map((c) => c.barcode).slice(0, 3).join(", ") : "");
    row.append(detail);
    return row;
  }));
  root.dataset.lastSearchMs = (performance.now() - started).toFixed(2);
}

function titleOf(copy) { return state.titles.get(copy.titleId)?.title ?? copy.barcode; }

// The member named in the lend form: their books on loan as the phone knows them, each with Renew
// (queued like a loan; the server applies the library's renewal rules when it arrives).
function showMemberLoans() {
  const box = $("offline-member-loans");
  const member = state.byCard.get(fold($("f-card").value.trim()));
  const loans = member ? [...state.loans.values()].filter((l) => l.memberId === member.id) : [];
  box.hidden = !loans.length;
  if (!loans.length) { box.replaceChildren(); return; }
  const heading = document.createElement("h3");
  heading.textContent = `${T.onLoanNow} · ${[member.firstName, member.lastName].filter(Boolean).join(" ")}`;
  const list = document.createElement("ul");
  list.className = "offline-list";
  for (const loan of loans) {
    const copy = state.copies.get(loan.copyId);
    const title = copy ? titleOf(copy) : state.titles.get(loan.titleId)?.title ?? "";
    const waiting = state.queue.some((i) => i.state === "pending" && i.mutation.op === "renew" && i.mutation.loanId === loan.id);
    const row = li(`${title} · ${fill(T.dueOn, { date: new Date(loan.dueAt).toLocaleDateString(document.documentElement.lang) })}`);
    const button = document.createElement("button");
    button.type = "button";
    button.className = "button quiet";
    button.textContent = T.renew;
    button.disabled = waiting;
    button.addEventListener("click", async () => {
      await enqueue({ op: "renew", loanId: loan.id }, `⟳ ${title}`);
      answer("offline-lend-answer", fill(T.renewed, { title }), true);
      showMemberLoans();
    });
    row.append(" ", button);
    list.append(row);
  }
  box.replaceChildren(heading, list);
}

async function lend(event) {
  event.preventDefault();
  const cardField = $("f-card"), bookField = $("f-book");
  const card = cardField.value.trim(), barcode = bookField.value.trim();
  if (!card) { cardField.focus(); return; }
  if (!barcode) { bookField.focus(); return; }
  const member = state.byCard.get(fold(card));
  if (!member) { answer("offline-lend-answer", fill(T.noCard, { card }), false); cardField.select(); return; }
  const copy = state.byBarcode.get(fold(barcode));
  if (!copy) { answer("offline-lend-answer", fill(T.noCopy, { barcode }), false); bookField.select(); return; }
  if (status(copy) !== "available") { answer("offline-lend-answer", fill(T.alreadyOut, { title: titleOf(copy) }), false); bookField.select(); return; }
  const name = [member.firstName, member.lastName].filter(Boolean).join(" ");
  // Cleared before anything waits: a scanner may type the next book at once.
  bookField.value = "";
  bookField.focus();                                         // the same member's next book
  answer("offline-lend-answer", fill(T.lent, { title: titleOf(copy), name }), true);
  await enqueue({ op: "checkout", cardId: member.cardId, copyBarcode: copy.barcode }, `↗ ${titleOf(copy)} → ${name} (${member.cardId})`);
}

async function giveBack(event) {
  event.preventDefault();
  const field = $("f-barcode");
  const barcode = field.value.trim();
  if (!barcode) { field.focus(); return; }
  const copy = state.byBarcode.get(fold(barcode));
  if (!copy) { answer("offline-return-answer", fill(T.noCopy, { barcode }), false); field.select(); return; }
  if (status(copy) !== "on_loan") { answer("offline-return-answer", fill(T.notOut, { title: titleOf(copy) }), false); field.select(); return; }
  field.value = "";
  field.focus();
  answer("offline-return-answer", fill(T.returned, { title: titleOf(copy) }), true);
  await enqueue({ op: "return", copyBarcode: copy.barcode }, `↩ ${titleOf(copy)}`);
}

async function start() {
  db = await openDB();
  await load();
  render();
  $("offline-lend").addEventListener("submit", lend);
  $("offline-return").addEventListener("submit", giveBack);
  // A wedge scanner types the card and Enter: on to the book.
  $("f-card").addEventListener("keydown", (event) => {
    if (event.key === "Enter" && !$("f-book").value) { event.preventDefault(); $("f-book").focus(); }
  });
  $("f-card").addEventListener("input", showMemberLoans);
  $("f-card").addEventListener("change", showMemberLoans);
  const find = $("f-find");
  find.addEventListener("input", () => search(find.value));
  $("offline-sync").addEventListener("click", () => sync());
  addEventListener("online", () => sync());
  addEventListener("offline", () => { online = false; render(); });
  setInterval(() => { if (navigator.onLine) sync(); }, 30_000);
  root.dataset.ready = "true";
  if (navigator.onLine) await sync();
}

start();
