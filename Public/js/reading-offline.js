// Reading progress without a network (issue 28). Loaded by app.js on pages with a page form
// (a book's page, the Reading list). Offline, a page number ("157") or a percentage ("40 %") typed there
// is kept on this phone (IndexedDB `shelfmark-reading-<library>`) and sent with the sync push
// (POST …/sync/push, op "progress", the moment it was typed as `at`) when the network is back, on this
// page or any later one; each change is sent once (the push's client id and numbers). Signing out
// deletes what is kept (app.js).

const FLAG = "shelfmark-reading-pending";

function request(r) {
  return new Promise((resolve, reject) => { r.onsuccess = () => resolve(r.result); r.onerror = () => reject(r.error); });
}

function done(tx) {
  return new Promise((resolve, reject) => { tx.oncomplete = () => resolve(); tx.onerror = tx.onabort = () => reject(tx.error); });
}

function openDB(library) {
  const open = indexedDB.open(`shelfmark-reading-${library}`, 1);
  open.onupgradeneeded = () => {
    open.result.createObjectStore("queue", { keyPath: "seq" });
    open.result.createObjectStore("meta");
  };
  return request(open);
}

/// What was typed, as the push takes it: a page or a percentage; null when it needs the server to read it.
export function reading(text) {
  const t = text.trim();
  let m = t.match(/^(\d{1,5})$/);
  if (m && +m[1] >= 1) return { page: +m[1] };
  m = t.match(/^(\d{1,3})\s*%$/);
  if (m && +m[1] <= 100) return { percent: +m[1] };
  return null;
}

/// Keeps one change; the numbers and the client id are taken in the same transaction (two pages open
/// at once never number two changes alike).
async function keep(library, mutation) {
  const db = await openDB(library);
  const tx = db.transaction(["queue", "meta"], "readwrite");
  const meta = (await request(tx.objectStore("meta").get("push"))) ?? { client: crypto.randomUUID(), next: 1 };
  const seq = meta.next++;
  tx.objectStore("meta").put(meta, "push");
  tx.objectStore("queue").put({ seq, mutation: { seq, ...mutation } });
  await done(tx);
  db.close();
  localStorage.setItem(FLAG, [...new Set([...(localStorage.getItem(FLAG) ?? "").split(",").filter(Boolean), library])].join(","));
}

/// Sends what this phone keeps for each library; what the server answered (applied or refused) is done.
export async function flush() {
  const libraries = (localStorage.getItem(FLAG) ?? "").split(",").filter(Boolean);
  const csrf = document.querySelector('meta[name="csrf-token"]')?.content ?? "";
  let sent = 0;
  for (const library of libraries) {
    const db = await openDB(library);
    const read = db.transaction(["queue", "meta"]);
    const [items, meta] = await Promise.all([request(read.objectStore("queue").getAll()), request(read.objectStore("meta").get("push"))]);
    if (!items.length || !meta) { db.close(); forgetLibrary(library); continue; }
    const response = await fetch(`/api/v1/libraries/${library}/sync/push`, {
      method: "POST", credentials: "same-origin",
      headers: { Accept: "application/json", "Content-Type": "application/json", "X-CSRF-Token": csrf },
      body: JSON.stringify({ clientId: meta.client, mutations: items.map((i) => i.mutation) }),
    });
    if (response.status === 401 || response.status === 403 || response.status === 404) {
      db.close();
      indexedDB.deleteDatabase(`shelfmark-reading-${library}`);      // no longer a reader here: nothing is kept
      forgetLibrary(library);
      continue;
    }
    if (!response.ok) { db.close(); continue; }
    const { results } = await response.json();
    const tx = db.transaction("queue", "readwrite");
    for (const result of results) {
      tx.objectStore("queue").delete(result.seq);
      if (result.status === "applied") sent++;
      else console.warn("reading progress refused", result);
    }
    await done(tx);
    db.close();
    if (results.length >= items.length) forgetLibrary(library);
  }
  return sent;
}

function forgetLibrary(library) {
  const rest = (localStorage.getItem(FLAG) ?? "").split(",").filter((l) => l && l !== library);
  if (rest.length) localStorage.setItem(FLAG, rest.join(",")); else localStorage.removeItem(FLAG);
}

function say(form, text) {
  let line = form.querySelector(".offline-answer");
  if (!line) {
    line = document.createElement("p");
    line.className = "offline-answer ok";
    line.setAttribute("role", "status");
    form.append(line);
  }
  line.textContent = text;
}

for (const form of document.querySelectorAll("form.page-form[data-texts]")) {
  const texts = JSON.parse(form.dataset.texts);
  const [, library, title] = form.getAttribute("action").match(/^\/libraries\/([0-9A-Fa-f-]{36})\/titles\/([0-9A-Fa-f-]{36})\/progress$/) ?? [];
  if (!library) continue;
  form.addEventListener("submit", async (event) => {
    if (navigator.onLine) return;                                   // online: the form as always
    event.preventDefault();
    const field = form.querySelector('input[name="page"]');
    const value = reading(field.value);
    if (!value) { say(form, texts.unreadable); return; }
    await keep(library, { op: "progress", titleId: title, at: new Date().toISOString(), ...value });
    field.value = "";
    say(form, texts.kept.replace("{what}", value.page ? String(value.page) : `${value.percent} %`));
  });
}

async function sendKept() {
  if (!navigator.onLine || !localStorage.getItem(FLAG)) return;
  try {
    const sent = await flush();
    if (sent) {
      const form = document.querySelector("form.page-form[data-texts]");
      if (form) say(form, JSON.parse(form.dataset.texts).sent);
    }
  } catch (error) {
    if (!(error instanceof TypeError)) console.warn("reading progress", error);
  }
}

window.addEventListener("online", sendKept);
sendKept();
