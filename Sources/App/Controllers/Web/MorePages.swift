import Fluent
import Foundation
import Plot
import ShelfmarkCore
import Vapor

/// The overview (G6), the activity log (D1), and the library's settings, staff and new libraries
/// (G1, G2), reached from "More".
enum MorePages {
    static func register(_ web: any RoutesBuilder) {
        web.get(.more(library: .pattern), use: more)
        web.get(.dashboard(library: .pattern), use: dashboard)
        web.get(.activity(library: .pattern), use: activity)
        web.get(.settings(library: .pattern), use: settings)
        web.post(.settings(library: .pattern), use: saveSettings)
        web.post(.staff(library: .pattern), use: addStaff)
        web.post(.createLibrary(library: .pattern), use: createLibrary)
        web.post(.server(library: .pattern), use: saveServer)
    }

    @Sendable static func more(req: Request) async throws -> HTML {
        let ctx = try await req.library(.read)
        let page = try await req.page(library: ctx)
        let t = page.t
        let lib = ctx.libraryID
        return Layout.page(page, title: t(.more)) {
            H.el("h1", [:]) { Text(t(.more)) }
            H.el("ul", ["class": "menu"]) {
                H.el("li", [:]) { H.link(t(.dashboard), WebRoute.dashboard(library: lib).path) }
                H.el("li", [:]) { H.link(t(.wishlist), WebRoute.wishlist(library: lib).path) }
                H.el("li", [:]) { H.link(t(.activity), WebRoute.activity(library: lib).path) }
                if ctx.role.may(.catalog) { H.el("li", [:]) { H.link(t(.importExport), WebRoute.exchange(library: lib).path) } }
                if ctx.role.may(.administer) { H.el("li", [:]) { H.link(t(.settings), WebRoute.settings(library: lib).path) } }
            }
            if page.libraries.count > 1 {
                H.el("h2", [:]) { Text(t(.switchLibrary)) }
                H.el("ul", ["class": "menu"]) {
                    for other in page.libraries where other.id != ctx.libraryID {
                        H.el("li", [:]) { H.link(other.name, WebRoute.catalog(library: other.id).path) }
                    }
                }
            }
            H.form("/logout", csrf: page.csrf) { H.button(t(.signOut), kind: "quiet") }
        }
    }

    @Sendable static func dashboard(req: Request) async throws -> HTML {
        let ctx = try await req.library(.read)
        let d = try await DashboardQuery.load(libraryID: ctx.libraryID, now: req.now, on: req.db)
        let page = try await req.page(library: ctx)
        let t = page.t
        let lib = ctx.libraryID
        return Layout.page(page, title: t(.dashboard)) {
            H.el("h1", [:]) { Text(t(.dashboard)) }
            H.el("ul", ["class": "stats"]) {
                stat(t(.titlesStat), d.titles, WebRoute.catalog(library: lib).path, t)
                stat(t(.copiesStat), d.copies, WebRoute.catalog(library: lib).path, t)
                stat(t(.onLoanStat), d.onLoan, WebRoute.loans(library: lib).path, t)
                stat(t(.overdueStat), d.overdue, WebRoute.loans(library: lib).path(query: [("show", "overdue")]), t, alarm: d.overdue > 0)
                stat(t(.membersStat), d.members, WebRoute.members(library: lib).path, t)
                stat(t(.wishlistStat), d.wishlist, WebRoute.wishlist(library: lib).path, t)
            }
            if !d.lastAdded.isEmpty {
                H.el("h2", [:]) { Text(t(.lastAdded)) }
                H.el("ul", ["class": "titles"]) {
                    for item in d.lastAdded { Components.titleRow(item, lib: lib, t: t) }
                }
            }
            H.el("h2", [:]) { Text(t(.recentActivity)) }
            activityList(d.recentActivity, lib: lib, t: t)
        }
    }

    static func stat(_ label: String, _ n: Int, _ href: String, _ t: Strings, alarm: Bool = false) -> any Component {
        H.el("li", [:]) {
            H.el("a", ["href": href, "class": alarm ? "stat alarm" : "stat"]) {
                H.el("strong", [:]) { Text(t.number(n)) }
                H.el("span", [:]) { Text(label) }
            }
        }
    }

    /// Each activity type's icon, colour class and name (D1).
    static func describe(_ type: String, _ t: Strings) -> (icon: String, tone: String, name: String) {
        guard let kind = ActivityType(rawValue: type) else { return ("•", "other", type) }
        switch kind {
        case .checkout: return ("↗", "lend", t(.actCheckout))
        case .returnBook: return ("↙", "return", t(.actReturn))
        case .renew: return ("↻", "lend", t(.actRenew))
        case .addBook: return ("+", "add", t(.actAddBook))
        case .addCopy: return ("+", "add", t(.actAddCopy))
        case .editBook: return ("✎", "edit", t(.actEditBook))
        case .removeCopy: return ("−", "delete", t(.actRemoveCopy))
        case .deleteBook: return ("✕", "delete", t(.actDeleteBook))
        case .addWishlist: return ("☆", "wish", t(.actAddWishlist))
        case .fulfillWishlist: return ("★", "wish", t(.actFulfillWishlist))
        case .deleteWishlist: return ("✕", "delete", t(.actDeleteWishlist))
        case .importBooks: return ("⇣", "add", t(.actImport))
        case .addMember: return ("+", "member", t(.actAddMember))
        case .editMember: return ("✎", "member", t(.actEditMember))
        case .deleteMember: return ("✕", "delete", t(.actDeleteMember))
        case .addCategory: return ("#", "edit", t(.actAddCategory))
        case .editCategory: return ("#", "edit", t(.actEditCategory))
        case .deleteCategory: return ("#", "delete", t(.actDeleteCategory))
        case .editLibrary: return ("⚙", "edit", t(.actEditLibrary))
        case .addStaff: return ("+", "member", t(.actAddStaff))
        case .removeStaff: return ("−", "delete", t(.actRemoveStaff))
        }
    }

    static func activityList(_ items: [ActivityDTO], lib: UUID, t: Strings) -> any Component {
        guard !items.isEmpty else { return H.el("p", ["class": "empty"]) { Text("—") } }
        return H.el("ul", ["class": "activity"]) {
            for a in items {
                let d = describe(a.type, t)
                H.el("li", ["class": "tone-" + d.tone]) {
                    H.el("span", ["class": "act-icon", "aria-hidden": "true"]) { Text(d.icon) }
                    H.el("span", ["class": "meta"]) {
                        H.el("span", ["class": "name"]) {
                            Text(d.name + (a.title.map { ": " + $0 } ?? ""))
                        }
                        H.el("span", ["class": "authors"]) {
                            Text([t.date(a.at), a.memberCardId, a.info, a.actor].compactMap { $0 }.joined(separator: " · "))
                        }
                    }
                }
            }
        }
    }

    @Sendable static func activity(req: Request) async throws -> HTML {
        let ctx = try await req.library(.read)
        let type = req.query[String.self, at: "type"].flatMap(ActivityType.init(rawValue:))
        let items = try await ActivityLog.list(libraryID: ctx.libraryID, type: type, limit: 200, offset: 0, on: req.db)
        let page = try await req.page(library: ctx)
        let t = page.t
        let lib = ctx.libraryID
        return Layout.page(page, title: t(.activity)) {
            H.el("h1", [:]) { Text(t(.activity)) }
            H.el("nav", ["class": "chips"]) {
                Components.chipLink(t(.allTypes), WebRoute.activity(library: lib).path, current: type == nil)
                for kind in [ActivityType.checkout, .returnBook, .addBook, .addCopy, .addWishlist, .fulfillWishlist, .deleteBook, .importBooks,
                             .addMember, .deleteMember] {
                    Components.chipLink(describe(kind.rawValue, t).name, WebRoute.activity(library: lib).path(query: [("type", kind.rawValue)]), current: type == kind)
                }
            }
            activityList(items, lib: lib, t: t)
        }
    }

    // MARK: - Settings, staff, libraries

    @Sendable static func settings(req: Request) async throws -> HTML {
        let ctx = try await req.library(.administer)
        return try await SettingsPage.make(library: ctx, on: req.db).render(try await req.page(library: ctx))
    }

    @Sendable static func saveServer(req: Request) async throws -> Response {
        let ctx = try await req.library(.administer)
        let creation = req.formText("libraryCreation").flatMap(LibraryCreation.init(rawValue:))
        _ = try await ServerSettings.update(ServerSettingsPatch(libraryCreation: creation), user: ctx.user,
                                            gate: req.application.writeGate, on: req.db)
        return req.seeOther(WebRoute.settings(library: ctx.libraryID).path, flash: req.t(.serverSaved))
    }

    static func roleName(_ role: Role, _ t: Strings) -> String {
        switch role {
        case .owner: t(.roleOwner)
        case .librarian: t(.roleLibrarian)
        case .volunteer: t(.roleVolunteer)
        case .viewer: t(.roleViewer)
        }
    }

    /// Runs a settings form's action; a refusal shows the page again with that form as typed.
    static func refusal(_ req: Request, ctx: LibraryContext, form: SettingsPage.Form, fields: Set<String>,
                        _ body: () async throws -> Response) async throws -> Response {
        do {
            return try await body()
        } catch let error as AppError where error.status.code < 500 && error.status != .notFound && error.status != .forbidden {
            let typed = fields.reduce(into: [String: String]()) { $0[$1] = req.formText($1) ?? "" }
            let page = try await SettingsPage.refused(form, error, typed: typed, library: ctx, t: req.t, on: req.db)
            let response = try await page.render(try await req.page(library: ctx)).encodeResponse(for: req)
            response.status = .unprocessableEntity
            return response
        }
    }

    @Sendable static func saveSettings(req: Request) async throws -> Response {
        let ctx = try await req.library(.administer)
        return try await refusal(req, ctx: ctx, form: .settings, fields: SettingsPage.settingsFields) {
            let patch = LibraryPatch(name: req.formText("name") ?? "", loanPeriodDays: try EditPages.number("loanPeriodDays", ["loanPeriodDays": req.formText("loanPeriodDays") ?? ""]),
                                     maxRenewals: try EditPages.number("maxRenewals", ["maxRenewals": req.formText("maxRenewals") ?? ""]),
                                     publicCatalog: req.formText("publicCatalog") == "true")
            _ = try await Accounts.updateLibrary(patch, library: ctx, now: req.now, gate: req.application.writeGate, on: req.db)
            return req.seeOther(WebRoute.settings(library: ctx.libraryID).path, flash: req.t(.settingsSaved))
        }
    }

    @Sendable static func addStaff(req: Request) async throws -> Response {
        let ctx = try await req.library(.administer)
        return try await refusal(req, ctx: ctx, form: .staff, fields: SettingsPage.staffFields) {
            let input = StaffInput(username: req.formText("username") ?? "", role: req.formText("role").flatMap(Role.init(rawValue:)) ?? .viewer,
                                   password: req.formText("password"), displayName: req.formText("displayName"))
            let added = try await Accounts.addStaff(input, library: ctx, now: req.now, hasher: req.password, gate: req.application.writeGate, on: req.db)
            return req.seeOther(WebRoute.settings(library: ctx.libraryID).path, flash: req.t.format(.staffAdded, added.displayName))
        }
    }

    @Sendable static func createLibrary(req: Request) async throws -> Response {
        let ctx = try await req.library(.read)
        return try await refusal(req, ctx: ctx, form: .newLibrary, fields: SettingsPage.newLibraryFields) {
            let created = try await Accounts.createLibrary(LibraryInput(name: req.formText("name") ?? "", loanPeriodDays: nil, maxRenewals: nil, publicCatalog: nil),
                                                           user: ctx.user, gate: req.application.writeGate, on: req.db)
            return req.seeOther(WebRoute.catalog(library: created.id).path, flash: req.t.format(.libraryCreated, created.name))
        }
    }
}
