import Fluent
import Foundation
import Plot
import ShelfmarkCore
import SQLKit

/// A series: the library's volumes in order, the numbers it lacks between 1 and its highest;
/// without a name, every series the library has, with how many volumes.
struct SeriesPage: Sendable {
    static let maxVolumes = 500

    var libraryID: UUID
    var name: String?
    var volumes: [(title: TitleSummary, number: String?)] = []
    var missing: [Int] = []
    var all: [(name: String, count: Int)] = []

    static func make(name: String?, library: LibraryContext, now: Date, on db: any Database) async throws -> SeriesPage {
        var page = SeriesPage(libraryID: library.libraryID, name: name)
        guard let name else {
            // A title's own series and the others it is in, each counted once per title.
            page.all = try await db.sql.raw("""
                SELECT series, COUNT(*) AS n FROM (
                  SELECT t.series AS series FROM titles t WHERE t.library_no = \(LibraryNumber.of(library.libraryID)) AND t.wishlist = \(bind: false)
                    AND t.series IS NOT NULL AND t.series <> ''
                  UNION ALL
                  SELECT ts.name AS series FROM title_series ts JOIN titles t ON t.id = ts.title_id
                  WHERE t.library_no = \(LibraryNumber.of(library.libraryID)) AND t.wishlist = \(bind: false)
                ) s GROUP BY series ORDER BY series LIMIT 1000
                """).all().map { (try $0.decode(column: "series", as: String.self), try $0.decode(column: "n", as: Int.self)) }
            return page
        }
        var filters = TitleQuery.Filters()
        filters.series = name
        filters.limit = maxVolumes
        let list = try await TitleQuery.list(filters, libraryID: library.libraryID, now: now, on: db)
        var numbers: [UUID: String] = [:]
        for row in try await db.sql.raw("""
            SELECT id, series_number AS number FROM titles WHERE library_no = \(LibraryNumber.of(library.libraryID)) AND series = \(bind: name) AND series_number IS NOT NULL
            UNION ALL
            SELECT t.id, ts.number FROM title_series ts JOIN titles t ON t.id = ts.title_id
            WHERE t.library_no = \(LibraryNumber.of(library.libraryID)) AND ts.name = \(bind: name) AND ts.number IS NOT NULL
            LIMIT \(literal: maxVolumes * 2)
            """).all() {
            numbers[try row.decode(column: "id", as: UUID.self)] = try row.decode(column: "number", as: String.self)
        }
        page.volumes = list.items.map { ($0, numbers[$0.id]) }
            .sorted { (SeriesTitle.order($0.number), $0.title.title) < (SeriesTitle.order($1.number), $1.title.title) }
        page.missing = SeriesTitle.missing(page.volumes.map(\.number))
        return page
    }

    func render(_ page: PageContext) -> HTML {
        let t = page.t
        let (lib, name, volumes, missing, all) = (libraryID, name, volumes, missing, all)
        return Layout.page(page, title: name ?? t(.seriesField)) {
            H.el(.h1, [:]) { EscapedText(name ?? t(.seriesField)) }
            if name != nil {
                H.el(.p, [.class: "count"]) { EscapedText(t.format(.seriesVolumes, t.number(volumes.count))) }
                if !volumes.isEmpty {
                    H.el(.p, [.class: missing.isEmpty ? "muted" : "flash"]) {
                        EscapedText(missing.isEmpty ? t(.seriesComplete) : t.format(.seriesMissing, missing.prefix(50).map { t.number($0) }.joined(separator: ", ")))
                    }
                }
                H.el(.ul, [.class: "titles"]) {
                    for volume in volumes {
                        H.el(.li, [:]) {
                            H.el(.a, [.class: "title-row", .href: WebRoute.title(library: lib, title: volume.title.id).path]) {
                                Components.cover(volume.title.coverUrl, title: volume.title.title, t: t)
                                H.el(.span, [.class: "meta"]) {
                                    if let number = volume.number { H.el(.span, [.class: "authors"]) { EscapedText(t.format(.seriesVolume, number)) } }
                                    H.el(.span, [.class: "name"]) { EscapedText(volume.title.title) }
                                    if !volume.title.authors.isEmpty { H.el(.span, [.class: "authors"]) { EscapedText(volume.title.authors.joined(separator: ", ")) } }
                                }
                                Components.badge(volume.title.availability, overdue: volume.title.overdue, t: t)
                            }
                        }
                    }
                }
            } else {
                H.el(.ul, [.class: "menu"]) {
                    for series in all {
                        H.el(.li, [:]) {
                            H.link(series.name + " (" + t.number(series.count) + ")", WebRoute.series(library: lib).path(query: [("name", series.name)]))
                        }
                    }
                }
            }
        }
    }
}
