import Foundation
import ShelfmarkCore
import Vapor

/// A read as the API shows it.
struct ReadDTO: Content {
    var id: UUID
    var titleId: UUID?
    var title: String
    var authors: String?
    var pageCount: Int?
    /// want_to_read, reading, finished or did_not_finish.
    var status: String
    var startedAt: Date?
    var finishedAt: Date?
    var rating: Double?
    var review: String?
    /// The page reached, when known.
    var page: Int?
    /// A page label ("ix") from the last event, when it had one.
    var pageLabel: String?
    /// 0–100, when it can be said (a page count, or a percentage given).
    var percent: Int?
    var lastProgressAt: Date?
    /// Set for a member's reading log.
    var memberId: UUID?
}

struct ProgressEventDTO: Content {
    var id: UUID
    var at: Date
    /// page, percent or pages_read.
    var unit: String
    var value: Int?
    var label: String?
}

/// A read with its progress events, oldest first.
struct ReadDetail: Content {
    var read: ReadDTO
    var events: [ProgressEventDTO]
}

/// Start a read of a title: for yourself, or (staff who lend) for a member without a login.
struct ReadInput: Content {
    var titleId: UUID
    var memberId: UUID?
    var status: String?
    var startedAt: Date?
    var finishedAt: Date?
    var rating: Double?
    var review: String?
}

struct ReadPatch: Content {
    var status: String?
    var startedAt: Date?
    var finishedAt: Date?
    var rating: Double?
    var review: String?
}

/// One progress event: exactly one of page, percent, pagesRead, label or phrase (a transcript the
/// server reads). `id` makes a retry harmless; `at` (default now) places a late event in order.
struct ProgressInput: Content {
    var id: UUID?
    var at: Date?
    var page: Int?
    var percent: Int?
    var pagesRead: Int?
    var label: String?
    var phrase: String?
    /// The language of `phrase` (en, de, ga, zh); default the request's.
    var language: String?
    /// For progress on a title (`POST …/titles/{id}/progress`): a member's log instead of your own.
    var memberId: UUID?
}

/// A yearly goal: books, pages, or both; neither removes it.
struct GoalInput: Content {
    var year: Int
    var books: Int?
    var pages: Int?
    var memberId: UUID?
}

struct GoalDTO: Content {
    var year: Int
    var books: Int?
    var pages: Int?
    var booksDone: Int
    var pagesDone: Int
    /// Books ahead of pace (negative: behind), when there is a book goal.
    var booksAhead: Int?
    var pagesAhead: Int?
}

/// A reader's statistics for a year.
struct ReadingStatsDTO: Content {
    struct Month: Content { var month: Int; var books: Int; var pages: Int }
    struct Year: Content { var year: Int; var books: Int; var pages: Int }
    struct Count: Content { var name: String; var books: Int }
    struct StatusCount: Content { var status: String; var reads: Int }
    struct Book: Content { var readId: UUID; var titleId: UUID?; var title: String; var pages: Int }
    struct Current: Content {
        var readId: UUID; var titleId: UUID?; var title: String; var page: Int?; var pageCount: Int?; var percent: Int?
        var pagesPerDay: Double?; var projectedFinish: Date?
    }

    var year: Int
    var books: Int
    var pages: Int
    var goal: GoalDTO?
    var months: [Month]
    var years: [Year]
    var currentStreak: Int
    var longestStreak: Int
    /// Reads by status (all years).
    var statuses: [StatusCount]
    /// Finished books of the year by whole stars, index 0 = 1 star … 4 = 5 stars.
    var ratings: [Int]
    var topAuthors: [Count]
    var topCategories: [Count]
    var longest: Book?
    var shortest: Book?
    var current: [Current]
}

/// What a phrase says, without recording it.
struct SpokenDTO: Content {
    var page: Int?
    var percent: Int?
    var pagesRead: Int?
}

struct SpokenInput: Content {
    var phrase: String
    var language: String?
}

/// A quote or note from a book.
struct QuoteDTO: Content {
    var id: UUID
    var titleId: UUID
    var title: String
    var authors: [String]
    var page: String?
    var text: String
    var note: String?
    var photoId: UUID?
    var createdAt: Date
}

struct QuoteInput: Content {
    var titleId: UUID
    var page: String?
    var text: String
    var note: String?
    var photoId: UUID?
}

/// A page photo. The image addresses are relative to the server.
struct PhotoDTO: Content {
    var id: UUID
    var titleId: UUID
    var page: String?
    var width: Int
    var height: Int
    var originalWidth: Int
    var originalHeight: Int
    /// The page's corners as fractions of the upright photo, clockwise from the top left (8 numbers).
    var corners: [Double]?
    var markup: PhotoMarkup
    var image: String
    var thumbnail: String
    var original: String
    var createdAt: Date
}

/// The markup layer over a page photo: pen, pencil and highlighter strokes (a ruler's line is a stroke of
/// two points), points as fractions of the straightened page (so a new crop clears them; the eraser
/// removes strokes).
struct PhotoMarkup: Content, Equatable {
    struct Stroke: Content, Equatable {
        /// pen, pencil or highlighter.
        var tool: String
        /// #rrggbb.
        var color: String
        /// Line width as a fraction of the page's width.
        var width: Double
        /// x1, y1, x2, y2, … as fractions of the page's width and height.
        var points: [Double]
    }
    var strokes: [Stroke]

    static let maxStrokes = 500
    static let maxPoints = 4_000
    static let tools: Set<String> = ["pen", "pencil", "highlighter"]
}

struct CornersInput: Content {
    /// 8 numbers from 0 to 1, clockwise from the top left; absent or null: no crop.
    var corners: [Double]?
}

struct PhotoText: Content { var text: String }

struct QuoteList: Content {
    var items: [QuoteDTO]
    var total: Int
}
