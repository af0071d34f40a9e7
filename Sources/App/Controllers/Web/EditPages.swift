import Fluent
import Foundation
import Plot
import ShelfmarkCore
import Vapor

/// Editing a book's every field (A7) and a member (B1), and deleting a member (with loans out: after
/// confirmation, their books are returned and the history kept).
enum EditPages {
    static func register(_ lib: any RoutesBuilder) {
        lib.get("titles", ":titleID", "edit", use: editTitleForm)
        lib.post("titles", ":titleID", "edit", use: editTitle)
        lib.get("members", ":memberID", "edit", use: editMemberForm)
        lib.post("members", ":memberID", "edit", use: editMember)
        lib.post("members", ":memberID", "delete", use: deleteMember)
    }

    @Sendable static func editTitleForm(req: Request) async throws -> HTML {
        let ctx = try await req.library(.catalog)
        let d = try await TitleQuery.detail(try req.uuid("titleID"), libraryID: ctx.libraryID, now: req.now, on: req.db)
        return try await titleForm(req, ctx: ctx, d: d, error: nil)
    }

    static func titleForm(_ req: Request, ctx: LibraryContext, d: TitleDetail, error: String?) async throws -> HTML {
        let page = try await req.page(library: ctx, flash: error, error: error != nil)
        let t = page.t
        let here = page.library!.base + "/titles/" + d.id.uuidString
        return Layout.page(page, title: t(.editTitle)) {
            H.el("h1", [:]) { Text(t(.editTitle) + ": " + d.title) }
            H.form(here + "/edit", csrf: page.csrf, attrs: ["class": "card book-form"]) {
                H.field(t(.title), name: "title", value: d.title, required: true)
                H.field(t(.subtitle), name: "subtitle", value: d.subtitle)
                H.field(t(.authorsField), name: "authors", value: d.authors.joined(separator: ", "), hint: t(.authorsHint))
                H.field(t(.isbn), name: "isbn", value: d.isbn13, extra: ["inputmode": "numeric"])
                H.field(t(.publisher), name: "publisher", value: d.publisher)
                H.field(t(.publishedDate), name: "publishedDate", value: d.publishedDate)
                H.field(t(.pageCount), name: "pageCount", type: "number", value: d.pageCount.map(String.init), extra: ["min": "1"])
                H.field(t(.languageField), name: "language", value: d.language)
                H.field(t(.rating), name: "rating", type: "number", value: d.rating.map { String(format: "%g", $0) },
                        extra: ["min": "0", "max": "5", "step": "0.5"])
                H.field(t(.categories), name: "categories", value: d.categories.map(\.name).joined(separator: ", "), hint: t(.authorsHint))
                H.textarea(t(.description), name: "description", value: d.description, rows: 6)
                H.field(t(.coverURL), name: "coverUrl", value: d.coverUrl)
                if !d.wishlist {
                    H.field(t(.copiesField), name: "totalCopies", type: "number", value: String(d.availability.total), required: true,
                            extra: ["min": String(d.availability.onLoan), "max": "500"])
                }
                H.button(t(.save))
            }
        }
    }

    /// Empty fields clear what was there (the form shows every field).
    @Sendable static func editTitle(req: Request) async throws -> Response {
        let ctx = try await req.library(.catalog)
        let id = try req.uuid("titleID")
        func list(_ name: String) -> [String] {
            (req.formText(name) ?? "").split(separator: ",").map { $0.trimmingCharacters(in: .whitespaces) }.filter { !$0.isEmpty }
        }
        var patch = TitlePatch()
        patch.title = req.formText("title") ?? ""
        patch.subtitle = req.formText("subtitle") ?? ""
        patch.authors = list("authors")
        patch.isbn = req.formText("isbn") ?? ""
        patch.publisher = req.formText("publisher") ?? ""
        patch.publishedDate = req.formText("publishedDate") ?? ""
        patch.pageCount = req.formText("pageCount").flatMap(Int.init)
        patch.language = req.formText("language") ?? ""
        patch.description = req.formText("description") ?? ""
        patch.coverUrl = req.formText("coverUrl") ?? ""
        patch.categories = list("categories")
        patch.rating = req.formText("rating").flatMap(Double.init)
        patch.totalCopies = req.formText("totalCopies").flatMap(Int.init)
        do {
            try await Catalog.update(id, patch, library: ctx, now: req.now, gate: req.application.writeGate, on: req.db)
            req.application.enrichmentWorker?.nudge()
            return req.seeOther("/libraries/\(ctx.libraryID.uuidString)/titles/\(id.uuidString)", flash: req.t(.titleSaved))
        } catch {
            let appError = JSONErrorMiddleware.appError(for: error)
            guard appError.status.code < 500, appError.status != .notFound, appError.status != .forbidden else { throw error }
            let d = try await TitleQuery.detail(id, libraryID: ctx.libraryID, now: req.now, on: req.db)
            let response = try await titleForm(req, ctx: ctx, d: d, error: req.t.message(appError)).encodeResponse(for: req)
            response.status = .unprocessableEntity
            return response
        }
    }

    @Sendable static func editMemberForm(req: Request) async throws -> HTML {
        let ctx = try await req.library(.manageMembers)
        let d = try await Members.detail(try req.uuid("memberID"), libraryID: ctx.libraryID, now: req.now, on: req.db)
        return try await memberForm(req, ctx: ctx, m: d.member, loansOut: d.loans.count, error: nil)
    }

    static func memberForm(_ req: Request, ctx: LibraryContext, m: MemberDTO, loansOut: Int, error: String?) async throws -> HTML {
        let page = try await req.page(library: ctx, flash: error, error: error != nil)
        let t = page.t
        let here = page.library!.base + "/members/" + m.id.uuidString
        return Layout.page(page, title: t(.editMember)) {
            H.el("h1", [:]) { Text(t(.editMember)) }
            H.form(here + "/edit", csrf: page.csrf, attrs: ["class": "card"]) {
                H.field(t(.cardID), name: "cardId", value: m.cardId, required: true)
                H.field(t(.firstName), name: "firstName", value: m.firstName, required: true)
                H.field(t(.lastName), name: "lastName", value: m.lastName)
                H.field(t(.grade), name: "grade", value: m.grade)
                H.field(t(.email), name: "email", type: "email", value: m.email)
                H.textarea(t(.memberNotes), name: "notes", value: m.notes)
                H.button(t(.save))
            }
            H.el("section", ["class": "danger"]) {
                H.form(here + "/delete", csrf: page.csrf) {
                    if loansOut > 0 {
                        H.el("p", ["class": "warning"]) { Text(t(.loansOut, loansOut)) }
                    }
                    // Without JavaScript the librarian confirms with this box.
                    H.el("label", ["class": "pick"]) {
                        H.void("input", ["type": "checkbox", "name": "confirm", "value": "true", "required": ""])
                        Text(" " + t.format(.deleteMemberConfirm, m.name))
                    }
                    H.button(t(.deleteMember), kind: "danger")
                }
            }
        }
    }

    @Sendable static func editMember(req: Request) async throws -> Response {
        let ctx = try await req.library(.manageMembers)
        let id = try req.uuid("memberID")
        let patch = MemberPatch(cardId: req.formText("cardId") ?? "", firstName: req.formText("firstName") ?? "", lastName: req.formText("lastName") ?? "",
                                grade: req.formText("grade") ?? "", email: req.formText("email") ?? "", notes: req.formText("notes") ?? "")
        do {
            _ = try await Members.update(id, patch, library: ctx, now: req.now, gate: req.application.writeGate, on: req.db)
            return req.seeOther("/libraries/\(ctx.libraryID.uuidString)/members/\(id.uuidString)", flash: req.t(.memberSaved))
        } catch let error as AppError where error.status.code < 500 && error.status != .notFound && error.status != .forbidden {
            let d = try await Members.detail(id, libraryID: ctx.libraryID, now: req.now, on: req.db)
            let response = try await memberForm(req, ctx: ctx, m: d.member, loansOut: d.loans.count, error: req.t.message(error)).encodeResponse(for: req)
            response.status = .unprocessableEntity
            return response
        }
    }

    @Sendable static func deleteMember(req: Request) async throws -> Response {
        let ctx = try await req.library(.manageMembers)
        let id = try req.uuid("memberID")
        let name = try await Members.find(id, library: ctx.libraryID, on: req.db).fullName
        try await Members.delete(id, confirm: req.formText("confirm") == "true", library: ctx, now: req.now, gate: req.application.writeGate, on: req.db)
        return req.seeOther("/libraries/\(ctx.libraryID.uuidString)/members", flash: req.t.format(.memberDeleted, name))
    }
}
