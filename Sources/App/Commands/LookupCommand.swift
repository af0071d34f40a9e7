import Fluent
import Foundation
import ShelfmarkCore
import ShelfmarkLookup
import Vapor

/// `shelfmark lookup ISBN`: looks an ISBN up (through the cache) and prints the record, one field
/// per line, with what each provider did. `--fresh` skips the cache; `--json` prints the API's answer.
struct LookupCommand: AsyncCommand {
    struct Signature: CommandSignature {
        @Argument(name: "isbn", help: "An ISBN-10 or ISBN-13, hyphens allowed")
        var isbn: String
        @Flag(name: "fresh", help: "Ask the providers even if the answer is cached")
        var fresh: Bool
        @Flag(name: "json", help: "Print the answer as JSON (as POST /api/v1/lookup/isbn)")
        var json: Bool
    }

    var help: String { "Look up an ISBN at Google Books and Open Library (cached) and print the record." }

    func run(using context: CommandContext, signature: Signature) async throws {
        let app = context.application
        let isbn: ISBN
        do {
            isbn = try ISBN(signature.isbn)
        } catch {
            throw CLIError("“\(signature.isbn)” is not a valid ISBN: \(error.description).")
        }
        let now = app.clock.now()
        let looked: CachedLookup
        if signature.fresh {
            let result = await (try await app.metadataLookup).lookup(isbn)
            if result.record != nil || result.isDefinitelyNotFound {
                try await LookupService.store(result, at: now, gate: app.writeGate, on: app.db)
            }
            looked = CachedLookup(result: result, cached: false, fetchedAt: now)
        } else {
            looked = try await LookupService.isbn(isbn, lookup: try await app.metadataLookup, now: now, gate: app.writeGate, on: app.db)
        }
        let answer = LookupController.response(isbn, looked, existing: nil, now: now)
        if signature.json {
            let encoder = JSONEncoder.api
            encoder.outputFormatting = [.prettyPrinted, .sortedKeys, .withoutEscapingSlashes]
            context.console.print(String(decoding: try encoder.encode(answer), as: UTF8.self))
            return
        }
        for line in Self.lines(answer) { context.console.print(line) }
        if !answer.found { throw CLIError(answer.message ?? "Not found.") }
    }

    static func lines(_ a: ISBNLookupResponse) -> [String] {
        var out: [(String, String)] = [("ISBN", a.isbn.hyphenated + (a.isbn.hyphenatedIsbn10.map { "  (ISBN-10 \($0))" } ?? ""))]
        if let r = a.record {
            let source = Dictionary(r.fieldSources.map { ($0.field, $0.provider) }, uniquingKeysWith: { a, _ in a })
            func add(_ label: String, _ field: String, _ value: String?) {
                guard let value, !value.isEmpty else { return }
                let from = source[field].flatMap(ProviderID.init(rawValue:)).map { "  [\($0.displayName)]" } ?? ""
                let text = value.replacingOccurrences(of: "\n", with: "\n" + String(repeating: " ", count: 15))
                out.append((label, text + from))
            }
            add("Title", "title", r.title)
            add("Subtitle", "subtitle", r.subtitle)
            add("Authors", "authors", r.authors.joined(separator: ", "))
            add("Publisher", "publisher", r.publisher)
            add("Published", "publishedDate", r.publishedDate)
            add("Pages", "pageCount", r.pageCount.map(String.init))
            add("Language", "language", r.language)
            add("Categories", "categories", r.categories.joined(separator: "; "))
            add("Cover", "coverUrl", r.coverUrl)
            add("Description", "description", r.description)
            if let link = r.googleBooksUrl { out.append(("Google Books", link)) }
            if let link = r.openLibraryUrl { out.append(("Open Library", link)) }
        }
        for s in a.sources {
            let name = ProviderID(rawValue: s.provider)?.displayName ?? s.provider
            out.append(("Source", "\(name): \(s.status.replacingOccurrences(of: "_", with: " ")) in \(s.milliseconds) ms" + (s.message.map { " — \($0)" } ?? "")))
        }
        out.append(("Cached", a.cached ? "yes, \(a.ageSeconds) s old" : "no (asked the providers now)"))
        return out.map { label, value in label.padding(toLength: 13, withPad: " ", startingAt: 0) + "  " + value }
    }
}
