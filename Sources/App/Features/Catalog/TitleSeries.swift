import Fluent
import Foundation
import ShelfmarkCore
import SQLKit

/// A row of `title_series`: one more series of a title, in its order after the title's own.
struct TitleSeriesRow: Codable, Sendable, Equatable {
    var title_id: UUID
    var position: Int
    var name: String
    var number: String?
}

/// The series a title belongs to besides its own (`titles.series`, which names its place in the
/// catalog's search and order): read and written as a list, each a name and the title's number in it.
enum TitleSeries {
    /// The list as a client sends it, checked: at most five, names and numbers within their bounds,
    /// the same name once and never the title's own series.
    static func checked(_ entries: [SeriesEntry], own: String?) throws -> [SeriesEntry] {
        guard entries.count <= SeriesEntry.maxEntries else { throw CatalogError.tooManySeries(max: SeriesEntry.maxEntries) }
        var seen = Set([own?.lowercased()].compactMap { $0 })
        return try entries.enumerated().compactMap { index, entry in
            guard let name = try Check.optional(entry.name, field: "moreSeries.\(index).name", max: SeriesEntry.maxName),
                  seen.insert(name.lowercased()).inserted else { return nil }
            return SeriesEntry(name: name, number: try Check.optional(entry.number, field: "moreSeries.\(index).number", max: SeriesEntry.maxNumber))
        }
    }

    /// The other series to keep with `title` as an edit leaves it: the list checked; a title without a series
    /// of its own has no others, so the first of a list becomes its own (the rest its others), and a series
    /// taken away (`seriesCleared`) takes the others with it. Nil: leave them as they are.
    static func settle(_ list: [SeriesEntry]?, on title: Title, seriesCleared: Bool) throws -> [SeriesEntry]? {
        var listed = try list.map { try checked($0, own: title.series) }
        guard title.series == nil else { return listed }
        guard let first = listed?.first else { return seriesCleared ? [] : listed }
        (title.series, title.seriesNumber) = (first.name, first.number)
        title.refreshDerived()
        listed?.removeFirst()
        return listed
    }

    /// Replaces the title's other series with these.
    static func set(_ entries: [SeriesEntry], titleID: UUID, on db: any Database) async throws {
        try await db.sql.raw("DELETE FROM title_series WHERE title_id = \(bind: titleID)").run()
        try await insert(entries.enumerated().map { TitleSeriesRow(title_id: titleID, position: $0.offset + 2, name: $0.element.name, number: $0.element.number) },
                         on: db)
    }

    static func insert(_ rows: [TitleSeriesRow], on db: any Database) async throws {
        struct Insert: Encodable, Sendable { var id: UUID; var title_id: UUID; var position: Int; var name: String; var number: String? }
        for chunk in rows.chunked(200) {
            try await db.sql.insert(into: "title_series")
                .models(chunk.map { Insert(id: UUID(), title_id: $0.title_id, position: $0.position, name: $0.name, number: $0.number) },
                        nilEncodingStrategy: .asNil).run()
        }
    }

    /// The titles' rows, each title's in order.
    static func rows(of titleIDs: [UUID], on sql: any SQLDatabase) async throws -> [TitleSeriesRow] {
        var rows: [TitleSeriesRow] = []
        for chunk in titleIDs.chunked(500) {
            rows += try await sql.raw("""
                SELECT title_id, position, name, number FROM title_series WHERE title_id IN (\(binds: chunk)) ORDER BY title_id, position
                """).all(decoding: TitleSeriesRow.self)
        }
        return rows
    }

    /// Each title's other series, in order.
    static func of(_ titleIDs: [UUID], on db: any Database) async throws -> [UUID: [SeriesEntry]] {
        var out: [UUID: [SeriesEntry]] = [:]
        for row in try await rows(of: titleIDs, on: db.sql) { out[row.title_id, default: []].append(SeriesEntry(name: row.name, number: row.number)) }
        return out
    }
}
