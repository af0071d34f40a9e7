import ShelfmarkImaging
import Vapor

/// A refusal at the HTTP edge, before any service is asked: no sign-in, a missing CSRF token, a body
/// that cannot be read, a confirmation not given, a provider that cannot be asked. Said in the
/// request's language like every domain refusal; `code` and `field` stay what programs already read.
enum EdgeError: DomainError, Equatable {
    case unauthenticated
    case csrf
    case formWithoutBoundary
    case formPartMalformed
    /// A request body over its route's bound.
    case uploadTooLarge
    /// A scan photo that is not one, or over its size.
    case badImage(ImageProblem)
    /// Adding by ISBN alone: no provider knows it (404), or none could be asked (503).
    case isbnUnknown(isbn: String)
    case providersUnavailable(reasons: String)
    case confirmRestore(library: String)
    case confirmErase(library: String)
    case confirmDeleteLibrary(library: String)
    case backupBodyMissing
    case newLibraryName
    case shelfNeeded
    case cannotDraw(field: String)
    case calendarGone
    /// The first setup, asked from another device while the server serves the network itself.
    case setupOnThisComputer(address: String)

    var described: Described {
        switch self {
        case .unauthenticated: .init(.unauthenticated, "unauthenticated") { $0(.errSignInFirst) }
        case .csrf: .init(.forbidden, "csrf") { $0(.errCSRFHeader) }
        case .formWithoutBoundary: .init(.badRequest, "bad_body") { $0(.errFormNoBoundary) }
        case .formPartMalformed: .init(.badRequest, "bad_body") { $0(.errFormBadPart) }
        case .uploadTooLarge: .init(.tooLarge, "too_large") { $0.format(.errUploadTooLarge, $0.number(ScanController.maxImageMB)) }
        case .badImage(let problem):
            .init(problem.refusal, problem.refusal == .tooLarge ? "too_large" : "bad_image", field: "image") { problem.message($0) }
        case .isbnUnknown(let isbn): .init(.notFound, "isbn_not_found", field: "title") { $0.format(.errISBNUnknownNeedTitle, isbn) }
        case .providersUnavailable(let reasons):
            .init(.unavailable, "providers_unavailable", field: "title") { $0.format(.errProvidersDownNeedTitle, reasons) }
        case .confirmRestore(let name): .init(.conflict, "confirmation_required") { $0.format(.errConfirmRestore, name) }
        case .setupOnThisComputer(let address): .init(.forbidden, "setup_on_this_computer") { $0.format(.errSetupOnThisComputer, address) }
        case .confirmErase(let name): .init(.conflict, "confirmation_required") { $0.format(.errConfirmErase, name) }
        case .confirmDeleteLibrary(let name): .init(.conflict, "confirm_required") { $0.format(.errConfirmDeleteLibrary, name) }
        case .backupBodyMissing: .init(.invalid, "invalid", field: "file") { $0(.errBackupBodyMissing) }
        case .newLibraryName: .init(.invalid, "invalid", field: "name") { $0(.errNameNewLibrary) }
        case .shelfNeeded: .init(.invalid, "invalid", field: "location") { $0(.errShelfNeeded) }
        case .cannotDraw(let field): .init(.invalid, "invalid", field: field) { $0(.errCannotDraw) }
        case .calendarGone: .init(.notFound, "not_found") { $0(.errCalendarGone) }
        }
    }
}

extension ImageProblem {
    /// How a scan photo's problem is answered: nothing sent 400, not an image 415, too large 413, damaged 422.
    var refusal: Refusal {
        switch self {
        case .empty: .badRequest
        case .notAnImage: .unsupportedMediaType
        case .tooLarge: .tooLarge
        case .damaged: .invalid
        }
    }
}
