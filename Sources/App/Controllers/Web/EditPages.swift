import Fluent
import Foundation
import Plot
import ShelfmarkCore
import Vapor

/// Editing a book's every field and a member, and deleting a member (with loans out: after
/// confirmation, their books are returned and the history kept).
enum EditPages {
    static func register(_ web: any RoutesBuilder) {
        web.get(.editTitle(library: .pattern, title: .pattern), use: editTitleForm)
        web.post(.editTitle(library: .pattern, title: .pattern), use: editTitle)
        web.get(.editMember(library: .pattern, member: .pattern), use: editMemberForm)
        web.post(.editMember(library: .pattern, member: .pattern), use: editMember)
        web.post(.deleteMember(library: .pattern, member: .pattern), use: deleteMember)
    }

    @Sendable static func editTitleForm(req: Request) async throws -> HTML {
        let ctx = try await req.library(.catalog)
        let page = try await EditTitlePage.make(titleID: try req.uuid("titleID"), library: ctx, now: req.now, on: req.db)
        return page.render(try await req.page(library: ctx))
    }

    /// Empty fields clear what was there (the form shows every field). A refusal shows the form again
    /// as typed, the reason next to its field.
    /// The edit form as the page sends it: every field each time; an emptied field clears it (where a
    /// PATCH's absent field keeps it), authors and categories separated by commas. Bounds: the API's.
    struct EditTitleForm: WebForm, SchemaConstrained {
        var title, subtitle, authors, isbn, publisher, publishedDate, language, description, coverUrl, categories: String?
        var series, seriesNumber, readingLevel: String?
        var pageCount: Int?
        var rating: Double?
        var totalCopies: Int?

        static var schemaConstraints: [String: JSONValue] {
            var fields = TitlePatch.schemaConstraints
            fields["authors"] = ["maxLength": .number(Double(50 * 302))]
            fields["categories"] = ["maxLength": .number(Double(50 * 102))]
            return fields
        }

        var patch: TitlePatch {
            func list(_ text: String?) -> [String] {
                (text ?? "").split(separator: ",").map { $0.trimmingCharacters(in: .whitespaces) }.filter { !$0.isEmpty }
            }
            var patch = TitlePatch()
            (patch.title, patch.subtitle, patch.isbn, patch.publisher) = (title ?? "", subtitle ?? "", isbn ?? "", publisher ?? "")
            (patch.publishedDate, patch.language, patch.description, patch.coverUrl) = (publishedDate ?? "", language ?? "", description ?? "", coverUrl ?? "")
            (patch.authors, patch.categories) = (list(authors), list(categories))
            (patch.pageCount, patch.rating, patch.totalCopies) = (pageCount, rating, totalCopies)
            (patch.series, patch.seriesNumber, patch.readingLevel) = (series ?? "", seriesNumber ?? "", readingLevel ?? "")
            return patch
        }
    }

    /// A member's edit form: every field each time, an emptied field clears it. Bounds: the API's.
    struct EditMemberForm: WebForm, SchemaConstrained {
        var cardId, firstName, lastName, grade, email, notes, language: String?
        /// The public catalog's PIN: empty keeps it, `removePin` removes it.
        var pin: String?
        var removePin: Bool?

        static var schemaConstraints: [String: JSONValue] { MemberInput.schemaConstraints }
        static var maxLength: [String: Int] { defaultBounds(schemaConstraints).merging(["language": 20, "pin": 64]) { $1 } }
        var patch: MemberPatch {
            MemberPatch(cardId: cardId ?? "", firstName: firstName ?? "", lastName: lastName ?? "", grade: grade ?? "", email: email ?? "",
                        notes: notes ?? "", language: language ?? "")
        }
    }

    @Sendable static func editTitle(req: Request) async throws -> Response {
        let ctx = try await req.library(.catalog)
        let id = try req.uuid("titleID")
        let typed = req.typed(EditTitlePage.fields)
        do {
            let patch = try req.form(EditTitleForm.self).patch
            try await Catalog.update(id, patch, in: req.scope(ctx))
            req.application.enrichmentWorker?.nudge()
            return req.seeOther(WebRoute.title(library: ctx.libraryID, title: id).path, flash: req.t(.titleSaved))
        } catch {
            let appError = JSONErrorMiddleware.appError(for: error)
            guard appError.status.code < 500, appError.status != .notFound, appError.status != .forbidden else { throw error }
            let page = try await EditTitlePage.refused(error, typed: typed, titleID: id, library: ctx, now: req.now, t: req.t, on: req.db)
            let response = try await page.render(try await req.page(library: ctx)).encodeResponse(for: req)
            response.status = .unprocessableEntity
            return response
        }
    }

    @Sendable static func editMemberForm(req: Request) async throws -> HTML {
        let ctx = try await req.library(.manageMembers)
        let page = try await EditMemberPage.make(memberID: try req.uuid("memberID"), library: ctx, now: req.now, on: req.db)
        return page.render(try await req.page(library: ctx))
    }

    @Sendable static func editMember(req: Request) async throws -> Response {
        let ctx = try await req.library(.manageMembers)
        let id = try req.uuid("memberID")
        let typed = req.typed(EditMemberPage.fields)
        do {
            let form = try req.form(EditMemberForm.self)
            if let pin = form.pin { try MemberPortal.checkPIN(pin) }
            _ = try await Members.update(id, form.patch, in: req.scope(ctx))
            if form.pin != nil || form.removePin == true {
                try await MemberPortal.setPIN(form.removePin == true ? nil : form.pin, member: id, in: req.scope(ctx), passwords: req.passwordHashing)
            }
            return req.seeOther(WebRoute.member(library: ctx.libraryID, member: id).path, flash: req.t(.memberSaved))
        } catch let error where error.isFormRefusal {
            let page = try await EditMemberPage.refused(error, typed: typed, memberID: id, library: ctx, now: req.now, t: req.t, on: req.db)
            let response = try await page.render(try await req.page(library: ctx)).encodeResponse(for: req)
            response.status = .unprocessableEntity
            return response
        }
    }

    @Sendable static func deleteMember(req: Request) async throws -> Response {
        let ctx = try await req.library(.manageMembers)
        let id = try req.uuid("memberID")
        let name = try await Members.find(id, library: ctx.libraryID, on: req.db).fullName
        try await Members.delete(id, confirm: try req.form(ConfirmedForm.self).confirm, in: req.scope(ctx))
        return req.seeOther(WebRoute.members(library: ctx.libraryID).path, flash: req.t.format(.memberDeleted, name))
    }
}
