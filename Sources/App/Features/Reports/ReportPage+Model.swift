import Fluent
import Foundation
import ShelfmarkCore
import SQLKit

/// One report on the page: its period and filters as a form, then each table with its chart, its
/// totals and its CSV; the whole report as PDF and CSV.
struct ReportPage: Sendable {
    var libraryID: UUID
    var kind: ReportKind
    var options = ReportOptions()
    var report: ReportDTO?
    var form = FormState()
    var now: Date
    var calendar: Calendar
    /// What the filters offer: the classes members are in, the categories, shelves, reading levels and smart collections.
    var classes: [String] = []
    var categories: [(id: UUID, name: String)] = []
    var shelves: [String] = []
    var levels: [String] = []
    var collections: [(id: UUID, name: String)] = []
    /// The filters chosen, as the reader reads them.
    var filterTexts: [String] = []
    /// A class teacher's page: their classes are the only choice, this report the only one, nothing to save.
    var teacherClasses: [String]? = nil

    /// The most reading levels the filter lists (a library has a few dozen).
    static let maxLevels = 300

    static func make(_ kind: ReportKind, req options: () throws -> ReportOptions, library: LibraryContext, now: Date, t: Strings,
                     on db: any Database) async throws -> ReportPage {
        var page = ReportPage(libraryID: library.libraryID, kind: kind, now: now, calendar: library.policy.calendar)
        let id = library.libraryID
        let filters = kind.filters
        if filters.contains(.grade) {
            struct Grade: Decodable { var grade: String }
            page.classes = try await db.sql.raw("""
                SELECT DISTINCT grade FROM members WHERE library_id = \(bind: id) AND grade IS NOT NULL AND grade <> ''
                """).all(decoding: Grade.self).map(\.grade).sorted { $0.localizedStandardCompare($1) == .orderedAscending }
        }
        if filters.contains(.category) { page.categories = try await Catalog.categories(libraryID: id, on: db).map { ($0.id, $0.name) } }
        if filters.contains(.shelf) { page.shelves = try await Shelves.list(library: id, on: db).map(\.name) }
        if filters.contains(.level) {
            struct Level: Decodable { var reading_level: String }
            page.levels = try await db.sql.raw("""
                SELECT DISTINCT reading_level FROM titles WHERE library_no = \(LibraryNumber.of(id)) AND reading_level IS NOT NULL AND reading_level <> ''
                LIMIT \(bind: maxLevels)
                """).all(decoding: Level.self).map(\.reading_level).sorted { $0.localizedStandardCompare($1) == .orderedAscending }
        }
        if filters.contains(.collection) { page.collections = try await Collections.list(library: id, on: db).map { ($0.id, $0.name) } }
        do {
            page.options = try options()
            page.report = try await Reports.make(kind, page.options, library: library, now: now, t: t, on: db)
            page.filterTexts = try await Reports.filterTexts(page.options, kind: kind, library: id, t: t, on: db)
        } catch let error where error.isFormRefusal {
            page.form = FormState(values: [:], refusedWith: error, t: t,
                                  fields: ["period", "from", "to", "group", "class", "category", "shelf", "level", "collection", "notLentYears", "olderThanYears"])
        }
        return page
    }
}

/// The reports there are, each with what it counts.
struct ReportsPage: Sendable {
    var libraryID: UUID
    var saved: [SavedReportDTO] = []
    /// Owners say when and to whom a saved report is mailed.
    var isOwner = false
}
