import ShelfmarkCore
import Vapor

/// The refusals of fines: paying or waiving more than is owed, or when nothing is.
enum FineError: DomainError, Equatable {
    case nothingOwed
    case moreThanOwed(owed: Int, currency: String)

    var described: Described {
        switch self {
        case .nothingOwed: .init(.conflict, "nothing_owed") { $0(.errNothingOwed) }
        case .moreThanOwed(let owed, let currency):
            .init(.conflict, "more_than_owed", field: "amount", details: ["owed": String(owed)]) { $0.format(.errMoreThanOwed, $0.money(owed, currency)) }
        }
    }
}
