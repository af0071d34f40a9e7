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

    var refusal: Refusal {
        switch self {
        case .readNotFound, .quoteNotFound, .photoNotFound, .shareNotFound: .notFound
        default: .invalid
        }
    }

    var code: String {
        switch self {
        case .readNotFound, .quoteNotFound, .photoNotFound, .shareNotFound: "not_found"
        case .photo: "invalid_image"
        case .cornersInvalid: "invalid"
        case .pageBeyondEnd: "page_beyond_end"
        case .noPageHeard: "no_page_heard"
        case .heardOutOfRange: "out_of_range"
        case .sayOneProgress, .momentInFuture, .unknownStatus: "invalid"
        }
    }

    var field: String? {
        switch self {
        case .pageBeyondEnd: "page"
        case .noPageHeard, .heardOutOfRange: "phrase"
        case .momentInFuture: "at"
        case .unknownStatus: "status"
        case .photo: "file"
        case .cornersInvalid: "corners"
        default: nil
        }
    }

    var details: [String: String]? {
        switch self {
        case .pageBeyondEnd(_, let pages): ["pageCount": String(pages)]
        default: nil
        }
    }

    func message(_ t: Strings) -> String {
        switch self {
        case .readNotFound: t(.errReadNotFound)
        case .quoteNotFound: t(.errQuoteNotFound)
        case .shareNotFound: t(.errShareNotFound)
        case .photoNotFound: t(.errPhotoNotFound)
        case .photo(let problem): problem.message(t)
        case .cornersInvalid: t(.errCornersInvalid)
        case .pageBeyondEnd(let page, let pages): t.format(.errPageBeyondEnd, t.number(page), t.number(pages))
        case .noPageHeard(let phrase): t.format(.errNoPageHeard, String(phrase.prefix(80)))
        case .heardOutOfRange(let n): t.format(.errHeardOutOfRange, t.number(n))
        case .sayOneProgress: t(.errSayOneProgress)
        case .momentInFuture: t(.errMomentInFuture)
        case .unknownStatus(let raw): t.format(.errUnknownReadStatus, String(raw.prefix(40)))
        }
    }
}
