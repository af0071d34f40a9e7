import Foundation
import Plot
import ShelfmarkCore
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
    /// The page shows work in progress: without JavaScript it reloads itself every few seconds
    /// (with JavaScript, app.js refreshes the part named by `data-refresh`).
    var refresh = false
    /// The languages of the language menu (the application's).
    var languages: [Lang] = Lang.allCases
    /// A public catalog's page: its library, the signed-in member, whether it may be indexed.
    var portal: Portal? = nil
    /// A self-service kiosk's page: the library it lends for; the brand leads to its start.
    var kiosk: LibraryRef? = nil
    /// Go to this address after so many seconds (a kiosk's member screen returns to its start).
    var returnAfter: (seconds: Int, path: String)? = nil

    struct Portal: Sendable {
        var libraryID: UUID
        var name: String
        var member: String?
        var indexable: Bool
    }

    /// The library the page belongs to (every page under `/libraries/{id}`); pages outside a library
    /// (sign-in, setup) build no library links.
    var libraryID: UUID { library?.id ?? .pattern }

    struct LibraryRef: Sendable {
        var id: UUID
        var name: String
        /// The user's role in it (the library of the page): each role sees the tabs and buttons it can use.
        var role: Role? = nil
    }

    /// Whether the user's role in this page's library allows `action`.
    func may(_ action: Role.Action) -> Bool { library?.role?.may(action) ?? false }
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
                .meta(.name("csrf-token"), .content(ctx.csrf)),
                .if(ctx.portal.map { !$0.indexable } ?? (ctx.kiosk != nil), .meta(.name("robots"), .content("noindex, nofollow"))),
                .element(named: "title", text: title == t(.appName) ? title : "\(title) · \(t(.appName))"),
                .stylesheet(AppShell.versioned("/css/app.css")),
                .link(.rel(.icon), .href("/icon.svg")),
                // The installable app: a manifest per library, the theme colour, the home-screen icon.
                .link(.rel(.manifest), .href(ctx.library.map { "/manifest.webmanifest?library=\($0.id.uuidString)" } ?? "/manifest.webmanifest")),
                .meta(.name("theme-color"), .content(AppShell.themeColor)),
                .link(.rel(.appleTouchIcon), .href("/icons/apple-touch-icon.png?v=\(AppShell.version)")),
                .unwrap(ctx.returnAfter) { back in .meta(.attribute(named: "http-equiv", value: "refresh"), .content("\(back.seconds);url=\(back.path)")) },
                .if(ctx.refresh, .element(named: "noscript", nodes: [.meta(.attribute(named: "http-equiv", value: "refresh"), .content("3"))])),
                .script(.attribute(named: "type", value: "module"), .src(AppShell.versioned("/js/app.js")))
            ),
            .body {
                H.el(.a, [.class: "skip", .href: "#main"]) { EscapedText(t(.skipToContent)) }
                H.el(.header, [.class: "top"]) {
                    H.el(.a, [.class: "brand", .href: ctx.kiosk.map { WebRoute.kiosk(library: $0.id).path }
                                ?? ctx.portal.map { WebRoute.publicCatalog(library: $0.libraryID).path }
                                ?? ctx.library.map { WebRoute.catalog(library: $0.id).path } ?? WebRoute.home.path]) {
                        H.void(.img, [.src: "/icon.svg", .alt: "", .width: "28", .height: "28"])
                        EscapedText(t(.appName))
                    }
                    if let library = ctx.library {
                        if ctx.libraries.count > 1 {
                            H.el(.details, [.class: "switcher"]) {
                                H.el(.summary, [:]) { EscapedText(library.name) }
                                H.el(.ul, [.ariaLabel: t(.yourLibraries)]) {
                                    for other in ctx.libraries {
                                        H.el(.li, [:]) {
                                            H.el(.a, [.href: WebRoute.catalog(library: other.id).path, .class: other.id == library.id ? "current" : nil,
                                                      .ariaCurrent: other.id == library.id ? "page" : nil]) {
                                                EscapedText((other.id == library.id ? "✓ " : "") + other.name)
                                            }
                                        }
                                    }
                                }
                            }
                        } else {
                            H.el(.span, [.class: "library-name"]) { EscapedText(library.name) }
                        }
                    }
                    if let library = ctx.library {
                        H.el(.a, [.class: "more-link", .href: WebRoute.more(library: library.id).path]) { EscapedText(t(.more)) }
                    }
                    if let kiosk = ctx.kiosk {
                        H.el(.span, [.class: "library-name"]) { EscapedText(kiosk.name) }
                    } else if let portal = ctx.portal {
                        H.el(.span, [.class: "library-name"]) { EscapedText(portal.name) }
                        H.el(.a, [.class: "more-link", .href: portal.member == nil ? WebRoute.publicSignIn(library: portal.libraryID).path
                                                                              : WebRoute.publicAccount(library: portal.libraryID).path]) {
                            EscapedText(portal.member == nil ? t(.portalSignIn) : t(.portalMyAccount))
                        }
                    } else if ctx.user != nil, ctx.library == nil {
                        H.form(WebRoute.logout.path, csrf: ctx.csrf, attrs: [.class: "inline"]) { H.button(t(.signOut), kind: "quiet") }
                    }
                }
                H.el(.main, [.id: "main"]) {
                    if let flash = ctx.flash {
                        H.el(.p, [.class: ctx.flashIsError ? "flash error" : "flash", .role: ctx.flashIsError ? "alert" : "status"]) { EscapedText(flash) }
                    }
                    content()
                }
                if let library = ctx.library {
                    H.el(.nav, [.class: "tabs", .ariaLabel: t(.appName)]) {
                        tab(t(.navCatalog), WebRoute.catalog(library: library.id).path, icon: "M4 4h4v16H4zM10 4h4v16h-4zM16 5l3.5-1 3 15.5-3.5 1z", ctx)
                        if ctx.may(.catalog) {
                            tab(t(.navAdd), WebRoute.add(library: library.id).path, icon: "M11 4h2v7h7v2h-7v7h-2v-7H4v-2h7z", ctx)
                        }
                        if !ctx.may(.circulate) {
                            // A reader without lending rights (a child, a parent): their reading is their second tab.
                            tab(t(.navReading), WebRoute.reading(library: library.id).path, icon: "M4 5c3-1 6-1 8 1 2-2 5-2 8-1v14c-3-1-6-1-8 1-2-2-5-2-8-1zm8 2v11m0-11", ctx)
                        }
                        if ctx.may(.circulate) {
                            tab(t(.navCheckout), WebRoute.checkout(library: library.id).path, icon: "M12 3l5 5h-3v6h-4V8H7zM4 15h2v4h12v-4h2v6H4z", ctx)
                            tab(t(.navReturn), WebRoute.returnBook(library: library.id).path, icon: "M12 16l-5-5h3V4h4v7h3zM4 15h2v4h12v-4h2v6H4z", ctx)
                            tab(t(.navMembers), WebRoute.members(library: library.id).path, icon: "M9 11a4 4 0 1 0 0-8 4 4 0 0 0 0 8zm7 0a3 3 0 1 0 0-6 3 3 0 0 0 0 6zM2 20c0-4 3-6 7-6s7 2 7 6zm15-5.5c3 .3 5 2 5 5.5h-4c0-2-.3-3.8-1-5.5z", ctx)
                            tab(t(.navLoans), WebRoute.loans(library: library.id).path, icon: "M12 2a10 10 0 1 0 0 20 10 10 0 0 0 0-20zm0 2a8 8 0 1 1 0 16 8 8 0 0 1 0-16zm-1 3v6l5 3 1-1.7-4-2.3V7z", ctx)
                        }
                    }
                }
                H.el(.footer, [.class: "foot"]) {
                    H.form(WebRoute.language.path, csrf: ctx.csrf, attrs: [.class: "inline language"]) {
                        H.void(.input, [.type: "hidden", .name: "back", .value: ctx.path])
                        H.el(.label, [.for: "f-lang"]) { EscapedText(t(.language)) }
                        H.el(.select, [.id: "f-lang", .name: "lang", .dataAutosubmit: ""]) {
                            for lang in ctx.languages {
                                H.el(.option, [.value: lang.rawValue, .lang: lang.rawValue, .selected: lang == t.lang ? "" : nil]) { EscapedText(lang.nativeName) }
                            }
                        }
                        H.button("OK", kind: "quiet", attrs: [.dataHideWithJs: ""])
                    }
                }
            }
        )
    }

    private static func tab(_ title: String, _ href: String, icon: String, _ ctx: PageContext) -> any Component {
        let current = ctx.path.hasPrefix(href)
        return H.el(.a, [.href: href, .class: current ? "tab current" : "tab", .ariaCurrent: current ? "page" : nil]) {
            H.el(.span, [.class: "icon", .ariaHidden: "true"]) {
                H.el(.svg, [.viewBox: "0 0 24 24", .fill: "currentColor", .focusable: "false"]) { H.void(.path, [.d: icon]) }
            }
            H.el(.span, [:]) { EscapedText(title) }
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
