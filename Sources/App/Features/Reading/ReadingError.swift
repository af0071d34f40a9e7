import ShelfmarkCore
import Vapor

enum ReadingError: DomainError, Equatable {
    case readNotFound
    case quoteNotFound
    case shareNotFound
    case photoNotFound
    case photo(ImageProblem)
    case cornersInvalid
    case pageBeyondEnd(page: Int, pages: Int)
    case noPageHeard(phrase: String)
    case heardOutOfRange(Int)
    case sayOneProgress
    case momentInFuture
    case unknownStatus(String)

    var described: Described {
        switch self {
        case .readNotFound: .init(.notFound, "not_found") { $0(.errReadNotFound) }
        case .quoteNotFound: .init(.notFound, "not_found") { $0(.errQuoteNotFound) }
        case .shareNotFound: .init(.notFound, "not_found") { $0(.errShareNotFound) }
        case .photoNotFound: .init(.notFound, "not_found") { $0(.errPhotoNotFound) }
        case .photo(let problem): .init(.invalid, "invalid_image", field: "file") { problem.message($0) }
        case .cornersInvalid: .init(.invalid, "invalid", field: "corners") { $0(.errCornersInvalid) }
        case .pageBeyondEnd(let page, let pages):
            .init(.invalid, "page_beyond_end", field: "page", details: ["pageCount": String(pages)]) { $0.format(.errPageBeyondEnd, $0.number(page), $0.number(pages)) }
        case .noPageHeard(let phrase): .init(.invalid, "no_page_heard", field: "phrase") { $0.format(.errNoPageHeard, String(phrase.prefix(80))) }
        case .heardOutOfRange(let n): .init(.invalid, "out_of_range", field: "phrase") { $0.format(.errHeardOutOfRange, $0.number(n)) }
        case .sayOneProgress: .init(.invalid, "invalid") { $0(.errSayOneProgress) }
        case .momentInFuture: .init(.invalid, "invalid", field: "at") { $0(.errMomentInFuture) }
        case .unknownStatus(let raw): .init(.invalid, "invalid", field: "status") { $0.format(.errUnknownReadStatus, String(raw.prefix(40))) }
        }
    }
}
