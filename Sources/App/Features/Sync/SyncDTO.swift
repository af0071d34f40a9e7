import Foundation
import Vapor

// The sync feed and push. See docs/SYNC.md.

/// One page of the feed: the changes after the cursor sent, in the order they were made.
struct SyncPage: Content {
    var changes: [SyncChange]
    /// Send it back as `cursor` for what comes next; kept on the device with the data.
    var cursor: String
    /// More changes are there now: pull again at once.
    var more: Bool
    /// Changes that committed are held back behind a write still running (PostgreSQL); pull again in a moment.
    var behind: Bool
}

/// A thing the device keeps, as it is now, or its removal (`removed`: deleted, moved to the wishlist, a
/// loan returned). Exactly one of `title`, `copy`, `member`, `loan` is there when it is not removed.
struct SyncChange: Content, Equatable {
    var kind: SyncKind
    var id: UUID
    var removed: Bool?
    var title: SyncTitle?
    var copy: SyncCopy?
    var member: SyncMember?
    var loan: SyncLoan?
}

enum SyncKind: String, Codable, Sendable, CaseIterable, SchemaEnum {
    case title, copy, member, loan

    init(_ kind: CreateSyncLog.Kind) {
        switch kind {
        case .title: self = .title
        case .copy: self = .copy
        case .member: self = .member
        case .loan: self = .loan
        }
    }
}

struct SyncTitle: Content, Equatable {
    var title: String
    var subtitle: String?
    var authors: [String]
    var isbn13: String?
    var publisher: String?
    var publishedDate: String?
    var pageCount: Int?
    var series: String?
    var seriesNumber: String?
    var readingLevel: String?
    var coverUrl: String?
    var updatedAt: Date?
}

struct SyncCopy: Content, Equatable {
    var titleId: UUID
    var barcode: String
    var copyNumber: Int
    var status: String
    var location: String?
}

/// What a phone lending offline needs of a member: card, name, class, whether they may borrow. Not
/// their e-mail address or notes.
struct SyncMember: Content, Equatable {
    var cardId: String
    var firstName: String
    var lastName: String
    var grade: String?
    var suspendedUntil: Date?
}

/// An open loan.
struct SyncLoan: Content, Equatable {
    var copyId: UUID?
    var titleId: UUID?
    var memberId: UUID?
    var dueAt: Date
    var renewals: Int
}

/// `POST …/sync/push`: a device's queued mutations, numbered by the device.
struct SyncPush: Content {
    /// The device (or app installation) that made the mutations: its own name for itself.
    var clientId: String
    var mutations: [SyncMutation]
}

enum SyncOperation: String, Codable, Sendable, CaseIterable, SchemaEnum {
    case checkout, `return`, renew, progress, quote, editTitle
}

/// One domain operation, made on a device. Which fields it needs depends on `op`:
/// - checkout: `cardId` or `memberId`, and `copyBarcode` or `titleId` (`lendHeld` as the lending form);
/// - return: `copyBarcode` or `loanId`; renew: `loanId`;
/// - progress: `titleId` and `page` or `percent` (`at`, when it was read);
/// - quote: `titleId`, `text` (`page`, `note`);
/// - editTitle: `titleId`, the new values in `fields`, the values they replace in `base`, and `editedAt`.
struct SyncMutation: Content {
    /// The device's number for it, unique per device: a mutation sent again is answered, not applied again.
    var seq: Int
    var op: SyncOperation
    var cardId: String?
    var memberId: UUID?
    var copyBarcode: String?
    var titleId: UUID?
    var loanId: UUID?
    var lendHeld: Bool?
    var page: Int?
    var percent: Int?
    var at: Date?
    var text: String?
    var quotePage: String?
    var note: String?
    var fields: SyncTitleFields?
    var base: SyncTitleFields?
    var editedAt: Date?
}

/// The fields of a title a device may edit; an empty text clears one.
struct SyncTitleFields: Content, Equatable {
    var title: String?
    var subtitle: String?
    var authors: [String]?
    var publisher: String?
    var publishedDate: String?
    var pageCount: Int?
    var series: String?
    var seriesNumber: String?
    var readingLevel: String?
}

struct SyncPushResult: Content {
    var results: [SyncOutcome]
}

/// What became of one mutation: applied, or rejected with the reason and the state that refused it.
struct SyncOutcome: Content {
    enum Status: String, Codable, Sendable, CaseIterable, SchemaEnum { case applied, rejected }
    var seq: Int
    var status: Status
    /// Answered from an earlier push: it was applied (or rejected) then, and nothing was done now.
    var repeated: Bool?
    var code: String?
    var message: String?
    var field: String?
    var details: [String: String]?
    var loan: LoanDTO?
    var read: ReadDTO?
    var quote: QuoteDTO?
    /// The title after an edit; with `kept`, the fields where a newer change on the server won.
    var title: SyncTitle?
    var kept: [String]?
    /// Circulation refused: the copy as it is now, and its open loan.
    var copy: SyncCopy?
    var openLoan: SyncLoan?
}
