import Foundation
import ShelfmarkCore

enum ReportError: DomainError, Equatable {
    case period(ReportPeriod.Problem)
    /// A smart collection too large to narrow a report by.
    case collectionTooLarge(max: Int)
    /// A saved report's options that are not a query string.
    case notOptions

    var described: Described {
        switch self {
        case .period(.badRange), .period(.customNeedsDays):
            .init(.invalid, "invalid", field: "to") { $0(.errReportRange) }
        case .period(.tooLong(let years)):
            .init(.invalid, "invalid", field: "to") { $0.format(.errReportTooLong, $0.number(years)) }
        case .period(.tooManyBuckets(let max)):
            .init(.invalid, "invalid", field: "group") { $0.format(.errReportTooManyWeeks, $0.number(max)) }
        case .notOptions: .init(.invalid, "invalid", field: "options") { $0(.errReportOptions) }
        case .collectionTooLarge(let max):
            .init(.invalid, "invalid", field: "collection") { $0.format(.errReportCollectionTooLarge, $0.number(max)) }
        }
    }
}
