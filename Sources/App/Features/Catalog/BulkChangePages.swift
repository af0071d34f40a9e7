import Fluent
import Foundation
import Plot
import ShelfmarkCore
import SQLKit
import Vapor

/// Many books at once on the web: the catalog's select mode sends the chosen books and a change
/// here; this asks once (the books, what will change), makes it, and goes back to the catalog, where
/// the last change waits to be undone.
enum BulkChangePages {
    static func register(_ web: any RoutesBuilder) {
        web.post(.catalogChange(library: .pattern), use: change)
        web.post(.catalogUndo(library: .pattern), use: undo)
    }

    @Sendable static func change(req: Request) async throws -> Response {
        let ctx = try await req.library(.catalog)
        let back = WebRoute.catalog(library: ctx.libraryID).path(query: [("select", "1")])
        let ids = req.formValues("title").compactMap(UUID.init(uuidString:))
        let action = req.formText("action").flatMap(BulkAction.init(rawValue:))
        let value = req.formText("value")
        // Back to the catalog as it was shown (its search, chip and page): a path of this library's catalog only.
        let catalog = WebRoute.catalog(library: ctx.libraryID).path
        let shown = req.formText("back").flatMap { $0 == catalog || $0.hasPrefix(catalog + "?") ? $0 : nil } ?? catalog
        do {
            guard !ids.isEmpty else { throw BulkChangeError.noTitles }
            guard ids.count <= BulkChanges.maxTitles else { throw BulkChangeError.tooManyTitles(max: BulkChanges.maxTitles) }
            guard let action else { throw RequestError.oneOf(field: "action", allowed: BulkAction.allCases.map(\.rawValue), got: "") }
            let checked = try BulkChanges.value(action, value)
            guard req.formText("confirm") == "1" else {
                var titles: [BulkChangePage.Book] = []
                for chunk in ids.chunked(500) {
                    titles += try await req.db.sql.raw("""
                        SELECT id, title, authors, sort_key FROM titles
                        WHERE library_no = \(LibraryNumber.of(ctx.libraryID)) AND wishlist = \(bind: false) AND id IN (\(binds: chunk))
                        """).all(decoding: BulkChangePage.Book.self)
                }
                titles.sort { $0.sort_key < $1.sort_key }
                guard !titles.isEmpty else { throw BulkChangeError.noTitles }
                let page = BulkChangePage(libraryID: ctx.libraryID, action: action, value: checked, titles: titles, back: shown)
                return try await page.render(try await req.page(library: ctx)).encodeResponse(for: req)
            }
            let report = try await BulkChanges.apply(BulkChangeInput(titleIds: ids, action: action, value: checked), in: req.scope(ctx))
            let t = req.t
            var said = t.format(.bulkDone, t.bulkChange(report.action, report.value), t(.titles, report.changed))
            if !report.skipped.isEmpty { said += " " + t.format(.bulkSkippedSome, t(.titles, report.skipped.count), t.skipReasons(report.skipped)) }
            return req.seeOther(shown, flash: said)
        } catch let error where error.isFormRefusal {
            return req.seeOther(back, flash: req.t.message(error), isError: true)
        }
    }

    @Sendable static func undo(req: Request) async throws -> Response {
        let ctx = try await req.library(.catalog)
        return try await req.seeOther(WebRoute.catalog(library: ctx.libraryID).path) {
            let report = try await BulkChanges.undo(in: req.scope(ctx))
            return req.t.format(.bulkUndone, req.t.bulkChange(report.action, report.value), req.t(.titles, report.changed))
        }
    }
}

/// The one question before a change to many books: which books, and what happens to them.
struct BulkChangePage: Sendable {
    var libraryID: UUID
    var action: BulkAction
    var value: String?
    var titles: [Book]
    /// The catalog as it was shown when the books were chosen.
    var back: String

    struct Book: Decodable, Sendable {
        var id: UUID
        var title: String
        var authors: [String]
        var sort_key: String
    }

    func render(_ page: PageContext) -> HTML {
        let t = page.t
        let (lib, action, value, titles, back) = (libraryID, action, value, titles, back)
        let heading = t.format(.bulkConfirmHeading, t.bulkChange(action, value), t(.titles, titles.count))
        return Layout.page(page, title: t(.bulkConfirmTitle)) {
            H.el(.h1, [:]) { EscapedText(t(.bulkConfirmTitle)) }
            H.form(WebRoute.catalogChange(library: lib).path, csrf: page.csrf, attrs: [.class: "card bulk-confirm"]) {
                H.el(.p, [.class: "lead"]) { EscapedText(heading) }
                if action == .delete { H.el(.p, [.class: "warning"]) { EscapedText(t(.bulkDeleteWarning)) } }
                H.el(.p, [.class: "hint"]) { EscapedText(t(.bulkUndoHint)) }
                H.el(.ul, [.class: "titles compact"]) {
                    for item in titles {
                        H.el(.li, [:]) {
                            H.void(.input, [.type: "hidden", .name: "title", .value: item.id.uuidString])
                            H.el(.span, [.class: "name"]) { EscapedText(item.title) }
                            if !item.authors.isEmpty { H.el(.span, [.class: "authors"]) { EscapedText(" · " + item.authors.joined(separator: ", ")) } }
                        }
                    }
                }
                H.void(.input, [.type: "hidden", .name: "action", .value: action.rawValue])
                if let value { H.void(.input, [.type: "hidden", .name: "value", .value: value]) }
                H.void(.input, [.type: "hidden", .name: "confirm", .value: "1"])
                H.void(.input, [.type: "hidden", .name: "back", .value: back])
                H.el(.div, [.class: "actions"]) {
                    H.button(t.format(action == .delete ? .bulkDeleteButton : .bulkChangeButton, t(.titles, titles.count)),
                             kind: action == .delete ? "danger" : "primary")
                    H.link(t(.backToCatalog), WebRoute.catalog(library: lib).path(query: [("select", "1")]), cls: "button quiet")
                }
            }
        }
    }
}

extension Strings {
    /// A change as the catalog says it: "Move to shelf: “Room 4”", "Delete".
    func bulkChange(_ action: BulkAction, _ value: String?) -> String {
        let name = self(action.label)
        guard action != .delete else { return name }
        return format(.bulkChangeWithValue, name, value ?? self(.bulkNoValue))
    }

    /// Why books were left: "on loan, held".
    func skipReasons(_ skipped: [BulkSkip]) -> String {
        BulkSkip.Reason.allCases.filter { reason in skipped.contains { $0.reason == reason } }.map { self($0.label) }.joined(separator: ", ")
    }
}

extension BulkAction {
    var label: L {
        switch self {
        case .addCategory: .bulkAddCategory
        case .removeCategory: .bulkRemoveCategory
        case .shelf: .bulkShelf
        case .readingLevel: .bulkReadingLevel
        case .series: .bulkSeries
        case .callNumberPrefix: .bulkCallNumberPrefix
        case .delete: .bulkDelete
        }
    }
}

extension BulkSkip.Reason {
    var label: L {
        switch self {
        case .notInCatalog: .bulkSkipNotInCatalog
        case .onLoan: .bulkSkipOnLoan
        case .holds: .bulkSkipHolds
        case .readersNotes: .bulkSkipReadersNotes
        }
    }
}
