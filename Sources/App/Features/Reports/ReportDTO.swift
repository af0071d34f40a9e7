import Foundation
import ShelfmarkCore
import Vapor

/// The reports a library can ask for.
enum ReportKind: String, Codable, Sendable, CaseIterable, SchemaEnum {
    /// Loans and returns over time, by class, category and shelf; renewals, overdue rate, holds.
    case circulation
    /// Titles and copies by category, shelf, reading level and age; acquisitions over time.
    case collection
    /// Copies nobody borrowed for years and that are old; lost and damaged copies.
    case weeding
    /// Borrowing by class and by member, by reading level; pages logged.
    case readers
    /// Fines charged, paid and waived.
    case money

    /// The filters that narrow this report (money is the library's whole ledger).
    var filters: Set<ReportFilter> {
        switch self {
        case .circulation, .readers: [.grade, .category, .shelf, .level, .collection]
        case .collection, .weeding: [.category, .shelf, .level, .collection]
        case .money: []
        }
    }

    /// The weeding list is the copies as they are now; the others count a period.
    var hasPeriod: Bool { self != .weeding }

    /// The keys of the report's tables, in their order (a CSV of one table names it; `ReportTests` holds
    /// every report to its list).
    var tableKeys: [String] {
        switch self {
        case .circulation: ["summary", "loansOverTime", "loansByClass", "loansByCategory", "loansByShelf", "holds"]
        case .collection: ["summary", "byCategory", "byShelf", "byLevel", "byDecade", "acquisitions"]
        case .weeding: ["weedingList", "lostAndDamaged"]
        case .readers: ["byClass", "byMember", "byLevel", "pagesLogged"]
        case .money: ["summary", "finesOverTime"]
        }
    }
}

enum ReportFilter: String, Sendable, CaseIterable {
    case grade, category, shelf, level, collection
}

/// How a column's numbers read.
enum ReportColumnKind: String, Codable, Sendable, CaseIterable, SchemaEnum {
    case text, count, money, percent, days, date
}

struct ReportColumnDTO: Content, Equatable {
    var title: String
    var kind: ReportColumnKind
}

/// One cell: `text` in a text column, `number` in the others (money in the currency's minor unit,
/// percent as 0–100, days with one decimal, a date as seconds since 1970); both absent when empty.
struct ReportCellDTO: Content, Equatable {
    var text: String?
    var number: Double?

    static func text(_ s: String?) -> ReportCellDTO { ReportCellDTO(text: s, number: nil) }
    static func number(_ n: Double?) -> ReportCellDTO { ReportCellDTO(text: nil, number: n) }
    static func count(_ n: Int) -> ReportCellDTO { ReportCellDTO(text: nil, number: Double(n)) }
}

/// How a table is drawn above it: columns over time, or bars side by side.
enum ReportChartKind: String, Codable, Sendable, CaseIterable, SchemaEnum {
    case none, columns, bars
}

struct ReportTableDTO: Content, Equatable {
    /// A stable name for the table (`loansByMonth`), the same in every language.
    var key: String
    var title: String
    var columns: [ReportColumnDTO]
    var rows: [[ReportCellDTO]]
    /// The sums of the numeric columns (nil where a sum means nothing: rates, days, text).
    var totals: [ReportCellDTO]?
    var chart: ReportChartKind
    /// A note under the table (what is counted how).
    var note: String?
}

struct ReportDTO: Content, Equatable {
    var kind: ReportKind
    var title: String
    /// The first day and the last day counted (nil for the weeding list, which is as things are now).
    var from: Date?
    var to: Date?
    var grouping: ReportPeriod.Grouping?
    var currency: String
    var tables: [ReportTableDTO]
}

extension ReportPeriod.Grouping: SchemaEnum {}
extension ReportPeriod.Preset: SchemaEnum {}
