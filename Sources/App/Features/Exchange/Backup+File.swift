import Fluent
import Foundation
import NIOHTTP1
import ShelfmarkCore
import SQLKit

/// A backup's file: recognised, decoded and checked, and written a row at a time.
extension Backup {
    /// The id in a stored cover's URL.
    static func coverID(_ url: String) -> UUID? {
        guard CoverStore.isLocal(url) else { return nil }
        return UUID(uuidString: String(url.dropFirst("/api/v1/covers/".count)))
    }

    /// A Shelfmark backup (JSON naming its format), for telling someone who chose one as an import to use Restore.
    static func looksLikeBackup(_ data: Data) -> Bool {
        guard data.prefix(64).drop(while: { $0 == 0x20 || $0 == 0x0A || $0 == 0x0D || $0 == 0x09 }).first == UInt8(ascii: "{") else { return false }
        return data.range(of: Data(#""format":"shelfmark-library""#.utf8)) != nil
    }

    static func decode(_ data: Data) throws -> LibraryBackup {
        let decoder = JSONDecoder()
        decoder.dateDecodingStrategy = .iso8601withFractions
        do {
            let backup = try decoder.decode(LibraryBackup.self, from: data)
            guard backup.format == "shelfmark-library" else { throw ExchangeError.notABackup }
            guard backup.version <= LibraryBackup.currentVersion else {
                throw ExchangeError.newerBackup(version: backup.version)
            }
            try validateSettings(backup.library)
            return backup
        } catch let error as DecodingError {
            // Where it went wrong, not the decoder's debug text.
            var path: [any CodingKey] = []
            switch error {
            case .dataCorrupted(let c), .keyNotFound(_, let c), .typeMismatch(_, let c), .valueNotFound(_, let c): path = c.codingPath
            @unknown default: break
            }
            if case .keyNotFound(let key, _) = error { path.append(key) }
            let at = path.map { $0.intValue.map { String($0 + 1) } ?? $0.stringValue }.joined(separator: " › ")
            throw ExchangeError.unreadableBackup(at: at.isEmpty ? nil : String(at.prefix(200)))
        }
    }

    static func encoder() -> JSONEncoder {
        let encoder = JSONEncoder()
        encoder.dateEncodingStrategy = .iso8601withFractions
        encoder.outputFormatting = [.sortedKeys]
        return encoder
    }

    /// The same bytes `encoder().encode(backup)` writes (keys sorted, no whitespace), written a row
    /// at a time: encoding the whole backup at once built a tree of every value first, which for
    /// 100,000 titles held 860 MB.
    static func encode(_ backup: LibraryBackup) throws -> Data {
        let encoder = encoder()
        var out = Data()
        var first = true
        func key(_ name: String) {
            out.append(contentsOf: Array((first ? "{\"" : ",\"").utf8) + Array(name.utf8) + Array("\":".utf8))
            first = false
        }
        func value<T: Encodable>(_ name: String, _ value: T) throws {
            key(name)
            out.append(try encoder.encode(value))
        }
        func array<T: Encodable>(_ name: String, _ items: [T]) throws {
            key(name)
            out.append(UInt8(ascii: "["))
            for (i, item) in items.enumerated() {
                if i > 0 { out.append(UInt8(ascii: ",")) }
                out.append(try encoder.encode(item))
            }
            out.append(UInt8(ascii: "]"))
        }
        // In the order of the sorted keys.
        try array("activities", backup.activities)
        if let audit = backup.auditLog { try array("auditLog", audit) }
        try array("categories", backup.categories)
        if let collections = backup.collections { try array("collections", collections) }
        try array("copies", backup.copies)
        if let covers = backup.covers { try array("covers", covers) }
        try value("createdAt", backup.createdAt)
        if let fines = backup.fines { try array("fines", fines) }
        try value("format", backup.format)
        if let holds = backup.holds { try array("holds", holds) }
        try value("library", backup.library)
        try array("loans", backup.loans)
        if let templates = backup.mailTemplates { try array("mailTemplates", templates) }
        try array("members", backup.members)
        if let photos = backup.pagePhotos { try array("pagePhotos", photos) }
        if let events = backup.progressEvents { try array("progressEvents", events) }
        if let quotes = backup.quotes { try array("quotes", quotes) }
        if let goals = backup.readingGoals { try array("readingGoals", goals) }
        if let reads = backup.reads { try array("reads", reads) }
        if let saved = backup.savedReports { try array("savedReports", saved) }
        if let shelves = backup.shelves { try array("shelves", shelves) }
        if let scans = backup.stocktakeScans { try array("stocktakeScans", scans) }
        if let stocktakes = backup.stocktakes { try array("stocktakes", stocktakes) }
        try array("titleCategories", backup.titleCategories)
        if let series = backup.titleSeries { try array("titleSeries", series) }
        try array("titles", backup.titles)
        try value("version", backup.version)
        out.append(UInt8(ascii: "}"))
        return out
    }
}
