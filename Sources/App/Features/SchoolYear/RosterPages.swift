import Fluent
import Foundation
import MultipartKit
import Plot
import ShelfmarkCore
import Vapor

/// The roster's pages: read a roster (its preview kept as a run), a run to read and apply; a member
/// archived or brought back; the audit log (owners).
enum RosterPages {
    static let maxBody = RosterSync.maxBytes + (64 << 10)

    static func register(_ web: any RoutesBuilder) {
        web.get(.roster(library: .pattern), use: roster)
        web.on(.POST, WebRoute.roster(library: .pattern).pattern, body: .collect(maxSize: ByteCount(value: maxBody)), use: upload).maxBody(maxBody)
        web.get(.rosterRun(library: .pattern, run: .pattern), use: run)
        web.post(.rosterApply(library: .pattern, run: .pattern), use: apply)
        web.post(.memberArchive(library: .pattern, member: .pattern), use: archive)
        web.get(.audit(library: .pattern), use: audit)
        web.get(.rollover(library: .pattern), use: rolloverPage)
        web.post(.rollover(library: .pattern), use: rollover)
        web.post(.rolloverUndo(library: .pattern, rollover: .pattern), use: undoRollover)
        web.post(.memberErase(library: .pattern, member: .pattern), use: erase)
    }

    struct ErasureForm: WebForm {
        var reason: String?
        static var maxLength: [String: Int] { ["reason": Privacy.maxReason] }
    }

    /// Erased on request: to the members, saying so; refused (books out, money owed) on their page.
    @Sendable static func erase(req: Request) async throws -> Response {
        let ctx = try await req.library(.manageMembers)
        let id = try req.uuid("memberID")
        do {
            let form = try req.form(ErasureForm.self)
            try await Privacy.erase(id, reason: form.reason, in: req.scope(ctx))
            return req.seeOther(WebRoute.members(library: ctx.libraryID).path, flash: req.t(.memberErasedFlash))
        } catch let error where error.isFormRefusal {
            return req.seeOther(WebRoute.member(library: ctx.libraryID, member: id).path, flash: req.t.message(error), isError: true)
        }
    }

    @Sendable static func rolloverPage(req: Request) async throws -> HTML {
        let ctx = try await req.library(.manageMembers)
        return try await RolloverPage.make(library: ctx, on: req.db).render(try await req.page(library: ctx))
    }

    /// The classes as the form confirmed them: `from<i>`, `to<i>`, `leave<i>` for each line.
    @Sendable static func rollover(req: Request) async throws -> Response {
        let ctx = try await req.library(.manageMembers)
        var steps: [RolloverInput.Step] = []
        for i in 0..<Rollover.maxClasses {
            guard let from = req.formText("from\(i)") else { break }
            let (to, leave) = (req.formText("to\(i)"), req.formText("leave\(i)") != nil)
            // A class left empty and not leaving keeps its name.
            if to == nil && !leave { continue }
            steps.append(.init(from: from, to: to, leave: leave))
        }
        let input = RolloverInput(classes: steps, clearGoals: req.formText("clearGoals") != nil)
        do {
            let done = try await Rollover.run(input, in: req.scope(ctx))
            return req.seeOther(WebRoute.rollover(library: ctx.libraryID).path,
                                flash: req.t.format(.rolloverDone, req.t.number(done.summary.moved), req.t.number(done.summary.archived)))
        } catch let error where error.isFormRefusal {
            var page = try await RolloverPage.make(library: ctx, on: req.db)
            page.error = req.t.message(error)
            return try await req.refused(page.render(try await req.page(library: ctx)))
        }
    }

    @Sendable static func undoRollover(req: Request) async throws -> Response {
        let ctx = try await req.library(.manageMembers)
        let id = try req.uuid("rolloverID")
        return try await req.seeOther(WebRoute.rollover(library: ctx.libraryID).path) {
            _ = try await Rollover.undo(id, in: req.scope(ctx))
            return req.t(.rolloverUndoneFlash)
        }
    }

    @Sendable static func roster(req: Request) async throws -> HTML {
        let ctx = try await req.library(.manageMembers)
        return try await RosterPage.make(library: ctx, on: req.db).render(try await req.page(library: ctx))
    }

    /// The file read and kept as a run; its preview next, or the page again saying why not.
    @Sendable static func upload(req: Request) async throws -> Response {
        let ctx = try await req.library(.manageMembers)
        var options = RosterSync.Options()
        options.mode = req.formText("mode").flatMap(RosterFile.Mode.init(rawValue:)) ?? .full
        for field in StudentList.Field.allCases {
            if let header = req.formText(field.rawValue + "Column") { options.mapping[field] = String(header.prefix(100)) }
        }
        do {
            let run = try await RosterSync.preview(req.formFile("file"), fileName: fileName(req, field: "file") ?? "", options: options,
                                                   in: req.scope(ctx))
            return req.seeOther(WebRoute.rosterRun(library: ctx.libraryID, run: run.id).path)
        } catch let error where error.isFormRefusal {
            var page = try await RosterPage.make(library: ctx, on: req.db)
            page.error = req.t.message(error)
            return try await req.refused(page.render(try await req.page(library: ctx)))
        }
    }

    /// The name the browser gave the uploaded file.
    static func fileName(_ req: Request, field: String) -> String? {
        guard let parts = try? req.multipartParts(), let part = parts.firstPart(named: field),
              let disposition = part.headers.first(name: "Content-Disposition"),
              let range = disposition.range(of: "filename=\"") else { return nil }
        let rest = disposition[range.upperBound...]
        return rest.firstIndex(of: "\"").map { String(rest[..<$0]).cleanedInput }
    }

    @Sendable static func run(req: Request) async throws -> HTML {
        let ctx = try await req.library(.manageMembers)
        return try await RosterRunPage.make(run: try req.uuid("runID"), library: ctx, now: req.now, on: req.db).render(try await req.page(library: ctx))
    }

    @Sendable static func apply(req: Request) async throws -> Response {
        let ctx = try await req.library(.manageMembers)
        let id = try req.uuid("runID")
        return try await req.seeOther(WebRoute.rosterRun(library: ctx.libraryID, run: id).path) {
            let form = try req.form(ApplyForm.self)
            let role = try form.teachersAs.flatMap { raw -> Role? in
                if raw.isEmpty || raw == "none" { return nil }
                guard let role = Role(rawValue: raw) else { throw SchoolSignInError.badRole(String(raw.prefix(40))) }
                return role
            }
            let run = try await RosterSync.apply(id, teachersAs: role, in: req.scope(ctx))
            return req.t.format(.rosterAppliedFlash, req.t.number(run.plan.added.count), req.t.number(run.plan.changed.count),
                                req.t.number(run.plan.leaving.count))
        }
    }

    struct ApplyForm: WebForm {
        var teachersAs: String?
        static var maxLength: [String: Int] { ["teachersAs": 20] }
    }

    struct ArchiveForm: WebForm {
        var archived: String?
        static var maxLength: [String: Int] { ["archived": 5] }
    }

    @Sendable static func archive(req: Request) async throws -> Response {
        let ctx = try await req.library(.manageMembers)
        let id = try req.uuid("memberID")
        let archived = try req.form(ArchiveForm.self).archived != "false"
        return try await req.seeOther(WebRoute.member(library: ctx.libraryID, member: id).path) {
            let member = try await Members.setArchived(id, archived, in: req.scope(ctx))
            return req.t.format(archived ? .memberArchivedFlash : .memberUnarchivedFlash, member.name)
        }
    }

    @Sendable static func audit(req: Request) async throws -> HTML {
        let ctx = try await req.library(.administer)
        return try await AuditPage.make(library: ctx, paging: Paging(req.query[Int.self, at: "page"]), on: req.db).render(try await req.page(library: ctx))
    }
}
