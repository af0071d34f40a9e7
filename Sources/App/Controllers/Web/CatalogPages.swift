import Fluent
import Foundation
import Plot
import ShelfmarkCore
import ShelfmarkLookup
import Vapor

/// The catalog (A5), a book's page (A4, A7) and adding books (A1–A3).
enum CatalogPages {
    static func register(_ web: any RoutesBuilder) {
        web.get(.catalog(library: .pattern), use: list)
        web.get(.title(library: .pattern, title: .pattern), use: detail)
        web.post(.titleFavorite(library: .pattern, title: .pattern), use: toggleFavorite)
        web.post(.titleNotes(library: .pattern, title: .pattern), use: saveNotes)
        web.post(.titleDelete(library: .pattern, title: .pattern), use: delete)
        web.post(.titleCopies(library: .pattern, title: .pattern), use: addCopies)
        web.get(.add(library: .pattern), use: addForm)
        web.post(.add(library: .pattern), use: add)
    }

    // MARK: - Catalog list

    @Sendable static func list(req: Request) async throws -> HTML {
        let ctx = try await req.library(.read)
        var filters = TitleQuery.Filters()
        let q = req.query[String.self, at: "q"]?.trimmingCharacters(in: .whitespaces)
        filters.query = q
        let chip = req.query[String.self, at: "show"] ?? "all"
        filters.favorites = chip == "favorites"
        filters.onLoan = chip == "onloan"
        filters.overdue = chip == "overdue"
        if chip.hasPrefix("cat-") { filters.categoryID = UUID(uuidString: String(chip.dropFirst(4))) }
        filters.includeSections = true
        filters.limit = 200
        let grid = req.query[String.self, at: "view"] == "grid"
        let result = try await TitleQuery.list(filters, libraryID: ctx.libraryID, now: req.now, on: req.db)
        let categories = try await Catalog.categories(libraryID: ctx.libraryID, on: req.db).filter { $0.titleCount > 0 }
        let page = try await req.page(library: ctx)
        let t = page.t
        let lib = ctx.libraryID
        func url(show: String? = nil, view: String? = nil) -> String {
            let s = show ?? chip
            let v = view ?? (grid ? "grid" : "list")
            let query: [(String, String?)] = [("q", q), ("show", s == "all" ? nil : s), ("view", v == "grid" ? "grid" : nil)]
            return WebRoute.catalog(library: lib).path(query: query)
        }
        let searching = !(q ?? "").isEmpty
        return Layout.page(page, title: t(.catalog)) {
            H.el("h1", ["class": "visually-hidden"]) { Text(t(.catalog)) }
            H.el("form", ["method": "get", "action": WebRoute.catalog(library: lib).path, "role": "search", "class": "search"]) {
                H.el("label", ["for": "f-q", "class": "visually-hidden"]) { Text(t(.search)) }
                H.void("input", ["type": "search", "id": "f-q", "name": "q", "value": q, "placeholder": t(.searchPlaceholder),
                                 "autocomplete": "off", "data-live-search": WebRoute.catalog(library: lib).path])
                if chip != "all" { H.void("input", ["type": "hidden", "name": "show", "value": chip]) }
                if grid { H.void("input", ["type": "hidden", "name": "view", "value": "grid"]) }
                H.button(t(.search), kind: "quiet", attrs: ["data-hide-with-js": ""])
            }
            H.el("nav", ["class": "chips", "aria-label": t(.catalog)]) {
                Components.chipLink(t(.filterAll), url(show: "all"), current: chip == "all")
                Components.chipLink(t(.favoritesCount, result.favoritesCount), url(show: "favorites"), current: chip == "favorites")
                Components.chipLink(t(.filterOnLoan), url(show: "onloan"), current: chip == "onloan")
                Components.chipLink(t(.filterOverdue), url(show: "overdue"), current: chip == "overdue")
                Components.chipLink(t(.wishlist), WebRoute.wishlist(library: lib).path, current: false)
                for category in categories {
                    Components.chipLink(category.name + " (" + t.number(category.titleCount) + ")", url(show: "cat-" + category.id.uuidString),
                             current: chip == "cat-" + category.id.uuidString)
                }
                H.el("span", ["class": "spacer"]) {}
                Components.chipLink(t(.viewList), url(view: "list"), current: !grid)
                Components.chipLink(t(.viewGrid), url(view: "grid"), current: grid)
            }
            H.el("div", ["id": "results", "aria-live": "polite"]) {
                H.el("p", ["class": "count"]) { Text(t(result.totalIsLowerBound ? .titlesMoreThan : .titles, result.total)) }
                if result.items.isEmpty {
                    if searching {
                        H.el("p", ["class": "empty"]) { Text(t.format(.noMatches, q ?? "")) }
                    } else if chip == "all" {
                        H.el("div", ["class": "empty card"]) {
                            H.el("h2", [:]) { Text(t(.noTitlesYet)) }
                            H.el("p", [:]) { Text(t(.noTitlesYetHint)) }
                            H.link(t(.addTitle), WebRoute.add(library: lib).path, cls: "button primary")
                        }
                    }
                } else if grid {
                    H.el("ul", ["class": "wall"]) {
                        for item in result.items { H.el("li", [:]) { Components.wallItem(item, lib: lib, t: t) } }
                    }
                } else if searching || result.order == .recent {
                    H.el("ul", ["class": "titles"]) {
                        for item in result.items { Components.titleRow(item, lib: lib, t: t) }
                    }
                } else {
                    if let sections = result.sections, sections.count > 1 {
                        H.el("nav", ["class": "az", "aria-label": t(.jumpTo)]) {
                            for s in sections { H.link(s.letter, "#sec-" + (s.letter == "#" ? "num" : s.letter)) }
                        }
                    }
                    for (letter, items) in grouped(result.items) {
                        H.el("section", ["class": "az-section", "id": "sec-" + (letter == "#" ? "num" : letter)]) {
                            H.el("h2", [:]) { Text(letter) }
                            H.el("ul", ["class": "titles"]) {
                                for item in items { Components.titleRow(item, lib: lib, t: t) }
                            }
                        }
                    }
                }
            }
        }
    }

    static func grouped(_ items: [TitleSummary]) -> [(String, [TitleSummary])] {
        var out: [(String, [TitleSummary])] = []
        for item in items {
            if out.last?.0 == item.section { out[out.count - 1].1.append(item) } else { out.append((item.section, [item])) }
        }
        return out
    }

    @Sendable static func detail(req: Request) async throws -> HTML {
        let ctx = try await req.library(.read)
        let d = try await TitleQuery.detail(try req.uuid("titleID"), libraryID: ctx.libraryID, now: req.now, on: req.db)
        let page = try await req.page(library: ctx)
        return detailPage(d, page: page, canEdit: ctx.role.may(.catalog), canLend: ctx.role.may(.circulate))
    }

    static func detailPage(_ d: TitleDetail, page: PageContext, canEdit: Bool, canLend: Bool) -> HTML {
        let t = page.t
        let lib = page.libraryID
        let here = WebRoute.title(library: lib, title: d.id).path
        return Layout.page(page, title: d.title) {
            H.el("article", ["class": "book"]) {
                H.el("div", ["class": "book-head"]) {
                    Components.cover(d.coverUrl, title: d.title, t: t, size: "large")
                    H.el("div", [:]) {
                        H.el("h1", [:]) { Text(d.title) }
                        if let sub = d.subtitle { H.el("p", ["class": "subtitle"]) { Text(sub) } }
                        if !d.authors.isEmpty { H.el("p", ["class": "authors"]) { Text(t.format(.by, d.authors.joined(separator: ", "))) } }
                        if let rating = d.rating {
                            H.el("p", ["class": "rating", "aria-label": t(.rating) + ": " + String(format: "%.1f", rating) + "/5"]) {
                                Text(String(repeating: "★", count: Int(rating.rounded())) + String(repeating: "☆", count: max(0, 5 - Int(rating.rounded()))))
                            }
                        }
                        H.el("p", [:]) {
                            Components.badge(d.availability, overdue: d.loans.contains { $0.overdue }, t: t)
                            Text(" " + t(.copiesAvailable, d.availability.available))
                        }
                        if canEdit {
                            H.form(here + "/favorite", csrf: page.csrf, attrs: ["class": "inline"]) {
                                H.button(d.favorite ? "♥ " + t(.unfavorite) : "♡ " + t(.favorite), kind: "quiet",
                                         attrs: ["aria-pressed": d.favorite ? "true" : "false"])
                            }
                        }
                    }
                }
                H.el("div", ["class": "actions"]) {
                    if canLend, d.availability.available > 0 {
                        H.link(t(.checkOut), WebRoute.checkout(library: lib).path(query: [("title", d.id.uuidString)]), cls: "button primary")
                    }
                    if canLend, !d.loans.isEmpty {
                        H.link(t(.returnBook), WebRoute.returnBook(library: lib).path, cls: "button")
                    }
                    if let g = d.links["googleBooks"] { H.el("a", ["href": g, "class": "button quiet", "rel": "noopener", "target": "_blank"]) { Text(t(.viewOnGoogleBooks)) } }
                    if canEdit { H.link(t(.editTitle), here + "/edit", cls: "button quiet") }
                    H.el("button", ["type": "button", "class": "button quiet", "data-share": d.title, "data-share-text": d.title + (d.authors.first.map { " — " + $0 } ?? ""), "hidden": ""]) { Text(t(.share)) }
                }
                H.el("dl", ["class": "facts"]) {
                    Components.fact(t(.isbn), d.isbnHyphenated)
                    Components.fact(t(.publisher), d.publisher)
                    Components.fact(t(.published), d.publishedDate)
                    Components.fact(t(.pages), d.pageCount.map { t.number($0) })
                    Components.fact(t(.languageField), d.language.map { Locale(identifier: t.lang.rawValue).localizedString(forLanguageCode: $0) ?? $0 })
                    Components.fact(t(.categories), d.categories.isEmpty ? nil : d.categories.map(\.name).joined(separator: ", "))
                }
                if let desc = d.description {
                    H.el("section", [:]) {
                        H.el("h2", [:]) { Text(t(.description)) }
                        for para in desc.components(separatedBy: "\n\n") { H.el("p", [:]) { Text(para) } }
                    }
                }
                if !d.loans.isEmpty {
                    H.el("section", [:]) {
                        H.el("h2", [:]) { Text(t(.currentLoans)) }
                        H.el("ul", ["class": "loans"]) {
                            for loan in d.loans {
                                H.el("li", ["class": loan.overdue ? "overdue" : nil]) {
                                    H.el("span", [:]) { Text("\(loan.memberName) (\(loan.memberCardId))") }
                                    H.el("span", [:]) { Text(loan.overdue ? t(.daysOverdue, loan.daysOverdue) : t.format(.dueOn, t.date(loan.dueAt))) }
                                }
                            }
                        }
                    }
                }
                H.el("section", [:]) {
                    H.el("h2", [:]) { Text(t(.copies)) }
                    H.el("ul", ["class": "copies"]) {
                        for copy in d.copies {
                            H.el("li", [:]) {
                                H.el("span", [:]) { Text(t.format(.copyNumber, t.number(copy.copyNumber)) + " · " + copy.barcode) }
                                H.el("span", [:]) { Text(statusText(copy.status, t: t) + (copy.location.map { " · " + $0 } ?? "")) }
                                H.el("a", ["href": APILink.copyBarcode(library: lib, copy: copy.id).path, "class": "label-link"]) {
                                    H.void("img", ["src": APILink.copyBarcode(library: lib, copy: copy.id).path, "alt": t(.barcode) + " " + copy.barcode,
                                                   "class": "label", "loading": "lazy"])
                                }
                            }
                        }
                    }
                    if canEdit {
                        H.form(here + "/copies", csrf: page.csrf, attrs: ["class": "inline-form"]) {
                            H.field(t(.copiesField), name: "count", type: "number", value: "1", extra: ["min": "1", "max": "500"])
                            H.button(t(.addMoreCopies), kind: "quiet")
                        }
                    }
                }
                if canEdit {
                    H.el("section", [:]) {
                        H.form(here + "/notes", csrf: page.csrf) {
                            H.textarea(t(.notes), name: "notes", value: d.notes)
                            H.button(t(.saveNotes), kind: "quiet")
                        }
                    }
                    H.el("section", ["class": "danger"]) {
                        H.form(here + "/delete", csrf: page.csrf) {
                            // The box is the confirmation, with or without JavaScript.
                            H.el("label", ["class": "pick"]) {
                                H.void("input", ["type": "checkbox", "name": "confirm", "value": "true", "required": ""])
                                Text(" " + t.format(.deleteConfirm, d.title))
                            }
                            H.button(t(.deleteTitle), kind: "danger")
                        }
                    }
                }
            }
        }
    }

    static func statusText(_ s: CopyStatus, t: Strings) -> String {
        switch s {
        case .available: t(.statusAvailable)
        case .onLoan: t(.statusOnLoan)
        case .lost: t(.statusLost)
        case .withdrawn: t(.statusWithdrawn)
        }
    }

    @Sendable static func toggleFavorite(req: Request) async throws -> Response {
        let ctx = try await req.library(.catalog)
        let id = try req.uuid("titleID")
        let title = try await Catalog.find(id, library: ctx.libraryID, on: req.db)
        var patch = TitlePatch()
        patch.favorite = !title.favorite
        try await Catalog.update(id, patch, library: ctx, now: req.now, gate: req.application.writeGate, on: req.db)
        return req.seeOther(WebRoute.title(library: ctx.libraryID, title: id).path)
    }

    @Sendable static func saveNotes(req: Request) async throws -> Response {
        let ctx = try await req.library(.catalog)
        let id = try req.uuid("titleID")
        var patch = TitlePatch()
        patch.notes = req.formText("notes") ?? ""
        try await Catalog.update(id, patch, library: ctx, now: req.now, gate: req.application.writeGate, on: req.db)
        return req.seeOther(WebRoute.title(library: ctx.libraryID, title: id).path, flash: req.t(.notesSaved))
    }

    @Sendable static func delete(req: Request) async throws -> Response {
        let ctx = try await req.library(.catalog)
        let id = try req.uuid("titleID")
        let title = try await Catalog.find(id, library: ctx.libraryID, on: req.db)
        guard req.formText("confirm") == "true" else {
            throw AppError(status: .conflict, code: "confirmation_required", message: req.t.format(.deleteConfirm, title.title))
        }
        try await Catalog.delete(id, library: ctx, now: req.now, gate: req.application.writeGate, on: req.db)
        return req.seeOther(WebRoute.catalog(library: ctx.libraryID).path, flash: req.t.format(.deleted, title.title))
    }

    @Sendable static func addCopies(req: Request) async throws -> Response {
        let ctx = try await req.library(.catalog)
        let id = try req.uuid("titleID")
        let count = req.formText("count").flatMap(Int.init) ?? 1
        try await Catalog.addCopies(to: id, CopiesAdd(count: count, location: req.formText("location")), library: ctx, now: req.now,
                                    gate: req.application.writeGate, on: req.db)
        return req.seeOther(WebRoute.title(library: ctx.libraryID, title: id).path, flash: req.t(.copiesAdded))
    }
}
