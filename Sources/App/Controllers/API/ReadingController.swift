import Fluent
import Foundation
import ShelfmarkCore
import Vapor

/// Reading life (E1–E3): reads, progress (append-only: an offline client sends its events later,
/// each with its own id and moment), goals and statistics. Your own reading is yours alone; staff
/// who lend may keep a member's log (`memberId`).
enum ReadingController {
    static let memberParam = RouteDoc.Param(name: "memberId", description: "A member's reading log instead of your own (staff who lend).",
                                            format: "uuid")

    static func register(_ api: APIRoutes) {
        let lib = api.grouped("libraries", ":libraryID")
        lib.on(.GET, "reads", doc: .init(summary: "Your reads (or a member's), most recently active first (E1)", tag: "Reading",
                                         query: [memberParam, .oneOf("status", ReadStatus.allCases.map(\.rawValue), "Only reads of this status."),
                                                 .init(name: "titleId", description: "Only reads of this title.", format: "uuid"), .limit, .offset],
                                         response: ReadDTO.self, responseIsArray: true), use: list)
        lib.on(.POST, "reads", doc: .init(summary: "Start a read of a title (a re-read is a new read); status want_to_read by default",
                                          tag: "Reading", request: ReadInput.self, response: ReadDTO.self, status: .created), use: start)
        lib.on(.GET, "reads", ":readID", doc: .init(summary: "A read with its progress events, oldest first", tag: "Reading",
                                                    query: [memberParam], response: ReadDetail.self), use: detail)
        lib.on(.PATCH, "reads", ":readID", doc: .init(summary: "Change a read's status, dates, rating or review", tag: "Reading",
                                                      query: [memberParam], request: ReadPatch.self, response: ReadDTO.self), use: update)
        lib.on(.DELETE, "reads", ":readID", doc: .init(summary: "Delete a read and its progress", tag: "Reading", query: [memberParam],
                                                       status: .noContent), use: delete)
        lib.on(.POST, "reads", ":readID", "progress", doc: .init(
            summary: "Record progress: exactly one of page, percent, pagesRead, label or phrase (a spoken phrase in en/de/ga/zh, E2). Append-only: an event id already recorded is not recorded twice; `at` places a late event in order. Reaching the last page finishes the read",
            tag: "Reading", query: [memberParam], request: ProgressInput.self, response: ReadDTO.self, status: .created), use: progress)
        lib.on(.POST, "titles", ":titleID", "progress", doc: .init(
            summary: "Record progress on a title: on your open read of it, or on a new read (a finished book read again is a re-read)",
            tag: "Reading", request: ProgressInput.self, response: ReadDTO.self, status: .created), use: progressOnTitle)
        lib.on(.POST, "reading", "spoken", doc: .init(
            summary: "What a spoken phrase says (a page, a percentage or pages read), without recording it (E2)", tag: "Reading",
            request: SpokenInput.self, response: SpokenDTO.self), use: spoken)
        lib.on(.GET, "reading", "stats", doc: .init(
            summary: "Reading statistics for a year: books and pages per month and year, streaks, goal pace, statuses, ratings, top authors and categories, current reads' pace (E3)",
            tag: "Reading", query: [memberParam, .init(name: "year", kind: .integer, description: "The year (default this year).",
                                                       schema: ["minimum": 1900, "maximum": 2200])],
            response: ReadingStatsDTO.self), use: stats)
        lib.on(.GET, "reading", "export", doc: .init(
            summary: "Your reading history (or a member's) as CSV in Goodreads' layout: one line per book with its latest read, Read Count its finished reads; it imports back here and into Goodreads-compatible apps",
            tag: "Reading", query: [memberParam]), use: export)
        lib.on(.PUT, "reading", "goal", doc: .init(
            summary: "Set your (or a member's) goal for a year in books and/or pages; neither removes it (E3)", tag: "Reading",
            request: GoalInput.self, response: GoalDTO.self), use: setGoal)
    }

    /// The reader a request is about: the user, or `memberId` (a member of this library; staff who lend).
    static func reader(_ req: Request, _ ctx: LibraryContext, memberID: UUID?) async throws -> Reader {
        guard let memberID else { return .user(ctx.user.id) }
        guard ctx.role.may(.circulate) else { throw AccountError.roleTooLow(ctx.role, needs: Role.Action.circulate.minimumRole) }
        _ = try await Members.find(memberID, library: ctx.libraryID, on: req.db)
        return .member(memberID)
    }

    static func queryMember(_ req: Request) throws -> UUID? {
        guard let raw = req.query[String.self, at: "memberId"], !raw.isEmpty else { return nil }
        guard let id = UUID(uuidString: raw) else {
            throw AppError(status: .badRequest, code: "invalid", message: "`memberId` is not a valid id.", field: "memberId")
        }
        return id
    }

    static func language(_ req: Request, _ raw: String?) -> SpokenProgress.Language {
        if let raw, let lang = Lang(rawValue: raw) ?? Lang.allCases.first(where: { raw.lowercased().hasPrefix($0.rawValue.prefix(2)) }) {
            return lang.spoken
        }
        return req.lang.spoken
    }

    @Sendable static func list(req: Request) async throws -> [ReadDTO] {
        let ctx = try await req.library(.read)
        let (limit, offset) = try req.paging
        var status: ReadStatus? = nil
        if let raw = req.query[String.self, at: "status"], !raw.isEmpty { status = try ReadingLog.parseStatus(raw) }
        var titleID: UUID? = nil
        if let raw = req.query[String.self, at: "titleId"], !raw.isEmpty {
            guard let id = UUID(uuidString: raw) else { throw AppError(status: .badRequest, code: "invalid", message: "`titleId` is not a valid id.", field: "titleId") }
            titleID = id
        }
        return try await ReadingLog.list(reader: reader(req, ctx, memberID: queryMember(req)), status: status, titleID: titleID,
                                         libraryID: ctx.libraryID, limit: limit, offset: offset, on: req.db)
    }

    @Sendable static func start(req: Request) async throws -> Response {
        let ctx = try await req.library(.read)
        let input = try req.content.decode(ReadInput.self)
        return try await req.created(try await ReadingLog.start(input, reader: reader(req, ctx, memberID: input.memberId), in: req.scope(ctx)))
    }

    @Sendable static func detail(req: Request) async throws -> ReadDetail {
        let ctx = try await req.library(.read)
        return try await ReadingLog.detail(try req.uuid("readID"), reader: reader(req, ctx, memberID: queryMember(req)), libraryID: ctx.libraryID, on: req.db)
    }

    @Sendable static func update(req: Request) async throws -> ReadDTO {
        let ctx = try await req.library(.read)
        return try await ReadingLog.update(try req.uuid("readID"), try req.content.decode(ReadPatch.self),
                                           reader: reader(req, ctx, memberID: queryMember(req)), in: req.scope(ctx))
    }

    @Sendable static func delete(req: Request) async throws -> HTTPStatus {
        let ctx = try await req.library(.read)
        try await ReadingLog.delete(try req.uuid("readID"), reader: reader(req, ctx, memberID: queryMember(req)), in: req.scope(ctx))
        return .noContent
    }

    @Sendable static func progress(req: Request) async throws -> Response {
        let ctx = try await req.library(.read)
        let input = try req.content.decode(ProgressInput.self)
        let read = try await ReadingLog.addProgress(input, to: try req.uuid("readID"), reader: reader(req, ctx, memberID: queryMember(req)),
                                                    language: language(req, input.language), in: req.scope(ctx))
        return try await req.created(read)
    }

    @Sendable static func progressOnTitle(req: Request) async throws -> Response {
        let ctx = try await req.library(.read)
        let input = try req.content.decode(ProgressInput.self)
        let read = try await ReadingLog.progressOnTitle(try req.uuid("titleID"), input, reader: reader(req, ctx, memberID: input.memberId),
                                                        language: language(req, input.language), in: req.scope(ctx))
        return try await req.created(read)
    }

    @Sendable static func spoken(req: Request) async throws -> SpokenDTO {
        _ = try await req.library(.read)
        let input = try req.content.decode(SpokenInput.self)
        let phrase = try Check.required(input.phrase, field: "phrase", max: SpokenProgress.maxPhraseLength)
        do {
            switch try SpokenProgress.parse(phrase, language: language(req, input.language)) {
            case .page(let n): return SpokenDTO(page: n)
            case .percent(let n): return SpokenDTO(percent: n)
            case .pagesRead(let n): return SpokenDTO(pagesRead: n)
            }
        } catch .noNumber {
            throw ReadingError.noPageHeard(phrase: phrase)
        } catch .outOfRange(let n) {
            throw ReadingError.heardOutOfRange(n)
        }
    }

    @Sendable static func stats(req: Request) async throws -> ReadingStatsDTO {
        let ctx = try await req.library(.read)
        let year = try req.intQuery("year", default: ctx.policy.calendar.component(.year, from: req.now), range: ReadingLog.goalYears)
        return try await ReadingLog.stats(year: year, reader: reader(req, ctx, memberID: queryMember(req)), in: req.scope(ctx))
    }

    @Sendable static func export(req: Request) async throws -> Response {
        let ctx = try await req.library(.read)
        let csv = try await ReadingLog.exportGoodreadsCSV(reader: reader(req, ctx, memberID: queryMember(req)), libraryID: ctx.libraryID, on: req.db)
        return ExchangeController.download(Data(csv.utf8), type: "text/csv; charset=utf-8", name: "reading_history.csv")
    }

    @Sendable static func setGoal(req: Request) async throws -> GoalDTO {
        let ctx = try await req.library(.read)
        let input = try req.content.decode(GoalInput.self)
        return try await ReadingLog.setGoal(year: input.year, books: input.books, pages: input.pages,
                                            reader: reader(req, ctx, memberID: input.memberId), in: req.scope(ctx))
    }
}

extension Lang {
    var spoken: SpokenProgress.Language {
        switch self {
        case .en: .en
        case .de: .de
        case .ga: .ga
        case .zh: .zh
        }
    }
}

extension ReadInput: SchemaConstrained {
    static var schemaConstraints: [String: JSONValue] {
        ["status": ["enum": .array(ReadStatus.allCases.map { .string($0.rawValue) })], "rating": Rule.rating,
         "review": Rule.optionalText(20_000), "startedAt": Rule.pastMoment, "finishedAt": Rule.pastMoment]
    }
}

extension ReadPatch: SchemaConstrained {
    static var schemaConstraints: [String: JSONValue] { ReadInput.schemaConstraints }
}

extension ProgressInput: SchemaConstrained {
    static var schemaConstraints: [String: JSONValue] {
        ["page": Rule.range(SpokenProgress.pageRange), "percent": Rule.range(SpokenProgress.percentRange),
         "pagesRead": Rule.range(SpokenProgress.pageRange), "label": Rule.text(ProgressEntry.labelMaxLength),
         "phrase": Rule.text(SpokenProgress.maxPhraseLength), "language": ["enum": ["en", "de", "ga", "zh", "zh-Hans"]],
         "at": Rule.pastMoment,
         ".": ["oneOf": .array(oneProgress)]]
    }

    /// Exactly one of page, percent, pagesRead or phrase; or a label alone.
    private static var oneProgress: [JSONValue] {
        let measures = ["page", "percent", "pagesRead", "phrase"]
        let labelAlone: JSONValue = ["required": ["label"],
                                     "not": ["anyOf": .array(measures.map { ["required": [.string($0)]] })]]
        return measures.map { ["required": [.string($0)]] } + [labelAlone]
    }
}

extension SpokenInput: SchemaConstrained {
    static var schemaConstraints: [String: JSONValue] {
        ["phrase": Rule.text(SpokenProgress.maxPhraseLength), "language": ["enum": ["en", "de", "ga", "zh", "zh-Hans"]]]
    }
}

extension GoalInput: SchemaConstrained {
    static var schemaConstraints: [String: JSONValue] {
        ["year": Rule.range(ReadingLog.goalYears), "books": Rule.range(1...10_000), "pages": Rule.range(1...10_000_000)]
    }
}
