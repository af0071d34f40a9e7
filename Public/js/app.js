// Progressive enhancement for Shelfmark's pages: every flow works without this file.
// Plain ES module, no build step.

// Controls that only matter without JavaScript.
for (const el of document.querySelectorAll("[data-hide-with-js]")) el.hidden = true;

// The language menu submits itself.
for (const select of document.querySelectorAll("select[data-autosubmit]")) {
  select.addEventListener("change", () => select.form.requestSubmit());
}

// Search as you type: fetch the same page with the query and swap the results in.
const live = document.querySelector("input[data-live-search]");
if (live) {
  let timer;
  let controller;
  live.addEventListener("input", () => {
    clearTimeout(timer);
    timer = setTimeout(async () => {
      controller?.abort();
      controller = new AbortController();
      const url = new URL(live.form.action, location.href);
      for (const [key, value] of new FormData(live.form)) if (value) url.searchParams.set(key, value);
      try {
        const response = await fetch(url, { signal: controller.signal, headers: { Accept: "text/html" } });
        const doc = new DOMParser().parseFromString(await response.text(), "text/html");
        const fresh = doc.getElementById("results");
        if (fresh) document.getElementById("results").replaceWith(fresh);
        history.replaceState(null, "", url);
      } catch (error) {
        if (error.name !== "AbortError") console.warn("search failed", error);
      }
    }, 150);
  });
}

// Member suggestions as one types a card ID, a name or a class (the API, with this page's session).
for (const input of document.querySelectorAll("[data-suggest-members]")) {
  const list = document.getElementById(input.getAttribute("list"));
  let last = "";
  input.addEventListener("input", async () => {
    const q = input.value.trim();
    if (q.length < 1 || q === last || !list) return;
    last = q;
    try {
      const response = await fetch(`${input.dataset.suggestMembers}?q=${encodeURIComponent(q)}&limit=8`, { credentials: "same-origin" });
      if (!response.ok || q !== last) return;
      const members = await response.json();
      list.replaceChildren(...members.map((m) => {
        const option = document.createElement("option");
        option.value = m.cardId;
        option.label = [m.name, m.grade].filter(Boolean).join(" · ");
        return option;
      }));
    } catch { /* offline: the field still takes a card ID */ }
  });
}

// Print buttons (without JavaScript, the browser's own Print menu does the same).
for (const button of document.querySelectorAll("[data-print]")) {
  button.hidden = false;
  button.addEventListener("click", () => window.print());
}

// Voice (E2): where the browser has speech recognition, a microphone button next to the page field.
// The transcript goes to the server as `phrase` (the server reads numbers in four languages); the
// field itself always takes a typed page, so nothing depends on the microphone.
const Recognition = window.SpeechRecognition || window.webkitSpeechRecognition;
for (const button of document.querySelectorAll("[data-voice]")) {
  if (!Recognition) break;
  const field = document.getElementById(button.dataset.voice);
  const phrase = document.getElementById(button.dataset.voice + "-phrase");
  if (!field || !phrase) continue;
  button.hidden = false;
  button.addEventListener("click", () => {
    const recognition = new Recognition();
    recognition.lang = button.dataset.voiceLang || document.documentElement.lang;
    recognition.interimResults = false;
    recognition.maxAlternatives = 1;
    const placeholder = field.placeholder;
    field.placeholder = button.dataset.listening || "…";
    button.setAttribute("aria-pressed", "true");
    const done = () => { field.placeholder = placeholder; button.setAttribute("aria-pressed", "false"); };
    recognition.onresult = (event) => {
      done();
      const transcript = event.results[0][0].transcript;
      field.value = transcript;
      phrase.value = transcript;
      phrase.disabled = false;
      field.form.requestSubmit();
    };
    recognition.onerror = done;
    recognition.onend = done;
    recognition.start();
  });
}

// Share (Web Share API, else copy to the clipboard).
for (const button of document.querySelectorAll("[data-share]:not([data-share-file])")) {
  button.hidden = false;
  button.addEventListener("click", async () => {
    // The book's own page when the button names it, else this page.
    const url = button.dataset.shareUrl ? new URL(button.dataset.shareUrl, location.href).href : location.href;
    const data = { title: button.dataset.share, text: button.dataset.shareText, url };
    if (navigator.share) {
      try { await navigator.share(data); } catch { /* cancelled */ }
    } else if (navigator.clipboard) {
      await navigator.clipboard.writeText(`${data.text} ${data.url}`);
    }
  });
}

// Live scanning (issue 27). On Lend, Return, Add and the shelf pages the camera runs continuously once
// started (and starts by itself where the camera was allowed before): BarcodeDetector decodes on the
// phone where the browser has it; elsewhere frames go to /api/v1/scan?live=true, one at a time (the
// next frame leaves when the last answer is back, so the rate is what phone and server sustain), and only
// while something like a barcode is in view (many sharp vertical edges in a small grey copy of the frame).
// A value is believed when two frames agree and no frame in between said something else; then the phone
// vibrates, the field is filled, and the flow goes on: on to the next empty scan field (the card, then the
// book), or the form is sent. A scan start button names its field (data-scan-for) or the section's
// [data-scan-target]; data-scan-kind="isbn" (the Add page) takes only book numbers.
// Without a secure context (http:// on the school network) the camera cannot start: the section says so
// and the buttons take a photo instead (the browser's file picker with the camera), read by /api/v1/scan.
const csrfToken = () => document.querySelector('meta[name="csrf-token"]')?.content ?? "";
const isBookNumber = (v) => /^97[89]\d{10}$/.test(v);

// Something like a barcode in view: in a 192×108 grey copy of the frame, many sharp steps from one
// column to the next (bars), more than from one row to the next; or many both ways (a QR code).
function codeInView(video, probe) {
  const w = 192, h = 108;
  probe.width = w; probe.height = h;
  const ctx = probe.getContext("2d", { willReadFrequently: true });
  ctx.drawImage(video, 0, 0, w, h);
  const px = ctx.getImageData(0, 0, w, h).data;
  let across = 0, down = 0;
  for (let y = 1; y < h; y++) {
    for (let x = 1; x < w; x++) {
      const i = (y * w + x) * 4;
      const g = px[i + 1];
      if (Math.abs(g - px[i - 4 + 1]) > 24) across++;
      if (Math.abs(g - px[i - w * 4 + 1]) > 24) down++;
    }
  }
  return (across > 150 && across > 1.5 * down) || across + down > 1200;
}

async function readPhoto(file, anyCode) {
  const response = await fetch(`/api/v1/scan?ocr=${anyCode ? "false" : "true"}`, {
    method: "POST", body: file, headers: { "Content-Type": file.type || "image/jpeg", "X-CSRF-Token": csrfToken() } });
  if (!response.ok) return null;
  const answer = await response.json();
  return anyCode ? (answer.barcodes ?? []).map((c) => c.text).find((v) => v && v.length <= 64) : answer.isbn?.isbn13;
}

// An ISBN a tag names, checked: the whole text ("978-3-87134-710-8", "ISBN 0-306-40615-2"), or in a link
// ("urn:isbn:9780306406157", "https://…/isbn/9780306406157", "…?isbn=…"); nil when it names none.
const isbnIn = (raw) => {
  const m = /(?:^|isbn[:\s]*|[/=])((?:97[89][-\s]?)?(?:[0-9][-\s]?){9}[0-9Xx])(?![0-9Xx])/i.exec(raw.trim());
  if (!m) return null;
  const code = m[1].replace(/[-\s]/g, "").toUpperCase();
  const digits = [...code].map((c) => (c === "X" ? 10 : Number(c)));
  if (code.length === 13 && !code.includes("X")) {
    return digits.reduce((sum, d, i) => sum + d * (i % 2 ? 3 : 1), 0) % 10 === 0 ? code : null;
  }
  if (code.length === 10 && !code.slice(0, 9).includes("X")) {
    return digits.reduce((sum, d, i) => sum + d * (10 - i), 0) % 11 === 0 ? code : null;
  }
  return null;
};

// The first required field of a form still empty (other than `except`): where a scan goes on to.
const firstMissing = (form, except) => [...form.querySelectorAll("[required]")].find((el) => el !== except && !el.value);

// A keyboard-wedge scanner types the code and Enter into whichever scan field has the focus: Enter in a
// scan field whose form still misses a required field goes on to that field instead of sending the form
// (the card, then the book, at the desk without touching the mouse).
for (const field of document.querySelectorAll("[data-scan-target]")) {
  field.addEventListener("keydown", (event) => {
    if (event.key !== "Enter" || event.isComposing || !field.form) return;
    const missing = firstMissing(field.form, field);
    if (field.value && missing) {
      event.preventDefault();
      missing.focus();
    }
  });
}

for (const scanner of document.querySelectorAll("[data-scanner]")) {
  const video = scanner.querySelector("video");
  const starts = [...scanner.querySelectorAll("[data-scan-start]")];
  const fieldOf = (start) => start.dataset.scanFor ? document.getElementById(start.dataset.scanFor) : scanner.querySelector("[data-scan-target]");
  if (!video || starts.length === 0) continue;
  const anyCode = starts.some((s) => s.dataset.scanKind === "any");
  const fields = starts.map(fieldOf).filter(Boolean);
  const status = scanner.querySelector("[data-scan-status]");
  const stopButton = scanner.querySelector("[data-scan-stop]");

  // Filled in: on to the next empty scan field, or the form is sent when nothing required is missing.
  const fill = (target, value) => {
    target.value = value;
    target.dispatchEvent(new Event("input", { bubbles: true }));
    navigator.vibrate?.(80);
    const nextEmpty = fields.find((f) => f !== target && f.form === target.form && !f.value && f.isConnected);
    const missing = firstMissing(target.form, target);
    if (nextEmpty) { nextEmpty.focus(); return false; }
    if (missing) { missing.focus(); return true; }
    target.form.requestSubmit();
    return true;
  };

  // Web NFC (G8): a member's or a copy's sticker read into this page's fields; where the scanner takes an
  // ISBN (Add), a book's tag: its ISBN as text, or a link that names it.
  const nfcButton = scanner.querySelector("[data-nfc-read]");
  if (nfcButton && "NDEFReader" in window) {
    nfcButton.hidden = false;
    nfcButton.addEventListener("click", async () => {
      const reader = new window.NDEFReader();
      try {
        await reader.scan();
        if (status) status.textContent = nfcButton.dataset.nfcHold;
      } catch {
        if (status) status.textContent = nfcButton.dataset.nfcFailed;
        return;
      }
      reader.onreading = (event) => {
        for (const record of event.message?.records ?? []) {
          if (!["text", "url", "absolute-url"].includes(record.recordType)) continue;
          const text = new TextDecoder(record.encoding || "utf-8").decode(record.data);
          if (!anyCode) {
            const isbn = isbnIn(text);
            if (isbn && fields[0]?.isConnected) {
              if (status) status.textContent = "";
              fill(fields[0], isbn);
              return;
            }
            continue;
          }
          if (record.recordType !== "text") continue;
          const m = /^shelfmark:(member|copy):(.{1,64})$/.exec(text);
          if (!m) continue;
          const field = m[1] === "member" ? document.getElementById("f-card")
            : fields.find((f) => f.id !== "f-card");
          if (field && field.isConnected) {
            if (status) status.textContent = "";
            fill(field, m[2]);
            return;
          }
        }
      };
    });
  }

  if (!window.isSecureContext || !navigator.mediaDevices?.getUserMedia) {
    // No camera on an insecure page: say so, and take a photo instead.
    scanner.querySelector("[data-scan-insecure]")?.removeAttribute("hidden");
    const picker = document.createElement("input");
    picker.type = "file"; picker.accept = "image/*"; picker.setAttribute("capture", "environment"); picker.hidden = true;
    scanner.append(picker);
    let target = null;
    picker.addEventListener("change", async () => {
      const file = picker.files?.[0];
      picker.value = "";
      if (!file || !target) return;
      const value = await readPhoto(file, anyCode).catch(() => null);
      if (value) fill(target, value);
      else if (status) status.textContent = status.dataset.nothing ?? "";
    });
    for (const start of starts) {
      const target0 = fieldOf(start);
      if (!target0) continue;
      start.hidden = false;
      start.addEventListener("click", () => { target = target0; picker.click(); });
    }
    continue;
  }

  let stream = null;
  const stop = () => {
    for (const track of stream?.getTracks() ?? []) track.stop();
    stream = null; video.hidden = true;
    if (stopButton) stopButton.hidden = true;
  };
  const run = async (firstTarget) => {
    if (stream) return;
    try {
      stream = await navigator.mediaDevices.getUserMedia({ video: { facingMode: "environment", width: { ideal: 1280 }, height: { ideal: 720 } } });
    } catch {
      stream = null;
      return; // no camera, or permission refused: typing (and a wedge scanner) still work
    }
    try { localStorage.setItem("shelfmark.camera", "on"); } catch { /* private mode */ }
    video.hidden = false;
    if (stopButton) stopButton.hidden = false;
    video.srcObject = stream;
    await video.play().catch(() => {});
    let target = firstTarget;
    const formats = anyCode ? ["ean_13", "upc_a", "code_128", "code_39", "qr_code"] : ["ean_13", "upc_a"];
    let detector = null;
    if ("BarcodeDetector" in window) {
      try {
        const supported = await window.BarcodeDetector.getSupportedFormats();
        const usable = formats.filter((f) => supported.includes(f));
        if (usable.length) detector = new window.BarcodeDetector({ formats: usable });
      } catch { detector = null; }
    }
    const probe = document.createElement("canvas");
    const canvas = document.createElement("canvas");
    // Values already in the form's other fields (the card just read stays in view): not this field's answer.
    const taken = () => new Set(fields.filter((f) => f !== target && f.value).map((f) => f.value));
    const usable = (v) => v && v.length <= 64 && (anyCode || isBookNumber(v)) && !taken().has(v);
    let candidate = null, votes = 0;
    const vote = (value) => {
      if (!value) return false;
      if (value === candidate) votes++; else { candidate = value; votes = 1; }
      return votes >= 2;
    };
    const tick = async () => {
      if (!stream || !target?.isConnected) return;
      let values = null;
      try {
        if (video.readyState >= 2) {
          if (detector) {
            values = (await detector.detect(video)).map((c) => c.rawValue);
          } else if (codeInView(video, probe)) {
            const scale = Math.min(1, 1280 / Math.max(video.videoWidth, video.videoHeight));
            canvas.width = Math.round(video.videoWidth * scale); canvas.height = Math.round(video.videoHeight * scale);
            canvas.getContext("2d").drawImage(video, 0, 0, canvas.width, canvas.height);
            const blob = await new Promise((resolve) => canvas.toBlob(resolve, "image/jpeg", 0.8));
            const response = await fetch("/api/v1/scan?live=true", { method: "POST", body: blob, headers: { "Content-Type": "image/jpeg", "X-CSRF-Token": csrfToken() } });
            if (response.ok) {
              const answer = await response.json();
              values = (answer.barcodes ?? []).map((c) => c.text);
              if (!anyCode && answer.isbn?.isbn13) values.unshift(answer.isbn.isbn13);
            }
          }
        }
      } catch (error) {
        console.warn("scan failed", error);
      }
      if (values !== null) {
        const found = values.filter(usable);
        // Two different codes in one frame, or a frame that disagrees with the last: believe nothing yet.
        if (found.length === 1 && vote(found[0])) {
          candidate = null; votes = 0;
          const done = fill(target, found[0]);
          if (done) { stop(); return; }
          target = fields.find((f) => !f.value) ?? target;
        } else if (found.length !== 1 && values.length > 0) {
          candidate = null; votes = 0;
        }
      }
      setTimeout(tick, detector ? 100 : 66);
    };
    tick();
  };
  for (const start of starts) {
    const target = fieldOf(start);
    if (!target) continue;
    start.hidden = false;
    start.addEventListener("click", () => {
      if (stream) stop();
      run(target);
    });
  }
  stopButton?.addEventListener("click", () => {
    stop();
    try { localStorage.removeItem("shelfmark.camera"); } catch { /* private mode */ }
  });
  // The camera was in use here before and may still be used: start with the first empty field.
  let wanted = false;
  try { wanted = localStorage.getItem("shelfmark.camera") === "on"; } catch { wanted = false; }
  if (wanted && navigator.permissions?.query) {
    navigator.permissions.query({ name: "camera" }).then((p) => {
      const first = fields.find((f) => !f.value);
      if (p.state === "granted" && first) run(first);
    }).catch(() => {});
  }
}

// Long-running forms (import, restore): once sent, the button says what is happening and cannot
// send the file a second time while the server works.
for (const button of document.querySelectorAll("button[data-busy]")) {
  const label = button.textContent;
  button.form.addEventListener("submit", () => {
    button.disabled = true;
    button.textContent = button.dataset.busy;
    button.setAttribute("aria-busy", "true");
  });
  // Back to this page from the browser's cache: the button works again.
  addEventListener("pageshow", (event) => {
    if (!event.persisted) return;
    button.disabled = false;
    button.removeAttribute("aria-busy");
    button.textContent = label;
  });
}

// Work in progress (an import job, covers and details being added): the element with `data-refresh`
// is fetched again from that URL every moment and swapped for the new one (found by its id), until
// the new one no longer asks to be refreshed. Without JavaScript the page reloads itself instead.
for (const watched of document.querySelectorAll("[data-refresh][id]")) {
  const id = watched.id;
  const delay = id === "job" ? 1000 : 4000;
  const tick = async () => {
    try {
      const current = document.getElementById(id);
      if (!current) return;
      const response = await fetch(current.dataset.refresh, { headers: { Accept: "text/html" } });
      if (!response.ok) return;
      // The work is done and its page now sends the reader on (a restored library): go there.
      if (response.redirected) { location.reload(); return; }
      const next = new DOMParser().parseFromString(await response.text(), "text/html").getElementById(id);
      if (next) current.replaceWith(next); else current.remove();
      if (next && next.dataset.refresh) setTimeout(tick, delay);
    } catch { /* offline for a moment: the next page load shows the state */ }
  };
  setTimeout(tick, delay);
}

// Page photos (E4). Zoom: pinch with two fingers, double-tap (or double-click) for 2.5×, drag to pan.
for (const view of document.querySelectorAll("[data-zoom]")) {
  const inner = view.querySelector(".zoom-inner");
  let scale = 1, x = 0, y = 0, lastTap = 0;
  const pointers = new Map();
  let start = null;
  const apply = () => {
    scale = Math.min(6, Math.max(1, scale));
    if (scale === 1) { x = 0; y = 0; }
    inner.style.transform = `translate(${x}px, ${y}px) scale(${scale})`;
  };
  view.addEventListener("pointerdown", (e) => {
    pointers.set(e.pointerId, { x: e.clientX, y: e.clientY });
    view.setPointerCapture(e.pointerId);
    const now = Date.now();
    if (pointers.size === 1 && now - lastTap < 300) { scale = scale > 1 ? 1 : 2.5; apply(); }
    lastTap = now;
    start = { scale, x, y, pts: [...pointers.values()].map((p) => ({ ...p })) };
  });
  view.addEventListener("pointermove", (e) => {
    if (!pointers.has(e.pointerId) || !start) return;
    pointers.set(e.pointerId, { x: e.clientX, y: e.clientY });
    const pts = [...pointers.values()];
    if (pts.length >= 2 && start.pts.length >= 2) {
      const d0 = Math.hypot(start.pts[0].x - start.pts[1].x, start.pts[0].y - start.pts[1].y) || 1;
      const d1 = Math.hypot(pts[0].x - pts[1].x, pts[0].y - pts[1].y);
      scale = start.scale * d1 / d0;
    } else if (pts.length === 1 && scale > 1) {
      x = start.x + pts[0].x - start.pts[0].x;
      y = start.y + pts[0].y - start.pts[0].y;
    }
    apply();
  });
  const end = (e) => { pointers.delete(e.pointerId); start = { scale, x, y, pts: [...pointers.values()].map((p) => ({ ...p })) }; };
  view.addEventListener("pointerup", end);
  view.addEventListener("pointercancel", end);
}

// Straighten: four handles over the original photo; their places (fractions, clockwise from the top
// left) go into the corners field the form sends. Without JavaScript the field can be typed.
for (const crop of document.querySelectorAll("[data-crop]")) {
  const field = document.getElementById(crop.dataset.crop);
  const handles = [...crop.querySelectorAll("[data-corner]")];
  const quad = crop.querySelector(".quad");
  let pts = (field.value || "").split(",").map(Number);
  if (pts.length !== 8 || pts.some(Number.isNaN)) pts = [0.05, 0.05, 0.95, 0.05, 0.95, 0.95, 0.05, 0.95];
  const draw = () => {
    handles.forEach((h, i) => { h.style.left = `${pts[2 * i] * 100}%`; h.style.top = `${pts[2 * i + 1] * 100}%`; });
    quad.setAttribute("points", [0, 1, 2, 3].map((i) => `${pts[2 * i]},${pts[2 * i + 1]}`).join(" "));
    field.value = pts.map((v) => v.toFixed(4)).join(",");
  };
  handles.forEach((handle, i) => {
    handle.addEventListener("pointerdown", (e) => { handle.setPointerCapture(e.pointerId); e.preventDefault(); });
    handle.addEventListener("pointermove", (e) => {
      if (!handle.hasPointerCapture(e.pointerId)) return;
      const box = crop.getBoundingClientRect();
      pts[2 * i] = Math.min(1, Math.max(0, (e.clientX - box.left) / box.width));
      pts[2 * i + 1] = Math.min(1, Math.max(0, (e.clientY - box.top) / box.height));
      draw();
    });
    handle.addEventListener("keydown", (e) => {   // arrow keys move a focused corner
      const step = e.shiftKey ? 0.05 : 0.01;
      const moves = { ArrowLeft: [-step, 0], ArrowRight: [step, 0], ArrowUp: [0, -step], ArrowDown: [0, step] };
      const m = moves[e.key];
      if (!m) return;
      e.preventDefault();
      pts[2 * i] = Math.min(1, Math.max(0, pts[2 * i] + m[0]));
      pts[2 * i + 1] = Math.min(1, Math.max(0, pts[2 * i + 1] + m[1]));
      draw();
    });
  });
  draw();
}

// Markup: pen, pencil and highlighter strokes on a canvas over the page, kept apart from the photo as
// JSON (points as fractions of the page). The ruler draws straight lines with the chosen tool; the
// eraser removes the strokes it touches; undo takes back the last stroke or erasing (also Ctrl+Z);
// the page zooms with the buttons or a two-finger pinch while the pen stays on one finger.
for (const editor of document.querySelectorAll("[data-markup]")) {
  const field = document.getElementById(editor.dataset.markup);
  const canvas = editor.querySelector("canvas");
  const sheet = editor.querySelector(".markup-canvas");
  const scroller = editor.querySelector(".markup-scroll");
  const undoButton = editor.querySelector("[data-undo]");
  const rulerButton = editor.querySelector("[data-ruler]");
  const ctx = canvas.getContext("2d");
  let data;
  try { data = JSON.parse(field.value); } catch { data = { strokes: [] }; }
  if (!Array.isArray(data.strokes)) data = { strokes: [] };
  const firstColour = editor.querySelector("[data-colour]");
  let tool = "pen", ruler = false, colour = firstColour ? firstColour.dataset.colour : "#d32f2f", current = null, zoom = 1;
  const history = [];
  const widths = { pen: 0.004, pencil: 0.002, highlighter: 0.025 };
  const alpha = { pen: 1, pencil: 0.7, highlighter: 0.4 };
  const render = () => {
    ctx.clearRect(0, 0, canvas.width, canvas.height);
    for (const s of data.strokes.concat(current ? [current] : [])) {
      ctx.globalAlpha = alpha[s.tool] || 1;
      ctx.strokeStyle = s.color; ctx.lineWidth = s.width * canvas.width; ctx.lineCap = "round"; ctx.lineJoin = "round";
      ctx.beginPath();
      for (let i = 0; i < s.points.length; i += 2) {
        const px = s.points[i] * canvas.width, py = s.points[i + 1] * canvas.height;
        if (i === 0) ctx.moveTo(px, py); else ctx.lineTo(px, py);
      }
      ctx.stroke();
    }
    ctx.globalAlpha = 1;
    field.value = JSON.stringify(data);
    if (undoButton) undoButton.disabled = history.length === 0;
  };
  const remember = () => { history.push(JSON.stringify(data.strokes)); if (history.length > 100) history.shift(); };
  const undo = () => {
    if (!history.length) return;
    data.strokes = JSON.parse(history.pop());
    current = null;
    render();
  };
  const at = (e) => {
    const box = canvas.getBoundingClientRect();
    return [Math.min(1, Math.max(0, (e.clientX - box.left) / box.width)), Math.min(1, Math.max(0, (e.clientY - box.top) / box.height))]
      .map((v) => Math.round(v * 10000) / 10000);
  };
  let erased = false;
  const erase = ([px, py]) => {
    const kept = data.strokes.filter((s) => {
      for (let i = 0; i < s.points.length; i += 2) if (Math.hypot(s.points[i] - px, s.points[i + 1] - py) < 0.02 / zoom) return false;
      return true;
    });
    if (kept.length === data.strokes.length) return;
    if (!erased) { remember(); erased = true; }
    data.strokes = kept;
    render();
  };
  const press = (buttons, button) => {
    for (const b of buttons) {
      b.classList.toggle("current", b === button);
      b.setAttribute("aria-pressed", b === button ? "true" : "false");
    }
  };
  const tools = editor.querySelectorAll("[data-tool]");
  for (const button of tools) button.addEventListener("click", () => { tool = button.dataset.tool; press(tools, button); });
  const colours = editor.querySelectorAll("[data-colour]");
  for (const button of colours) {
    button.addEventListener("click", () => {
      colour = button.dataset.colour;
      press(colours, button);
      if (tool === "eraser" || tool === "highlighter") { tool = "pen"; press(tools, editor.querySelector("[data-tool='pen']")); }
    });
  }
  if (rulerButton) {
    rulerButton.addEventListener("click", () => {
      ruler = !ruler;
      rulerButton.classList.toggle("current", ruler);
      rulerButton.setAttribute("aria-pressed", ruler ? "true" : "false");
    });
  }
  if (undoButton) undoButton.addEventListener("click", undo);
  editor.addEventListener("keydown", (e) => {
    if ((e.ctrlKey || e.metaKey) && !e.shiftKey && e.key.toLowerCase() === "z") { e.preventDefault(); undo(); }
  });
  // Zoom: the sheet grows inside its scrolling frame, keeping the middle of what was in view.
  const setZoom = (next, focus) => {
    next = Math.min(4, Math.max(1, next));
    if (!scroller || next === zoom) return;
    const box = scroller.getBoundingClientRect();
    const fx = focus ? focus.x - box.left : box.width / 2, fy = focus ? focus.y - box.top : box.height / 2;
    const cx = (scroller.scrollLeft + fx) / zoom, cy = (scroller.scrollTop + fy) / zoom;
    zoom = next;
    sheet.style.width = `${zoom * 100}%`;
    scroller.scrollLeft = cx * zoom - fx;
    scroller.scrollTop = cy * zoom - fy;
  };
  const steps = [1, 1.5, 2, 3, 4];
  for (const button of editor.querySelectorAll("[data-zoom-step]")) {
    button.addEventListener("click", () => {
      const up = Number(button.dataset.zoomStep) > 0;
      const next = up ? steps.find((z) => z > zoom + 0.01) : [...steps].reverse().find((z) => z < zoom - 0.01);
      setZoom(next ?? zoom);
    });
  }
  const pointers = new Map();
  let pinch = null;
  canvas.addEventListener("pointerdown", (e) => {
    canvas.setPointerCapture(e.pointerId);
    e.preventDefault();
    pointers.set(e.pointerId, { x: e.clientX, y: e.clientY });
    if (pointers.size === 2) {
      // A second finger: the stroke begun by the first is a pinch, not a line.
      current = null;
      const [a, b] = [...pointers.values()];
      pinch = { distance: Math.hypot(a.x - b.x, a.y - b.y) || 1, zoom, mid: { x: (a.x + b.x) / 2, y: (a.y + b.y) / 2 } };
      render();
      return;
    }
    if (pointers.size > 2) return;
    const p = at(e);
    erased = false;
    if (tool === "eraser") { erase(p); return; }
    current = { tool, color: tool === "highlighter" ? "#ffeb3b" : colour, width: widths[tool], points: p, start: p };
  });
  canvas.addEventListener("pointermove", (e) => {
    if (!canvas.hasPointerCapture(e.pointerId)) return;
    if (pointers.has(e.pointerId)) pointers.set(e.pointerId, { x: e.clientX, y: e.clientY });
    if (pinch && pointers.size >= 2) {
      const [a, b] = [...pointers.values()];
      const mid = { x: (a.x + b.x) / 2, y: (a.y + b.y) / 2 };
      setZoom(pinch.zoom * Math.hypot(a.x - b.x, a.y - b.y) / pinch.distance, mid);
      // Two fingers moving together move the page.
      if (scroller) { scroller.scrollLeft -= mid.x - pinch.mid.x; scroller.scrollTop -= mid.y - pinch.mid.y; }
      pinch.mid = mid;
      return;
    }
    const p = at(e);
    if (tool === "eraser") { erase(p); return; }
    if (!current) return;
    if (ruler) current.points = current.start.concat(p);
    else if (current.points.length < 3998) current.points.push(...p);
    render();
  });
  const finish = (e) => {
    pointers.delete(e.pointerId);
    if (pointers.size < 2) pinch = null;
    if (current && current.points.length >= 4 && data.strokes.length < 500) {
      remember();
      const { start, ...stroke } = current;
      data.strokes.push(stroke);
    }
    current = null;
    render();
  };
  canvas.addEventListener("pointerup", finish);
  canvas.addEventListener("pointercancel", finish);
  render();
}

// Share a page photo as a file where the browser can (Web Share Level 2), else download it.
for (const button of document.querySelectorAll("[data-share-file]")) {
  button.hidden = false;
  button.addEventListener("click", async () => {
    const response = await fetch(button.dataset.shareFile, { credentials: "same-origin" });
    const blob = await response.blob();
    const file = new File([blob], "page.jpg", { type: blob.type || "image/jpeg" });
    if (navigator.canShare && navigator.canShare({ files: [file] })) {
      try { await navigator.share({ files: [file], title: button.dataset.share }); } catch { /* cancelled */ }
    } else {
      const link = document.createElement("a");
      link.href = URL.createObjectURL(blob);
      link.download = "page.jpg";
      link.click();
      URL.revokeObjectURL(link.href);
    }
  });
}

// The installable app (issue 27): the service worker keeps the app shell for offline use. A newer
// worker waiting since the last visit takes over now, at a navigation, never in the middle of a form.
if ("serviceWorker" in navigator && window.isSecureContext) {
  navigator.serviceWorker.register("/sw.js").then((registration) => {
    const handOver = () => registration.waiting?.postMessage("take-over");
    handOver();
    // The browser may still be settling the waiting worker while this page loads: ask again shortly.
    setTimeout(handOver, 1000);
  }).catch((error) => console.warn("service worker", error));
}

// Lending without a network (issue 28): the page's own script, kept by the service worker with the shell.
if (document.querySelector("[data-offline]")) {
  import(new URL("offline.js" + new URL(import.meta.url).search, import.meta.url).href);
}

// Reading progress typed without a network (issue 28): kept on the phone, sent when it is back — from the
// page form's page, or from any page once online again.
if (document.querySelector("form.page-form[data-texts]") || localStorage.getItem("shelfmark-reading-pending")) {
  import(new URL("reading-offline.js" + new URL(import.meta.url).search, import.meta.url).href);
}

// The offline page links the offline lending pages this phone keeps (opened once with the network).
const keptDesks = document.getElementById("offline-desks");
if (keptDesks && "caches" in window) {
  caches.open("shelfmark-pages").then((cache) => cache.keys()).then((requests) => {
    const links = requests.map((r) => new URL(r.url)).filter((u) => u.origin === location.origin).map((u) => {
      const item = document.createElement("li");
      const link = document.createElement("a");
      link.href = u.pathname;
      link.textContent = keptDesks.dataset.label;
      item.append(link);
      return item;
    });
    keptDesks.replaceChildren(...links);
    keptDesks.hidden = !links.length;
  }).catch(() => {});
}

// Signing out deletes what this phone keeps of the libraries: the offline copies and the kept pages.
for (const form of document.querySelectorAll('form[action="/logout"]')) {
  form.addEventListener("submit", (event) => {
    if (form.dataset.cleared) return;
    event.preventDefault();
    const names = indexedDB.databases ? indexedDB.databases().then((all) => all.map((d) => d.name)) : Promise.resolve([]);
    names.then((all) => Promise.all(all.filter((n) => n?.startsWith("shelfmark-sync-") || n?.startsWith("shelfmark-reading-")).map((n) => new Promise((resolve) => {
      const r = indexedDB.deleteDatabase(n);
      r.onsuccess = r.onerror = r.onblocked = () => resolve();
    })))).then(() => localStorage.removeItem("shelfmark-reading-pending"))
      .then(() => ("caches" in window ? caches.delete("shelfmark-pages") : null)).catch(() => {}).finally(() => {
      form.dataset.cleared = "true";
      form.requestSubmit();
    });
  });
}

// Web NFC (G8), where the browser has it: a copy's or a member's page writes its link and its code to a
// sticker. Touching the sticker later opens the page (the phone follows the link) or, on Lend and Return,
// fills the field (see the scanner above).
if ("NDEFReader" in window) {
  for (const button of document.querySelectorAll("[data-nfc-write]")) {
    button.hidden = false;
    const status = button.parentElement.querySelector("[data-nfc-status]");
    button.addEventListener("click", async () => {
      if (status) status.textContent = button.dataset.nfcHold;
      try {
        await new window.NDEFReader().write({ records: [
          { recordType: "url", data: new URL(button.dataset.nfcWrite, location.href).href },
          { recordType: "text", data: button.dataset.nfcCode },
        ] });
        navigator.vibrate?.(80);
        if (status) status.textContent = button.dataset.nfcWritten;
      } catch {
        if (status) status.textContent = button.dataset.nfcFailed;
      }
    });
  }
}

// At the desk (issue 27): the catalog and the member list remember where the reader was; a book's or a
// member's page shows that list beside it on wide screens, the selection marked. The address stays the
// book's or the member's own; phones (narrow screens) never fetch the list.
const listKinds = { catalog: (doc) => doc.getElementById("results"), members: (doc) => doc.querySelector("ul.members") };
for (const [kind, find] of Object.entries(listKinds)) {
  if (!find(document) || !location.pathname.endsWith(`/${kind}`)) continue;
  try { sessionStorage.setItem(`shelfmark.list.${kind}`, location.pathname + location.search); } catch { /* private mode */ }
}
const beside = document.querySelector("[data-list-beside]");
if (beside && matchMedia("(min-width: 1100px)").matches) {
  const kind = beside.dataset.listKind;
  let url = beside.dataset.listBeside;
  try { url = sessionStorage.getItem(`shelfmark.list.${kind}`) ?? url; } catch { /* private mode */ }
  fetch(url, { headers: { Accept: "text/html" }, credentials: "same-origin" }).then((r) => r.ok ? r.text() : null).then((html) => {
    if (!html) return;
    const list = listKinds[kind]?.(new DOMParser().parseFromString(html, "text/html"));
    if (!list) return;
    list.removeAttribute("id");
    list.removeAttribute("aria-live");
    const main = document.querySelector("main");
    const detail = document.createElement("div");
    detail.className = "detail-pane";
    detail.append(...main.childNodes);
    const aside = document.createElement("aside");
    aside.className = "list-pane";
    aside.setAttribute("aria-label", beside.getAttribute("aria-label"));
    aside.append(list);
    main.append(aside, detail);
    main.classList.add("with-list");
    const current = [...aside.querySelectorAll("a[href]")].find((a) => new URL(a.href).pathname === location.pathname);
    if (current) { current.setAttribute("aria-current", "page"); current.scrollIntoView({ block: "nearest" }); }
  }).catch(() => { /* the page stands alone */ });
}

// At the desk (issue 27): once the lend form knows the card, the member's current loans stand beside it
// (read from the member's own page, found by the members list's search for the card).
const loansBox = document.querySelector("[data-member-loans]");
const cardField = document.getElementById("f-card");
if (loansBox && cardField && matchMedia("(min-width: 900px)").matches) {
  let shown = "";
  const heading = loansBox.querySelector("h2");
  const label = heading.textContent;
  const show = async () => {
    const card = cardField.value.trim();
    if (!card || card === shown) return;
    shown = card;
    try {
      const list = await fetch(`${loansBox.dataset.memberLoans}?q=${encodeURIComponent(card)}`, { headers: { Accept: "text/html" } });
      const doc = new DOMParser().parseFromString(await list.text(), "text/html");
      const rows = [...doc.querySelectorAll("ul.members a.member-row")];
      const row = rows.find((a) => a.querySelector(".card-id")?.textContent.split(" · ")[0].toLowerCase() === card.toLowerCase());
      if (!row || card !== cardField.value.trim()) return;
      const page = new DOMParser().parseFromString(await (await fetch(row.href, { headers: { Accept: "text/html" } })).text(), "text/html");
      const loans = page.querySelector("ul.loans, main p.empty");
      if (!loans || card !== cardField.value.trim()) return;
      loansBox.querySelector("ul.loans, p.empty")?.remove();
      heading.textContent = `${label} · ${row.querySelector(".name")?.textContent ?? card}`;
      for (const form of loans.querySelectorAll("form")) form.remove();
      loansBox.append(loans);
      loansBox.hidden = false;
    } catch { /* the form works without it */ }
  };
  cardField.addEventListener("change", show);
  cardField.addEventListener("input", () => { if (document.activeElement !== cardField) show(); });
  cardField.addEventListener("blur", show);
  if (cardField.value) show();
}

// The offline page's button.
for (const button of document.querySelectorAll("[data-reload]")) {
  button.addEventListener("click", () => location.reload());
}
