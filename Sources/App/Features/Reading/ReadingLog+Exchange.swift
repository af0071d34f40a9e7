import Fluent
import FluentSQL
import Foundation
import ShelfmarkCore
import SQLKit

extension ReadingLog {
    // MARK: Import and export

    /// A book's reading history from an import file (Goodreads, StoryGraph, LibraryThing).
    struct ImportedHistory: Sendable {
        var titleID: UUID
        var title: String
        var author: String?
        var pageCount: Int?
        var reads: [ImportedRead]
        var rating: Double?
    }

    /// Adds the importing user's reads, inside the import's transaction. A book the user already has
    /// reads of is left as it is (importing the same file twice does not double the history); an
    /// import from the command line (no account) brings no history.
    static func importHistory(_ history: [ImportedHistory], user userID: UUID, library: UUID, now: Date, on db: any Database) async throws {
        guard !history.isEmpty, try await User.find(userID, on: db) != nil else { return }
        StatsCache.shared.invalidate(library: library, reader: Reader.user(userID).key)
        var known = Set<UUID>()
        let titleIDs = history.map(\.titleID)
        for part in titleIDs.chunked(500) {
            for read in try await Read.query(on: db).filter(\.$library.$id == library).filter(\.$userID == userID)
                .filter(\.$titleID ~~ part).all() {
                if let id = read.titleID { known.insert(id) }
            }
        }
        for book in history where !known.contains(book.titleID) {
            known.insert(book.titleID)
            for (i, imported) in book.reads.enumerated() {
                let read = Read(library: library, reader: .user(userID), titleID: book.titleID, title: book.title, author: book.author,
                                pageCount: book.pageCount, status: imported.status, at: now)
                read.startedAt = imported.startedAt
                read.finishedAt = imported.finishedAt
                if i == 0, imported.status == .finished, let rating = book.rating, (0...5).contains(rating) { read.rating = (rating * 2).rounded() / 2 }
                read.updatedAt = imported.finishedAt ?? imported.startedAt ?? now
                derive(read, events: [], followProgress: false)
                try await read.create(on: db)
            }
        }
    }

    /// One reader's history in Goodreads' CSV layout (one line per book, its latest read; Read
    /// Count counts its finished reads), so a reader can always leave.
    static func exportGoodreadsCSV(reader: Reader, libraryID: UUID, on db: any Database) async throws -> String {
        let reads = try await readsOf(reader, libraryID: libraryID, on: db).sort(\.$updatedAt, .descending).all()
        var titleRows: [UUID: (isbn: String?, isbn13: String?, publisher: String?, year: String?)] = [:]
        let ids = Array(Set(reads.compactMap(\.titleID)))
        for chunk in ids.chunked(500) {
            for t in try await Title.query(on: db).filter(\.$id ~~ chunk).all() {
                titleRows[t.id!] = (t.isbn13.flatMap { try? ISBN($0) }?.isbn10, t.isbn13, t.publisher, t.publishedDate.map { String($0.prefix(4)) })
            }
        }
        var byBook: [String: [Read]] = [:]
        var order: [String] = []
        for read in reads {
            let key = read.titleID?.uuidString ?? "t:" + read.titleText
            if byBook[key] == nil { order.append(key) }
            byBook[key, default: []].append(read)
        }
        func day(_ d: Date?) -> String {
            guard let d else { return "" }
            var calendar = Calendar(identifier: .gregorian)
            calendar.timeZone = TimeZone(identifier: "UTC")!
            let c = calendar.dateComponents([.year, .month, .day], from: d)
            return String(format: "%04d/%02d/%02d", c.year ?? 0, c.month ?? 0, c.day ?? 0)
        }
        var rows: [[String]] = [["Book Id", "Title", "Author", "Additional Authors", "ISBN", "ISBN13", "My Rating", "Publisher",
                                 "Number of Pages", "Year Published", "Date Read", "Date Added", "Bookshelves", "Exclusive Shelf",
                                 "My Review", "Read Count"]]
        for (n, key) in order.enumerated() {
            let all = byBook[key]!
            let latest = all[0]
            let shelf: String = switch latest.readStatus {
            case .finished: "read"
            case .reading: "currently-reading"
            case .wantToRead: "to-read"
            case .didNotFinish: "did-not-finish"
            }
            let finished = all.filter { $0.readStatus == .finished }
            let info = latest.titleID.flatMap { titleRows[$0] }
            let rating = finished.compactMap(\.rating).first.map { String(Int($0.rounded())) } ?? "0"
            rows.append([String(n + 1), latest.titleText, latest.authorText ?? "", "", info?.isbn ?? "", info?.isbn13 ?? "", rating, info?.publisher ?? "", latest.pageCount.map(String.init) ?? "",
                         info?.year ?? "", day(finished.compactMap(\.finishedAt).max()),
                         day(all.flatMap { [$0.startedAt, $0.finishedAt, $0.createdAt].compactMap { $0 } }.min()), shelf, shelf,
                         latest.review ?? "", String(finished.count)])
        }
        return rows.map(CSVWriter.line).joined()
    }
}
