import Fluent
import Foundation
import ShelfmarkCore
import ShelfmarkLookup
import SQLKit
import Vapor

/// Metadata lookup, stored covers, and enrichment progress.
enum LookupController {
    static func register(_ api: APIRoutes) {
        api.on(.POST, "lookup", "isbn", doc: .init(
            summary: "Look an ISBN up: the merged provider record, the ISBN's forms, and whether the library has it (A1, A2). Invalid ISBNs answer 422; providers down answer found=false, never an error",
            tag: "Lookup", request: ISBNLookupInput.self, response: ISBNLookupResponse.self), use: isbn)
        api.on(.GET, "lookup", "search", doc: .init(
            summary: "Search the providers by free text, or title and author: ranked candidates (C1)", tag: "Lookup",
            query: [
                .init(name: "q", description: "Free text: title, author, words read off a cover.", schema: ["maxLength": 300]),
                .init(name: "title", description: "Title words (with or instead of q).", schema: ["maxLength": 300]),
                .init(name: "author", description: "Author name (with or instead of q).", schema: ["maxLength": 300]),
                .init(name: "limit", kind: .integer, description: "At most this many candidates (1–40, default 10).", schema: ["minimum": 1, "maximum": 40]),
            ],
            response: LookupSearchResponse.self), use: search)
        api.on(.GET, .cover(.pattern), doc: .init(
            summary: "A stored cover image (JPEG, PNG, GIF or WebP); immutable, cached for a year", tag: "Lookup", authenticated: false),
               use: cover)
        api.on(.GET, "libraries", ":libraryID", "enrichment", doc: .init(
            summary: "Progress of background metadata enrichment: jobs pending, running, done, failed (A6)", tag: "Lookup",
            response: Enrichment.Progress.self), use: progress)
    }

    @Sendable static func isbn(req: Request) async throws -> ISBNLookupResponse {
        _ = try req.user
        let input = try req.content.decode(ISBNLookupInput.self)
        let isbn = try ISBN(input.isbn)
        var existing: ExistingTitleDTO?
        if let libraryID = input.libraryId {
            _ = try await req.library(.read, id: libraryID)
            existing = try await existingTitle(isbn.isbn13, library: libraryID, on: req.db)
        }
        let looked = try await LookupService.isbn(isbn, lookup: try await req.application.metadataLookup, now: req.now,
                                                  gate: req.application.writeGate, on: req.db)
        return response(isbn, looked, existing: existing, now: req.now)
    }

    static func response(_ isbn: ISBN, _ looked: CachedLookup, existing: ExistingTitleDTO?, now: Date) -> ISBNLookupResponse {
        let result = looked.result
        var message: String?
        if result.record == nil {
            message = result.isDefinitelyNotFound
                ? "No provider knows ISBN \(isbn.hyphenated). Enter the details by hand."
                : "The book providers could not answer (\(result.outcomes.compactMap(\.message).joined(separator: "; "))). Enter the details by hand, or try again later."
        }
        return ISBNLookupResponse(
            isbn: ISBNForms(isbn), found: result.record != nil, record: result.record.map(BookRecordDTO.init),
            cached: looked.cached, fetchedAt: looked.fetchedAt, ageSeconds: max(0, Int(now.timeIntervalSince(looked.fetchedAt))),
            sources: result.outcomes.map(ProviderOutcomeDTO.init), existing: existing, message: message)
    }

    static func existingTitle(_ isbn13: String, library: UUID, on db: any Database) async throws -> ExistingTitleDTO? {
        guard let title = try await Title.query(on: db).inLibrary(library).filter(\.$isbn13 == isbn13).first() else { return nil }
        let id = try title.requireID()
        let availability = try await Availability.of(id, on: db)
        return ExistingTitleDTO(id: id, title: title.title, wishlist: title.wishlist, totalCopies: availability.total,
                                availableCopies: availability.available,
                                addCopiesUrl: APILink.titleCopies(library: library, title: id).path)
    }

    @Sendable static func search(req: Request) async throws -> LookupSearchResponse {
        _ = try req.user
        let text = (req.query[String.self, at: "q"] ?? "").trimmingCharacters(in: .whitespacesAndNewlines)
        let title = req.query[String.self, at: "title"]?.trimmingCharacters(in: .whitespacesAndNewlines)
        let author = req.query[String.self, at: "author"]?.trimmingCharacters(in: .whitespacesAndNewlines)
        guard !text.isEmpty || !(title ?? "").isEmpty || !(author ?? "").isEmpty else {
            // Nothing asked: nothing found (a search box that is still empty), with what to send.
            return LookupSearchResponse(candidates: [], sources: [], message: req.t(.lookupSayWhat))
        }
        guard text.count <= 300, (title ?? "").count <= 300, (author ?? "").count <= 300 else {
            throw InputProblem.tooLong(field: "q", max: 300)
        }
        let limit = try req.intQuery("limit", default: 10, range: 1...40)
        let query = SearchQuery(text: text, title: title.flatMap { $0.isEmpty ? nil : $0 }, author: author.flatMap { $0.isEmpty ? nil : $0 }, limit: limit)
        let result = await (try await req.application.metadataLookup).search(query)
        var message: String?
        if result.candidates.isEmpty {
            message = result.outcomes.allSatisfy { $0.status == .notFound }
                ? "No book matches “\([text, title ?? "", author ?? ""].filter { !$0.isEmpty }.joined(separator: " "))”."
                : "The book providers could not answer (\(result.outcomes.compactMap(\.message).joined(separator: "; "))). Try again later."
        }
        return LookupSearchResponse(candidates: result.candidates.map(BookRecordDTO.init), sources: result.outcomes.map(ProviderOutcomeDTO.init),
                                    message: message)
    }

    @Sendable static func cover(req: Request) async throws -> Response {
        let id = try req.uuid("coverID")
        // The type is sniffed from the bytes every time (never the stored or claimed one): a row that is
        // not an image (written before every way in was checked) is not served at all.
        guard let image = try await CoverStore.load(id, on: req.db), let type = CoverStore.sniff(image.bytes) else {
            throw CatalogError.coverNotFound
        }
        var headers = HTTPHeaders()
        headers.replaceOrAdd(name: "X-Content-Type-Options", value: "nosniff")
        headers.replaceOrAdd(name: "Content-Security-Policy", value: "default-src 'none'; img-src 'self'; style-src 'unsafe-inline'; sandbox")
        let etag = "\"\(image.sha256)\""
        headers.replaceOrAdd(name: .eTag, value: etag)
        headers.replaceOrAdd(name: .cacheControl, value: "public, max-age=31536000, immutable")
        if req.headers.first(name: .ifNoneMatch) == etag {
            return Response(status: .notModified, headers: headers)
        }
        headers.replaceOrAdd(name: .contentType, value: type)
        return Response(status: .ok, headers: headers, body: .init(data: image.bytes))
    }

    @Sendable static func progress(req: Request) async throws -> Enrichment.Progress {
        let ctx = try await req.library(.read)
        return try await Enrichment.progress(library: ctx.libraryID, on: req.db)
    }
}
