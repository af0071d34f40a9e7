import Fluent
import FluentSQL
import Foundation
import ShelfmarkCore
import SQLKit

extension ReadingLog {
    // MARK: Statistics

    /// A reader's year: books and pages per month and per year, streaks, goal pace, statuses,
    /// ratings, top authors and categories, longest and shortest book, and each current read's pace.
    static func stats(year: Int, reader: Reader, in scope: Scope) async throws -> ReadingStatsDTO {
        _ = try Check.range(year, goalYears, field: "year")
        let db = scope.db
        // The figures change only when the reader's reads do (each write sets a read's updated_at; a
        // new read has a new created_at; a deletion changes the count): the last figures are kept
        // with that version, read from the database, so every process sees the same. The goal's pace
        // is worked out again each time (it moves with the clock).
        struct Version: Decodable { var n: Int; var updated: Date?; var created: Date? }
        let version = try await db.sql.raw("""
            SELECT COUNT(*) AS n, MAX(r.updated_at) AS updated, MAX(r.created_at) AS created FROM reads r
            WHERE r.library_id = \(bind: scope.libraryID) AND \(readerCondition(reader))
            """).first(decoding: Version.self)
        let today = ReadingRules.dayNumber(scope.now, in: scope.library.policy.timeZone)
        let key = StatsCache.Key(library: scope.libraryID, reader: reader.key, year: year, day: today)
        let stamp = "\(version?.n ?? 0)|\(version?.updated?.timeIntervalSince1970 ?? 0)|\(version?.created?.timeIntervalSince1970 ?? 0)"
        var figures: ReadingStatsDTO
        if let cached = StatsCache.shared.get(key, version: stamp) {
            figures = cached
        } else {
            figures = try await computeStats(year: year, reader: reader, in: scope)
            StatsCache.shared.set(key, version: stamp, figures)
        }
        figures.goal = nil
        if let goal = try await ReadingGoal.query(on: db).filter(\.$library.$id == scope.libraryID).filter(\.$readerKey == reader.key)
            .filter(\.$year == year).first() {
            let calendar = scope.library.policy.calendar
            let (books, pages) = (figures.books, figures.pages)
            figures.goal = GoalDTO(year: year, books: goal.books, pages: goal.pages, booksDone: books, pagesDone: pages,
                                   booksAhead: goal.books.map { GoalPace(target: $0, done: books, year: year, now: scope.now, calendar: calendar).ahead },
                                   pagesAhead: goal.pages.map { GoalPace(target: $0, done: pages, year: year, now: scope.now, calendar: calendar).ahead })
        }
        return figures
    }

    private static func computeStats(year: Int, reader: Reader, in scope: Scope) async throws -> ReadingStatsDTO {
        let db = scope.db
        let zone = scope.library.policy.timeZone
        // Three narrow queries instead of every read in full: the counts by status; each finished
        // read's finish and the pages its events did not cover (all years, for the streak and the
        // table by year); and in full only the current reads and the ones finished in this year.
        struct StatusCount: Decodable { var status: String; var n: Int }
        let statusCounts = try await db.sql.raw("""
            SELECT r.status, COUNT(*) AS n FROM reads r WHERE r.library_id = \(bind: scope.libraryID) AND \(readerCondition(reader))
            GROUP BY r.status
            """).all(decoding: StatusCount.self)
        struct Finish: Decodable { var finished_at: Date; var page_count: Int?; var covered: Int }
        let finishes = try await db.sql.raw("""
            SELECT r.finished_at, r.page_count, r.covered FROM reads r
            WHERE r.library_id = \(bind: scope.libraryID) AND \(readerCondition(reader))
              AND r.status = \(bind: ReadStatus.finished.rawValue) AND r.finished_at IS NOT NULL
            """).all(decoding: Finish.self)
        struct ReadFacts: Decodable {
            var id: UUID; var title_id: UUID?; var title_text: String; var author_text: String?; var page_count: Int?; var status: String
            var finished_at: Date?; var rating: Double?; var progress_page: Int?; var progress_fraction: Double?
        }
        // The year's days, and its moments with half a day to spare either side for any time zone.
        let firstDay = daysSince1970(year: year), endDay = daysSince1970(year: year + 1)
        let (from, to) = (Date(timeIntervalSince1970: Double(firstDay) * 86_400 - 86_400),
                          Date(timeIntervalSince1970: Double(endDay) * 86_400 + 86_400))
        let reads = try await db.sql.raw("""
            SELECT r.id, r.title_id, r.title_text, r.author_text, r.page_count, r.status, r.finished_at, r.rating, r.progress_page,
                   r.progress_fraction FROM reads r
            WHERE r.library_id = \(bind: scope.libraryID) AND \(readerCondition(reader))
              AND (r.status = \(bind: ReadStatus.reading.rawValue)
                   OR (r.status = \(bind: ReadStatus.finished.rawValue) AND r.finished_at >= \(bind: from) AND r.finished_at < \(bind: to)))
            """).all(decoding: ReadFacts.self)
        // Pages per day, kept per reader and day as events arrive (`ReadingDays`).
        struct DayRow: Decodable { var day: Int; var pages: Int }
        let dayRows = try await db.sql.raw("""
            SELECT day, pages FROM reading_days
            WHERE library_id = \(bind: scope.libraryID) AND reader_key = \(bind: reader.key) AND pages <> 0
            """).all(decoding: DayRow.self)

        var monthOfDay: [Int: (year: Int, month: Int)] = [:]
        func yearMonth(ofDay day: Int) -> (year: Int, month: Int) {
            if let known = monthOfDay[day] { return known }
            var utc = Calendar(identifier: .gregorian)
            utc.timeZone = TimeZone(identifier: "UTC")!
            let c = utc.dateComponents([.year, .month], from: Date(timeIntervalSince1970: Double(day) * 86_400 + 43_200))
            let value = (c.year ?? 1970, c.month ?? 1)
            monthOfDay[day] = value
            return value
        }
        var months = (1...12).map { ReadingStatsDTO.Month(month: $0, books: 0, pages: 0) }
        var years: [Int: (books: Int, pages: Int)] = [:]
        var days = Set<Int>()
        for row in dayRows {
            days.insert(row.day)
            let (y, m) = yearMonth(ofDay: row.day)
            years[y, default: (0, 0)].pages += row.pages
            if y == year { months[m - 1].pages += row.pages }
        }
        let statuses = Dictionary(statusCounts.map { ($0.status, $0.n) }, uniquingKeysWith: +)
        for finish in finishes {
            let day = ReadingRules.dayNumber(finish.finished_at, in: zone)
            days.insert(day)
            let (y, m) = yearMonth(ofDay: day)
            // A finished book's pages its events did not cover count on its finish day.
            let rest = max(0, (finish.page_count ?? 0) - finish.covered)
            years[y, default: (0, 0)].books += 1
            years[y, default: (0, 0)].pages += rest
            guard y == year else { continue }
            months[m - 1].books += 1
            months[m - 1].pages += rest
        }
        var ratings = [0, 0, 0, 0, 0]
        var authors: [String: Int] = [:]
        var finishedTitleIDs: [UUID] = []
        var longest: ReadingStatsDTO.Book? = nil
        var shortest: ReadingStatsDTO.Book? = nil
        var currentReads: [ReadFacts] = []
        for read in reads {
            if read.status == ReadStatus.reading.rawValue { currentReads.append(read) }
            guard read.status == ReadStatus.finished.rawValue, let finished = read.finished_at,
                  (firstDay..<endDay).contains(ReadingRules.dayNumber(finished, in: zone)) else { continue }
            if let rating = read.rating, rating > 0 { ratings[min(4, max(0, Int(rating.rounded()) - 1))] += 1 }
            if let author = read.author_text, !author.isEmpty { authors[author, default: 0] += 1 }
            if let titleID = read.title_id { finishedTitleIDs.append(titleID) }
            if let pages = read.page_count, pages > 0 {
                let book = ReadingStatsDTO.Book(readId: read.id, titleId: read.title_id, title: read.title_text, pages: pages)
                if pages > (longest?.pages ?? 0) { longest = book }
                if pages < (shortest?.pages ?? Int.max) { shortest = book }
            }
        }
        // Each current read's pace, from its events' stored gains (one row per read).
        var current: [ReadingStatsDTO.Current] = []
        if !currentReads.isEmpty {
            struct Pace: Decodable { var read_id: UUID; var n: Int; var pages: Int; var first_at: Date; var last_at: Date; var first_gain: Int? }
            var paces: [UUID: Pace] = [:]
            for chunk in currentReads.map(\.id).chunked(500) {
                for pace in try await db.sql.raw("""
                    SELECT e.read_id, COUNT(*) AS n, CAST(SUM(e.gain) AS BIGINT) AS pages, MIN(e.at) AS first_at, MAX(e.at) AS last_at,
                           (SELECT f.gain FROM progress_events f WHERE f.read_id = e.read_id AND f.gain > 0 ORDER BY f.at, f.created_at LIMIT 1) AS first_gain
                    FROM progress_events e WHERE e.read_id IN (\(binds: chunk)) AND e.gain > 0 GROUP BY e.read_id
                    """).all(decoding: Pace.self) {
                    paces[pace.read_id] = pace
                }
            }
            for read in currentReads {
                let speed = paces[read.id].flatMap {
                    ReadingRules.pagesPerDay(events: $0.n, pages: $0.pages, firstGain: $0.first_gain ?? 0, first: $0.first_at, last: $0.last_at)
                }
                let position = ReadPosition(page: read.progress_page, fraction: read.progress_fraction)
                current.append(.init(readId: read.id, titleId: read.title_id, title: read.title_text, page: read.progress_page,
                                     pageCount: read.page_count, percent: position.percent, pagesPerDay: speed.map { ($0 * 10).rounded() / 10 },
                                     projectedFinish: ReadingRules.projectedFinish(position: position, pageCount: read.page_count,
                                                                                   pagesPerDay: speed, now: scope.now)))
            }
        }
        var categories: [String: Int] = [:]
        if !finishedTitleIDs.isEmpty {
            let counts = Dictionary(finishedTitleIDs.map { ($0, 1) }, uniquingKeysWith: +)
            for chunk in Array(counts.keys).chunked(500) {
                let rows = try await db.sql.raw("""
                    SELECT c.name, tc.title_id FROM title_categories tc JOIN categories c ON c.id = tc.category_id
                    WHERE tc.title_id IN (\(binds: chunk))
                    """).all()
                for row in rows {
                    let titleID = try row.decode(column: "title_id", as: UUID.self)
                    categories[try row.decode(column: "name", as: String.self), default: 0] += counts[titleID] ?? 1
                }
            }
        }
        func top(_ counts: [String: Int]) -> [ReadingStatsDTO.Count] {
            counts.sorted { $0.value != $1.value ? $0.value > $1.value : $0.key < $1.key }.prefix(5).map { .init(name: $0.key, books: $0.value) }
        }
        let books = months.reduce(0) { $0 + $1.books }
        let pages = months.reduce(0) { $0 + $1.pages }
        let today = ReadingRules.dayNumber(scope.now, in: zone)
        return ReadingStatsDTO(
            year: year, books: books, pages: pages, goal: nil, months: months,
            years: years.keys.sorted().map { .init(year: $0, books: years[$0]!.books, pages: years[$0]!.pages) },
            currentStreak: ReadingStreak.current(days: days, today: today), longestStreak: ReadingStreak.longest(days: days),
            statuses: ReadStatus.allCases.map { .init(status: $0.rawValue, reads: statuses[$0.rawValue] ?? 0) }, ratings: ratings,
            topAuthors: top(authors), topCategories: top(categories),
            longest: longest, shortest: shortest, current: current.sorted { ($0.percent ?? 0) > ($1.percent ?? 0) })
    }

    /// The day number (`ReadingRules.dayNumber`) of 1 January of a year.
    static func daysSince1970(year: Int) -> Int {
        var utc = Calendar(identifier: .gregorian)
        utc.timeZone = TimeZone(identifier: "UTC")!
        let start = utc.date(from: DateComponents(year: year, month: 1, day: 1)) ?? Date(timeIntervalSince1970: 0)
        return Int((start.timeIntervalSince1970 / 86_400).rounded(.down))
    }
}
