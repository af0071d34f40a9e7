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

// Camera scanning: BarcodeDetector where the browser has it, else frames sent to /api/v1/scan.
// A scanner section has one or more start buttons; each fills the field it names (data-scan-for, else the
// section's [data-scan-target]) with an ISBN (data-scan-kind="isbn", the default on the Add page) or any
// code (a member card, a copy's barcode, an ISBN), then submits the field's form.
for (const scanner of document.querySelectorAll("[data-scanner]")) {
  if (!navigator.mediaDevices?.getUserMedia) break;
  const video = scanner.querySelector("video");
  for (const start of scanner.querySelectorAll("[data-scan-start]")) {
    const target = start.dataset.scanFor ? document.getElementById(start.dataset.scanFor) : scanner.querySelector("[data-scan-target]");
    if (!target || !video) continue;
    const anyCode = start.dataset.scanKind === "any";
    start.hidden = false;
    start.addEventListener("click", async () => {
      let stream;
      try {
        stream = await navigator.mediaDevices.getUserMedia({ video: { facingMode: "environment" } });
      } catch {
        return; // no camera or permission refused: typing still works
      }
      video.hidden = false;
      video.srcObject = stream;
      await video.play();
      const formats = anyCode ? ["ean_13", "code_128", "code_39", "qr_code", "upc_a"] : ["ean_13"];
      const detector = "BarcodeDetector" in window ? new window.BarcodeDetector({ formats }) : null;
      const canvas = document.createElement("canvas");
      const stop = () => { for (const track of stream.getTracks()) track.stop(); video.hidden = true; };
      // Filled in: on to the form when nothing else is missing, else to the next empty field.
      const found = (value) => {
        stop();
        target.value = value;
        const missing = [...target.form.querySelectorAll("[required]")].find((el) => !el.value);
        if (missing) missing.focus(); else target.form.requestSubmit();
      };
      const pick = (values) => anyCode ? values.find((v) => v && v.length <= 64) : values.find((v) => /^97[89]\d{10}$/.test(v));
      const tick = async () => {
        if (video.hidden) return;
        try {
          if (detector) {
            const value = pick((await detector.detect(video)).map((c) => c.rawValue));
            if (value) return found(value);
          } else {
            canvas.width = video.videoWidth; canvas.height = video.videoHeight;
            canvas.getContext("2d").drawImage(video, 0, 0);
            const blob = await new Promise((resolve) => canvas.toBlob(resolve, "image/jpeg", 0.85));
            const response = await fetch("/api/v1/scan?ocr=false", { method: "POST", body: blob, headers: { "Content-Type": "image/jpeg", "X-CSRF-Token": document.querySelector('meta[name="csrf-token"]')?.content ?? "" } });
            if (response.ok) {
              const answer = await response.json();
              const value = anyCode ? pick((answer.barcodes ?? []).map((c) => c.text)) : answer.isbn?.isbn13;
              if (value) return found(value);
            }
          }
        } catch (error) {
          console.warn("scan failed", error);
        }
        setTimeout(tick, detector ? 150 : 600);
      };
      tick();
    });
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

// Markup: pen and highlighter strokes on a canvas over the page, kept apart from the photo as JSON
// (points as fractions of the page); the eraser removes the strokes it touches.
for (const editor of document.querySelectorAll("[data-markup]")) {
  const field = document.getElementById(editor.dataset.markup);
  const canvas = editor.querySelector("canvas");
  const ctx = canvas.getContext("2d");
  let data;
  try { data = JSON.parse(field.value); } catch { data = { strokes: [] }; }
  let tool = "pen", current = null;
  const styles = { pen: { color: "#d32f2f", width: 0.004 }, highlighter: { color: "#ffeb3b", width: 0.025 } };
  const render = () => {
    ctx.clearRect(0, 0, canvas.width, canvas.height);
    for (const s of data.strokes.concat(current ? [current] : [])) {
      ctx.globalAlpha = s.tool === "highlighter" ? 0.4 : 1;
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
  };
  const at = (e) => {
    const box = canvas.getBoundingClientRect();
    return [Math.min(1, Math.max(0, (e.clientX - box.left) / box.width)), Math.min(1, Math.max(0, (e.clientY - box.top) / box.height))];
  };
  const erase = ([px, py]) => {
    const before = data.strokes.length;
    data.strokes = data.strokes.filter((s) => {
      for (let i = 0; i < s.points.length; i += 2) if (Math.hypot(s.points[i] - px, s.points[i + 1] - py) < 0.02) return false;
      return true;
    });
    if (data.strokes.length !== before) render();
  };
  for (const button of editor.querySelectorAll("[data-tool]")) {
    button.addEventListener("click", () => {
      tool = button.dataset.tool;
      for (const b of editor.querySelectorAll("[data-tool]")) {
        b.classList.toggle("current", b === button);
        b.setAttribute("aria-pressed", b === button ? "true" : "false");
      }
    });
  }
  canvas.addEventListener("pointerdown", (e) => {
    canvas.setPointerCapture(e.pointerId);
    e.preventDefault();
    const p = at(e);
    if (tool === "eraser") { erase(p); return; }
    current = { tool, color: styles[tool].color, width: styles[tool].width, points: p.map((v) => Math.round(v * 10000) / 10000) };
  });
  canvas.addEventListener("pointermove", (e) => {
    if (!canvas.hasPointerCapture(e.pointerId)) return;
    const p = at(e);
    if (tool === "eraser") { erase(p); return; }
    if (current && current.points.length < 3998) { current.points.push(...p.map((v) => Math.round(v * 10000) / 10000)); render(); }
  });
  const finish = () => {
    if (current && current.points.length >= 4 && data.strokes.length < 500) data.strokes.push(current);
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
