import Fluent
import Foundation
import ShelfmarkCore

/// Whose reading: a user account (their own, private to them) or a member without a login (a log
/// kept by the library's staff).
enum Reader: Sendable, Equatable, Hashable {
    case user(UUID)
    case member(UUID)

    /// The goal table's key: one goal per reader and year.
    var key: String {
        switch self {
        case .user(let id): "u:\(id.uuidString)"
        case .member(let id): "m:\(id.uuidString)"
        }
    }
    var userID: UUID? { if case .user(let id) = self { id } else { nil } }
    var memberID: UUID? { if case .member(let id) = self { id } else { nil } }
}

/// One reading of a title by a reader. A re-read is a new read. The position is kept here,
/// derived from the events, so lists do not read the events.
final class Read: Model, @unchecked Sendable {
    static let schema = "reads"

    @ID(key: .id) var id: UUID?
    @Parent(key: "library_id") var library: Library
    @OptionalField(key: "user_id") var userID: UUID?
    @OptionalField(key: "member_id") var memberID: UUID?
    @OptionalField(key: "title_id") var titleID: UUID?
    @Field(key: "title_text") var titleText: String
    @OptionalField(key: "author_text") var authorText: String?
    @OptionalField(key: "page_count") var pageCount: Int?
    @Field(key: "status") var status: String
    @OptionalField(key: "started_at") var startedAt: Date?
    @OptionalField(key: "finished_at") var finishedAt: Date?
    @OptionalField(key: "rating") var rating: Double?
    @OptionalField(key: "review") var review: String?
    @OptionalField(key: "progress_page") var progressPage: Int?
    @OptionalField(key: "progress_fraction") var progressFraction: Double?
    @OptionalField(key: "progress_label") var progressLabel: String?
    @OptionalField(key: "last_progress_at") var lastProgressAt: Date?
    @Field(key: "created_at") var createdAt: Date
    @Field(key: "updated_at") var updatedAt: Date

    init() {}

    /// A new read of a book by a reader, with the book's name, first author and length as they are now
    /// (kept, so the history survives the book's deletion).
    init(library: UUID, reader: Reader, titleID: UUID?, title: String, author: String?, pageCount: Int?, status: ReadStatus, at now: Date) {
        self.id = UUID()
        self.$library.id = library
        self.userID = reader.userID
        self.memberID = reader.memberID
        self.titleID = titleID
        self.titleText = title
        self.authorText = author
        self.pageCount = pageCount
        self.status = status.rawValue
        self.createdAt = now
        self.updatedAt = now
    }

    var readStatus: ReadStatus { ReadStatus(rawValue: status) ?? .wantToRead }
    var reader: Reader? { userID.map(Reader.user) ?? memberID.map(Reader.member) }
    var position: ReadPosition { ReadPosition(page: progressPage, label: progressLabel, fraction: progressFraction) }
}

/// One progress event: append-only; its id may be chosen by the client, so an event sent
/// twice (an offline client retrying) is recorded once.
final class ProgressEvent: Model, @unchecked Sendable {
    static let schema = "progress_events"

    @ID(key: .id) var id: UUID?
    @Parent(key: "read_id") var read: Read
    @Field(key: "at") var at: Date
    @Field(key: "unit") var unit: String
    @OptionalField(key: "value") var value: Int?
    @OptionalField(key: "label") var label: String?
    @Field(key: "created_at") var createdAt: Date
    /// The day in the library's time zone (days since 1970) and the pages this event added.
    @Field(key: "day") var day: Int
    @Field(key: "gain") var gain: Int

    init() {}

    var entry: ProgressEntry { ProgressEntry(at: at, kind: ProgressUnit(rawValue: unit) ?? .page, value: value, label: label) }
}

/// A reader's goal for a year: books, pages, or both.
final class ReadingGoal: Model, @unchecked Sendable {
    static let schema = "reading_goals"

    @ID(key: .id) var id: UUID?
    @Parent(key: "library_id") var library: Library
    @OptionalField(key: "user_id") var userID: UUID?
    @OptionalField(key: "member_id") var memberID: UUID?
    @Field(key: "reader_key") var readerKey: String
    @Field(key: "year") var year: Int
    @OptionalField(key: "books") var books: Int?
    @OptionalField(key: "pages") var pages: Int?

    init() {}
}

/// A quote or note a reader keeps from a book, private to the reader.
final class Quote: Model, @unchecked Sendable {
    static let schema = "quotes"

    @ID(key: .id) var id: UUID?
    @Parent(key: "library_id") var library: Library
    @Field(key: "user_id") var userID: UUID
    @Field(key: "title_id") var titleID: UUID
    /// The page as printed: "157", "ix".
    @OptionalField(key: "page") var page: String?
    @Field(key: "text") var text: String
    @OptionalField(key: "note") var note: String?
    @OptionalField(key: "photo_id") var photoID: UUID?
    @Field(key: "search_text") var searchText: String
    @Field(key: "created_at") var createdAt: Date

    init() {}

    /// What a quote search matches: the quote, the reader's note, the book's title and authors, as word prefixes.
    static func searchText(text: String, note: String?, title: String, authors: [String]) -> String {
        " " + SearchText.document([text, note, title, authors.joined(separator: " ")]) + " "
    }
}

/// A photo of a book page, private to the reader who took it.
final class PagePhoto: Model, @unchecked Sendable {
    static let schema = "page_photos"

    @ID(key: .id) var id: UUID?
    @Parent(key: "library_id") var library: Library
    @Field(key: "user_id") var userID: UUID
    @Field(key: "title_id") var titleID: UUID
    @OptionalField(key: "page") var page: String?
    @Field(key: "original") var original: Data
    @Field(key: "original_width") var originalWidth: Int
    @Field(key: "original_height") var originalHeight: Int
    /// "x1,y1,…,x4,y4" as fractions of the upright photo; nil: not cropped.
    @OptionalField(key: "corners") var corners: String?
    @Field(key: "image") var image: Data
    @Field(key: "width") var width: Int
    @Field(key: "height") var height: Int
    @Field(key: "thumbnail") var thumbnail: Data
    /// The markup layer as JSON (`PhotoMarkup`).
    @OptionalField(key: "markup") var markup: String?
    @Field(key: "created_at") var createdAt: Date
    @Field(key: "updated_at") var updatedAt: Date

    init() {}
}

/// A year summary shared by a secret link.
final class ReadingShare: Model, @unchecked Sendable {
    static let schema = "reading_shares"

    @ID(key: .id) var id: UUID?
    @Parent(key: "library_id") var library: Library
    @Field(key: "user_id") var userID: UUID
    @Field(key: "year") var year: Int
    /// The SHA-256 (hex) of the link's token (32 random bytes, base64url): the address is the secret,
    /// shown to the reader once, when the link is made.
    @Field(key: "token") var tokenHash: String
    @Field(key: "created_at") var createdAt: Date

    init() {}
}
