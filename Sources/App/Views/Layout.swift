import Foundation
import Plot
import Vapor

/// What every page's shell needs: language, the signed-in user's library, CSRF token, flash message.
struct PageContext: Sendable {
    var t: Strings
    var csrf: String
    var path: String
    var user: AuthenticatedUser?
    var library: LibraryRef?
    var libraries: [LibraryRef] = []
    var flash: String?
    var flashIsError = false

    struct LibraryRef: Sendable {
        var id: UUID
        var name: String
        var base: String { "/libraries/\(id.uuidString)" }
    }
}

enum Layout {
    /// A whole document: header, main content, tab bar (when in a library), footer with languages.
    static func page(_ ctx: PageContext, title: String, @ComponentBuilder content: @escaping () -> any Component) -> HTML {
        let t = ctx.t
        return HTML(
            .attribute(named: "lang", value: ctx.t.lang.rawValue),
            .head(
                .meta(.charset(.utf8)),
                .meta(.name("viewport"), .content("width=device-width, initial-scale=1, viewport-fit=cover")),
                .meta(.name("color-scheme"), .content("light dark")),
                .title(title == t(.appName) ? title : "\(title) · \(t(.appName))"),
                .stylesheet("/css/app.css"),
                .link(.rel(.icon), .href("/icon.svg")),
                .script(.attribute(named: "type", value: "module"), .src("/js/app.js"))
            ),
            .body {
                H.el("a", ["class": "skip", "href": "#main"]) { Text(t(.skipToContent)) }
                H.el("header", ["class": "top"]) {
                    H.el("a", ["class": "brand", "href": ctx.library.map { $0.base + "/catalog" } ?? "/"]) {
                        H.void("img", ["src": "/icon.svg", "alt": "", "width": "28", "height": "28"])
                        Text(t(.appName))
                    }
                    if let library = ctx.library {
                        if ctx.libraries.count > 1 {
                            H.el("details", ["class": "switcher"]) {
                                H.el("summary", [:]) { Text(library.name) }
                                H.el("ul", ["aria-label": t(.yourLibraries)]) {
                                    for other in ctx.libraries {
                                        H.el("li", [:]) { H.link(other.name, other.base + "/catalog") }
                                    }
                                }
                            }
                        } else {
                            H.el("span", ["class": "library-name"]) { Text(library.name) }
                        }
                    }
                    if ctx.user != nil {
                        H.form("/logout", csrf: ctx.csrf, attrs: ["class": "inline"]) { H.button(t(.signOut), kind: "quiet") }
                    }
                }
                H.el("main", ["id": "main"]) {
                    if let flash = ctx.flash {
                        H.el("p", ["class": ctx.flashIsError ? "flash error" : "flash", "role": ctx.flashIsError ? "alert" : "status"]) { Text(flash) }
                    }
                    content()
                }
                if let library = ctx.library {
                    H.el("nav", ["class": "tabs", "aria-label": t(.appName)]) {
                        tab(t(.navCatalog), library.base + "/catalog", icon: "📚", ctx)
                        tab(t(.navAdd), library.base + "/add", icon: "➕", ctx)
                        tab(t(.navCheckout), library.base + "/checkout", icon: "📤", ctx)
                        tab(t(.navReturn), library.base + "/return", icon: "📥", ctx)
                        tab(t(.navMembers), library.base + "/members", icon: "👥", ctx)
                        tab(t(.navLoans), library.base + "/loans", icon: "⏰", ctx)
                    }
                }
                H.el("footer", ["class": "foot"]) {
                    H.form("/language", csrf: ctx.csrf, attrs: ["class": "inline language"]) {
                        H.void("input", ["type": "hidden", "name": "back", "value": ctx.path])
                        H.el("label", ["for": "f-lang"]) { Text(t(.language)) }
                        H.el("select", ["id": "f-lang", "name": "lang", "data-autosubmit": ""]) {
                            for lang in Lang.allCases {
                                H.el("option", ["value": lang.rawValue, "lang": lang.rawValue, "selected": lang == t.lang ? "" : nil]) { Text(lang.nativeName) }
                            }
                        }
                        H.button("OK", kind: "quiet", attrs: ["data-hide-with-js": ""])
                    }
                }
            }
        )
    }

    private static func tab(_ title: String, _ href: String, icon: String, _ ctx: PageContext) -> any Component {
        let current = ctx.path.hasPrefix(href)
        return H.el("a", ["href": href, "class": current ? "tab current" : "tab", "aria-current": current ? "page" : nil]) {
            H.el("span", ["class": "icon", "aria-hidden": "true"]) { Text(icon) }
            H.el("span", [:]) { Text(title) }
        }
    }
}

extension HTML: @retroactive AsyncResponseEncodable {
    public func encodeResponse(for request: Request) async throws -> Response {
        var headers = HTTPHeaders()
        headers.contentType = .html
        headers.replaceOrAdd(name: .cacheControl, value: "no-store")
        return Response(status: .ok, headers: headers, body: .init(string: render()))
    }
}
