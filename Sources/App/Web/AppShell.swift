import Crypto
import Foundation
import NIOConcurrencyHelpers
import ShelfmarkPDF
import Vapor

/// The installable app: a web manifest per library, PNG icons drawn from `Public/icon.svg`
/// when the server starts, and a service worker that keeps the app shell (stylesheet, script, icons,
/// the offline page) for when the network is gone.
///
/// Versioned by content: `version` is a hash of the shell's files; pages link `/css/app.css?v=…` and
/// `/js/app.js?v=…`, and the worker's cache is named after it. A new version of Shelfmark makes a new
/// worker, which installs beside the old one and waits; the next page the reader opens tells it to take
/// over (`app.js`), so it never replaces the old one in the middle of a form.
enum AppShell {
    /// Theme colours: the header's green, the page's paper.
    static let themeColor = "#2f6f4f"
    static let backgroundColor = "#f7f5ef"
    static let icons: [(name: String, size: Int, maskable: Bool)] = [
        ("icon-192.png", 192, false), ("icon-512.png", 512, false), ("maskable-512.png", 512, true), ("apple-touch-icon.png", 180, true),
    ]

    struct Files: Sendable {
        var version: String
        var icons: [String: Data]
    }

    private static let current = NIOLockedValueBox<Files>(Files(version: "dev", icons: [:]))
    static var version: String { current.withLockedValue { $0.version } }

    /// Reads the shell's files and draws the icons, at start. The same files again (another application
    /// in the same process: the tests make hundreds) keep what was drawn.
    static func prepare(publicDirectory: String) throws {
        let dir = URL(fileURLWithPath: publicDirectory)
        let files = ["css/app.css", "js/app.js", "js/offline.js", "js/reading-offline.js", "icon.svg"].map { (try? Data(contentsOf: dir.appendingPathComponent($0))) ?? Data() }
        var hash = SHA256()
        for data in files { hash.update(data: data) }
        let version = hash.finalize().prefix(6).map { String(format: "%02x", $0) }.joined()
        if current.withLockedValue({ $0.version == version && !$0.icons.isEmpty }) { return }
        var drawn: [String: Data] = [:]
        if let svg = files.last, !svg.isEmpty {
            for icon in icons {
                // The maskable icon's background: the SVG's own green, so the safe zone's edge disappears.
                drawn[icon.name] = try IconRenderer.png(svg: svg, size: icon.size, maskable: icon.maskable, background: (0x2f / 255.0, 0x6f / 255.0, 0x4f / 255.0))
            }
        }
        current.withLockedValue { $0 = Files(version: version, icons: drawn) }
    }

    /// Files the browser fetches for the app (not pages: no language, no session), and the authority's
    /// certificate: every GET outside the API that is not a `WebRoute`.
    static let resources = ["/manifest.webmanifest", "/icons/:name", "/sw.js", HTTPS.authorityPath, "/robots.txt"]

    static func register(_ app: Application) {
        app.get("manifest.webmanifest", use: manifest)
        app.get("icons", ":name", use: icon)
        app.get("sw.js", use: serviceWorker)
        app.get("tls", "shelfmark-ca.crt", use: HTTPS.authority)
        app.get("robots.txt", use: PublicPages.robots)
    }

    /// A path with the shell's version, for links to the stylesheet and the script.
    static func versioned(_ path: String) -> String { "\(path)?v=\(version)" }

    struct Manifest: Content {
        struct Icon: Content {
            var src: String
            var sizes: String
            var type = "image/png"
            var purpose: String
        }
        var id: String
        var name = "Shelfmark"
        var short_name = "Shelfmark"
        var description: String
        var lang: String
        var start_url: String
        var scope = "/"
        var display = "standalone"
        var orientation = "any"
        var theme_color = AppShell.themeColor
        var background_color = AppShell.backgroundColor
        var icons: [Icon]
    }

    /// `/manifest.webmanifest?library=ID`: the app opens on that library's overview (each library installs
    /// as an app of its own); without one, on `/`. Public (browsers fetch manifests without cookies) and
    /// naming nothing but the id the page already showed.
    @Sendable static func manifest(req: Request) throws -> Response {
        let library = try req.uuidQuery("library")
        let t = req.t
        let start = library.map { WebRoute.dashboard(library: $0).path } ?? WebRoute.home.path
        let icons = Self.icons.filter { $0.name != "apple-touch-icon.png" }.map {
            Manifest.Icon(src: "/icons/\($0.name)?v=\(version)", sizes: "\($0.size)x\($0.size)", purpose: $0.maskable ? "maskable" : "any")
        }
        let body = Manifest(id: start, description: t(.appTagline), lang: t.lang.rawValue, start_url: start, icons: icons)
        let response = Response(status: .ok)
        try response.content.encode(body, as: .json)
        response.headers.replaceOrAdd(name: .contentType, value: "application/manifest+json; charset=utf-8")
        response.headers.replaceOrAdd(name: .cacheControl, value: "no-cache")
        return response
    }

    @Sendable static func icon(req: Request) throws -> Response {
        let name = try req.parameters.require("name")
        guard let png = current.withLockedValue({ $0.icons[name] }) else { throw Abort(.notFound) }
        var headers = HTTPHeaders()
        headers.replaceOrAdd(name: .contentType, value: "image/png")
        headers.replaceOrAdd(name: .cacheControl, value: "public, max-age=86400")
        return Response(status: .ok, headers: headers, body: .init(data: png))
    }

    /// The files the worker keeps: what the offline page needs to paint.
    static var shellFiles: [String] {
        [WebRoute.offline.path, versioned("/css/app.css"), versioned("/js/app.js"), versioned("/js/offline.js"), versioned("/js/reading-offline.js"), "/icon.svg"]
            + icons.map { "/icons/\($0.name)?v=\(version)" }
    }

    @Sendable static func serviceWorker(req: Request) throws -> Response {
        let files = shellFiles.map { "\"\($0)\"" }.joined(separator: ", ")
        let script = """
        // Shelfmark's service worker, version \(version) (made by the server from its files' hash).
        // Keeps the app shell for offline use; pages and the API always go to the network.
        const VERSION = "\(version)";
        const CACHE = "shelfmark-shell-" + VERSION;
        const SHELL = [\(files)];
        const OFFLINE = "\(WebRoute.offline.path)";
        const PAGES = "shelfmark-pages";
        const KEEP = /^[/]libraries[/][0-9A-Fa-f-]{36}[/]offline-lending$/;

        self.addEventListener("install", (event) => {
          event.waitUntil(caches.open(CACHE).then((cache) => cache.addAll(SHELL)));
        });

        // The first worker takes charge at once; a newer one waits until a page asks it to (app.js, on the
        // next navigation), so a page in the middle of a form keeps the files it started with.
        self.addEventListener("message", (event) => {
          if (event.data === "take-over") self.skipWaiting();
        });

        self.addEventListener("activate", (event) => {
          event.waitUntil((async () => {
            for (const key of await caches.keys()) if (key.startsWith("shelfmark-shell-") && key !== CACHE) await caches.delete(key);
            await self.clients.claim();
          })());
        });

        self.addEventListener("fetch", (event) => {
          const request = event.request;
          if (request.method !== "GET") return;
          const url = new URL(request.url);
          if (url.origin !== location.origin) return;
          if (request.mode === "navigate") {
            // A newer worker waiting since the last page: this navigation is the moment it takes over.
            self.registration.waiting?.postMessage("take-over");
            // A library's offline lending page is kept each time it loads, and answered from there without a
            // network; signing out deletes the kept pages (app.js).
            const keep = KEEP.test(url.pathname);
            event.respondWith(fetch(request).then((response) => {
              if (keep && response.ok) {
                const copy = response.clone();
                event.waitUntil(caches.open(PAGES).then((cache) => cache.put(url.pathname, copy)));
              }
              return response;
            }).catch(async () => (keep ? await caches.match(url.pathname, { cacheName: PAGES, ignoreVary: true }) : undefined)
              ?? (await caches.match(OFFLINE, { ignoreVary: true })) ?? Response.error()));
            return;
          }
          if (SHELL.includes(url.pathname + url.search)) {
            event.respondWith(caches.match(request, { ignoreVary: true }).then((hit) => hit ?? fetch(request)));
          }
        });

        """
        var headers = HTTPHeaders()
        headers.replaceOrAdd(name: .contentType, value: "text/javascript; charset=utf-8")
        headers.replaceOrAdd(name: .cacheControl, value: "no-cache")
        // A worker runs under its own script's policy: the files' sandboxing policy would give it an opaque
        // origin (no caches) and forbid its fetches. It may reach this origin only.
        headers.replaceOrAdd(name: "Content-Security-Policy", value: "default-src 'self'; frame-ancestors 'none'")
        return Response(status: .ok, headers: headers, body: .init(string: script))
    }
}
