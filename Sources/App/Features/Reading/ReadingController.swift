import Fluent
import Foundation
import NIOFoundationEssentialsCompat
import ShelfmarkCore
import Vapor

/// Reading life: reads, progress (append-only: an offline client sends its events later,
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
        lib.on(.GET, .readingExport(library: .pattern), doc: .init(
            summary: "Your reading history (or a member's) as CSV in Goodreads' layout: one line per book with its latest read, Read Count its finished reads; it imports back here and into Goodreads-compatible apps",
            tag: "Reading", query: [memberParam]), use: export)
        lib.on(.POST, "titles", ":titleID", "photos", doc: .init(
            summary: "Upload a photo of a page (JPEG, PNG, WebP …, at most 20 MB; raw body or multipart `file`); its phone rotation is applied, a large photo brought to 2,800 px, and the page straightened where its edges are found against the desk (`corners` says where; PUT …/corners null undoes it) (E4)",
            tag: "Reading", query: [.init(name: "page", description: "The page as printed (\"157\", \"ix\").", schema: ["maxLength": 20])],
            upload: ["image/jpeg", "image/png", "image/webp", "application/octet-stream"], response: PhotoDTO.self, status: .created),
            body: .collect(maxSize: ByteCount(value: PagePhotos.maxBytes + 65_536)), use: uploadPhoto)
        lib.on(.GET, "titles", ":titleID", "photos", doc: .init(summary: "Your page photos of a title, newest first", tag: "Reading",
                                                              response: PhotoDTO.self, responseIsArray: true), use: photos)
        lib.on(.GET, "photos", ":photoID", doc: .init(summary: "A page photo", tag: "Reading", response: PhotoDTO.self), use: photo)
        for part in ["image", "thumbnail", "original"] {
            lib.on(.GET, .photo(library: .pattern, photo: .pattern, part: part), doc: .init(
                summary: part == "original" ? "The photo as uploaded" : part == "image" ? "The page (straightened when cropped), JPEG" : "A thumbnail of the page, JPEG",
                tag: "Reading"), use: { try await photoBytes(req: $0, part: part) })
        }
        lib.on(.PUT, "photos", ":photoID", "corners", doc: .init(
            summary: "Straighten the page by its four corners (fractions of the upright photo, clockwise from the top left) from the original; null undoes the crop. Clears the markup",
            tag: "Reading", request: CornersInput.self, response: PhotoDTO.self), use: setCorners)
        lib.on(.PUT, "photos", ":photoID", "markup", doc: .init(
            summary: "Replace the markup layer (pen, pencil and highlighter strokes, tool `pen`, `pencil` or `highlighter`; the photo itself is not changed)", tag: "Reading",
            request: PhotoMarkup.self, response: PhotoDTO.self), use: setMarkup)
        lib.on(.DELETE, "photos", ":photoID", doc: .init(summary: "Delete a page photo (its quotes stay)", tag: "Reading", status: .noContent),
               use: deletePhoto)
        lib.on(.POST, "photos", ":photoID", "text", doc: .init(
            summary: "The text on the page by OCR (the reader's language and English), to trim into a quote (E5)", tag: "Reading",
            response: PhotoText.self), use: photoText)
        lib.on(.GET, "quotes", doc: .init(summary: "Your quotes and notes, newest first: of a title, or matching words (E5)", tag: "Reading",
                                          query: [.init(name: "titleId", description: "Only quotes from this title.", format: "uuid"),
                                                  .init(name: "q", description: "Words of the quote, the note, the title or the author, as word prefixes."),
                                                  .limit, .offset],
                                          response: QuoteList.self), use: quotes)
        lib.on(.POST, "quotes", doc: .init(summary: "Keep a quote or note from a title, with its page (E5)", tag: "Reading",
                                           request: QuoteInput.self, response: QuoteDTO.self, status: .created), use: addQuote)
        lib.on(.DELETE, "quotes", ":quoteID", doc: .init(summary: "Delete a quote", tag: "Reading", status: .noContent), use: deleteQuote)
        lib.on(.PUT, "reading", "goal", doc: .init(
            summary: "Set your (or a member's) goal for a year in books and/or pages; neither removes it (E3)", tag: "Reading",
            request: GoalInput.self, response: GoalDTO.self), use: setGoal)
    }

    /// The reader a request is about: the user, or `memberId` (a member of this library; staff who lend).
    static func reader(_ req: Request, _ ctx: LibraryContext, memberID: UUID?) async throws -> Reader {
        guard let memberID else { return .user(ctx.user.id) }
        _ = try await member(req, ctx, id: memberID)
        return .member(memberID)
    }

    /// A member whose reading log the request is about: this library's, and only for staff who lend.
    static func member(_ req: Request, _ ctx: LibraryContext, id: UUID) async throws -> Member {
        guard ctx.role.may(.circulate) else { throw AccountError.roleTooLow(ctx.role, needs: Role.Action.circulate.minimumRole) }
        return try await Members.find(id, library: ctx.libraryID, on: req.db)
    }

    static func queryMember(_ req: Request) throws -> UUID? { try req.uuidQuery("memberId") }

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
        let titleID = try req.uuidQuery("titleId")
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

    @Sendable static func uploadPhoto(req: Request) async throws -> Response {
        let ctx = try await req.library(.read)
        let photo = try await PagePhotos.upload(try req.uploadedBytes(), titleID: try req.uuid("titleID"), page: req.query[String.self, at: "page"], userID: ctx.user.id,
                                                in: req.scope(ctx), pool: req.application.threadPool)
        return try await req.created(photo)
    }

    @Sendable static func photos(req: Request) async throws -> [PhotoDTO] {
        let ctx = try await req.library(.read)
        return try await PagePhotos.list(titleID: try req.uuid("titleID"), userID: ctx.user.id, libraryID: ctx.libraryID, on: req.db)
    }

    @Sendable static func photo(req: Request) async throws -> PhotoDTO {
        let ctx = try await req.library(.read)
        return try await PagePhotos.find(try req.uuid("photoID"), userID: ctx.user.id, library: ctx.libraryID, on: req.db).dto
    }

    static func photoBytes(req: Request, part: String) async throws -> Response {
        let ctx = try await req.library(.read)
        let photo = try await PagePhotos.find(try req.uuid("photoID"), userID: ctx.user.id, library: ctx.libraryID, on: req.db)
        let bytes = part == "original" ? photo.original : part == "thumbnail" ? photo.thumbnail : photo.image
        var headers = HTTPHeaders()
        headers.replaceOrAdd(name: .contentType, value: part == "original" ? (CoverStore.sniff(bytes) ?? "application/octet-stream") : "image/jpeg")
        headers.replaceOrAdd(name: "X-Content-Type-Options", value: "nosniff")
        headers.replaceOrAdd(name: "Content-Security-Policy", value: "default-src 'none'; img-src 'self'; sandbox")
        headers.replaceOrAdd(name: .cacheControl, value: "private, no-cache")
        headers.replaceOrAdd(name: .eTag, value: "\"\(Int(photo.updatedAt.timeIntervalSince1970 * 1000))-\(part)\"")
        if part == "original" { headers.replaceOrAdd(name: .contentDisposition, value: "inline; filename=\"page.jpg\"") }
        return Response(status: .ok, headers: headers, body: .init(data: bytes))
    }

    @Sendable static func setCorners(req: Request) async throws -> PhotoDTO {
        let ctx = try await req.library(.read)
        let input = try req.content.decode(CornersInput.self)
        return try await PagePhotos.setCorners(try req.uuid("photoID"), corners: input.corners, userID: ctx.user.id, in: req.scope(ctx),
                                               pool: req.application.threadPool)
    }

    @Sendable static func setMarkup(req: Request) async throws -> PhotoDTO {
        let ctx = try await req.library(.read)
        return try await PagePhotos.setMarkup(try req.uuid("photoID"), try req.content.decode(PhotoMarkup.self), userID: ctx.user.id, in: req.scope(ctx))
    }

    @Sendable static func deletePhoto(req: Request) async throws -> HTTPStatus {
        let ctx = try await req.library(.read)
        try await PagePhotos.delete(try req.uuid("photoID"), userID: ctx.user.id, in: req.scope(ctx))
        return .noContent
    }

    @Sendable static func photoText(req: Request) async throws -> PhotoText {
        let ctx = try await req.library(.read)
        return PhotoText(text: try await PagePhotos.text(try req.uuid("photoID"), userID: ctx.user.id, library: ctx.libraryID,
                                                         language: req.lang.rawValue, on: req.db, pool: req.application.threadPool))
    }

    @Sendable static func quotes(req: Request) async throws -> QuoteList {
        let ctx = try await req.library(.read)
        let (limit, offset) = try req.paging
        let titleID = try req.uuidQuery("titleId")
        let (items, total) = try await Quotes.list(userID: ctx.user.id, titleID: titleID, query: req.query[String.self, at: "q"],
                                                   libraryID: ctx.libraryID, limit: limit, offset: offset, on: req.db)
        return QuoteList(items: items, total: total)
    }

    @Sendable static func addQuote(req: Request) async throws -> Response {
        let ctx = try await req.library(.read)
        return try await req.created(try await Quotes.create(try req.content.decode(QuoteInput.self), userID: ctx.user.id, in: req.scope(ctx)))
    }

    @Sendable static func deleteQuote(req: Request) async throws -> HTTPStatus {
        let ctx = try await req.library(.read)
        try await Quotes.delete(try req.uuid("quoteID"), userID: ctx.user.id, in: req.scope(ctx))
        return .noContent
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
        // Numbers in words are understood in the four built-in languages; another reads digits as English does.
        SpokenProgress.Language(rawValue: rawValue.split(separator: "-").first.map(String.init) ?? rawValue) ?? .en
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

extension QuoteInput: SchemaConstrained {
    static var schemaConstraints: [String: JSONValue] {
        ["text": Rule.text(Quotes.maxText), "note": Rule.optionalText(Quotes.maxNote), "page": Rule.optionalText(Quotes.maxPage)]
    }
}

extension CornersInput: SchemaConstrained {
    static var schemaConstraints: [String: JSONValue] {
        ["corners": ["minItems": 8, "maxItems": 8, "items": ["type": "number", "minimum": 0, "maximum": 1]]]
    }
}

extension PhotoMarkup.Stroke: SchemaConstrained {
    static var schemaConstraints: [String: JSONValue] {
        ["tool": ["enum": ["pen", "highlighter"]], "color": ["pattern": "^#[0-9A-Fa-f]{6}$"],
         "width": ["minimum": .number(0.001), "maximum": .number(0.1)],
         "points": ["minItems": 2, "maxItems": .number(Double(PhotoMarkup.maxPoints)),
                    "items": ["type": "number", "minimum": .number(-0.05), "maximum": .number(1.05)]]]
    }
}

extension PhotoMarkup: SchemaConstrained {
    static var schemaConstraints: [String: JSONValue] {
        ["strokes": ["maxItems": .number(Double(PhotoMarkup.maxStrokes))]]
    }
}

extension GoalInput: SchemaConstrained {
    static var schemaConstraints: [String: JSONValue] {
        ["year": Rule.range(ReadingLog.goalYears), "books": Rule.range(1...10_000), "pages": Rule.range(1...10_000_000)]
    }
}
