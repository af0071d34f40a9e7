import Fluent
import Foundation
import NIOFoundationEssentialsCompat
import ShelfmarkCore
import Vapor

/// Members: the list and search, one member, adding, editing and deleting, class lists in and out.
enum MembersController {
    static func register(_ api: APIRoutes) {
        let lib = api.grouped("libraries", ":libraryID")
        lib.on(.GET, .members(library: .pattern), doc: .init(summary: "Members, searched by card ID, name or class (B1)", tag: "Members",
                                           query: [.init(name: "q", description: "Card ID, name or class; each word matches a word prefix."),
                                                   .init(name: "sort", description: "The order: name (the default), card or grade (class, then name).",
                                                         schema: ["enum": .array(MemberSort.allCases.map { .string($0.rawValue) })]),
                                                   .init(name: "archived", kind: .boolean,
                                                         description: "true: those who have left (archived by a roster sync, the rollover or a librarian) instead of the members."),
                                                   .limit, .offset],
                                           response: MemberDTO.self, responseIsArray: true), use: members)
        lib.on(.POST, "members", "import", doc: .init(
            summary: "Import a class list or member list (CSV: card ID, first and last name or one name, class, e-mail, in any order; at most 2 MB). Every good line is added; a card ID the library has (whatever its case) is skipped, and each skipped or refused line is named in the report",
            tag: "Members", upload: ["text/csv", "application/octet-stream"], response: MemberImportReport.self),
            body: .collect(maxSize: ByteCount(value: MemberExchange.maxBytes)), use: importMembers)
        lib.on(.GET, .membersExport(library: .pattern), doc: .init(
            summary: "The members as CSV (Card ID, First Name, Last Name, Class, Email), by class and name; it imports back", tag: "Members"),
            use: exportMembers)
        lib.on(.POST, "members", doc: .init(summary: "Add a member; the card ID is unique in the library", tag: "Members",
                                            request: MemberInput.self, response: MemberDTO.self, status: .created), use: createMember)
        lib.on(.GET, "members", ":memberID", doc: .init(summary: "A member with current loans and history", tag: "Members",
                                                        response: MemberDetail.self), use: member)
        lib.on(.PATCH, "members", ":memberID", doc: .init(summary: "Edit a member", tag: "Members", request: MemberPatch.self,
                                                          response: MemberDTO.self), use: updateMember)
        lib.on(.DELETE, "members", ":memberID", doc: .init(
            summary: "Delete a member; with loans out, answers 409 member_has_loans unless confirm=true, which returns the books first (history kept)",
            tag: "Members", query: [.init(name: "confirm", kind: .boolean, description: "Return the member's loans and delete.", schema: ["enum": [true]])],
            status: .noContent), use: deleteMember)
    }

    @Sendable static func importMembers(req: Request) async throws -> MemberImportReport {
        let ctx = try await req.library(.manageMembers)
        return try await MemberExchange.importList(try req.uploadedBytes(), in: req.scope(ctx))
    }

    @Sendable static func exportMembers(req: Request) async throws -> Response {
        let ctx = try await req.library(.manageMembers)
        return ExchangeController.download(try await MemberExchange.exportCSV(libraryID: ctx.libraryID, on: req.db), type: "text/csv; charset=utf-8",
                                           name: "library_members.csv")
    }

    @Sendable static func members(req: Request) async throws -> [MemberDTO] {
        let ctx = try await req.library(.read)
        let (limit, offset) = try req.paging
        var sort = MemberSort.name
        if let raw = req.query[String.self, at: "sort"], !raw.isEmpty {
            guard let chosen = MemberSort(rawValue: raw) else {
                throw RequestError.oneOf(field: "sort", allowed: MemberSort.allCases.map(\.rawValue), got: raw)
            }
            sort = chosen
        }
        let archived = try req.flag("archived")
        return try await Members.list(query: req.query[String.self, at: "q"], sort: sort, archived: archived, libraryID: ctx.libraryID, limit: limit,
                                      offset: offset, on: req.db)
            .map { $0.visible(to: ctx.role) }
    }

    @Sendable static func createMember(req: Request) async throws -> Response {
        let ctx = try await req.library(.manageMembers)
        return try await req.created(try await Members.create(try req.content.decode(MemberInput.self), in: req.scope(ctx)))
    }

    @Sendable static func member(req: Request) async throws -> MemberDetail {
        let ctx = try await req.library(.read)
        var detail = try await Members.detail(try req.uuid("memberID"), libraryID: ctx.libraryID, now: req.now, on: req.db)
        detail.member = detail.member.visible(to: ctx.role)
        return detail
    }

    @Sendable static func updateMember(req: Request) async throws -> MemberDTO {
        let ctx = try await req.library(.manageMembers)
        return try await Members.update(try req.uuid("memberID"), try req.content.decode(MemberPatch.self), in: req.scope(ctx))
    }

    @Sendable static func deleteMember(req: Request) async throws -> HTTPStatus {
        let ctx = try await req.library(.manageMembers)
        try await Members.delete(try req.uuid("memberID"), confirm: req.confirmed, in: req.scope(ctx))
        return .noContent
    }
}
