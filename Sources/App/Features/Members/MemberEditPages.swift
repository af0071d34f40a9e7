import Fluent
import Foundation
import Plot
import ShelfmarkCore
import Vapor

/// Editing a member, and deleting one (with loans out: after confirmation, their books are returned
/// and the history kept).
enum MemberEditPages {
    static func register(_ web: any RoutesBuilder) {
        web.get(.editMember(library: .pattern, member: .pattern), use: editMemberForm)
        web.post(.editMember(library: .pattern, member: .pattern), use: editMember)
        web.post(.deleteMember(library: .pattern, member: .pattern), use: deleteMember)
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
            return try await req.refused(page.render(try await req.page(library: ctx)))
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
