import Fluent
import NIOConcurrencyHelpers
import FluentSQL
import Foundation
import ShelfmarkCore
import SQLKit

/// Reading life (E1–E3): reads, progress events, goals and statistics, for a reader — a user account
/// (private to them) or a member without a login (staff who lend keep the log). Every call is
/// scoped to the library and the reader: another reader's read is "not found".
enum ReadingLog {
    static let listLimit = 200
    /// How far ahead of the server's clock an event may be dated (a phone's clock runs a little fast).
    static let futureSlack: TimeInterval = 86_400

    // MARK: Reads

    static func start(_ input: ReadInput, reader: Reader, in scope: Scope) async throws -> ReadDTO {
        let title = try await Catalog.find(input.titleId, library: scope.libraryID, on: scope.db)
        let status = try input.status.map(parseStatus) ?? .wantToRead
        let rating = try checkedRating(input.rating)
        let review = try Check.optional(input.review, field: "review", max: 20_000)
        try checkMoment(input.startedAt, scope: scope)
        try checkMoment(input.finishedAt, scope: scope)
        return try await scope.gate.transaction(on: scope.db) { db in
            let read = Read(library: scope.libraryID, reader: reader, titleID: title.id, title: title.title, author: title.authors.first,
                            pageCount: title.pageCount, status: status, at: scope.now)
            read.startedAt = input.startedAt ?? (status == .wantToRead ? nil : scope.now)
            read.finishedAt = input.finishedAt ?? (status == .finished || status == .didNotFinish ? scope.now : nil)
            read.rating = rating
            read.review = review
            derive(read, events: [])
            try await read.create(on: db)
            StatsCache.shared.invalidate(library: scope.libraryID, reader: reader.key)
            return read.dto
        }
    }

    static func update(_ id: UUID, _ patch: ReadPatch, reader: Reader, in scope: Scope) async throws -> ReadDTO {
        let status = try patch.status.map(parseStatus)
        let rating = try checkedRating(patch.rating)
        let review = try Check.optional(patch.review, field: "review", max: 20_000)
        try checkMoment(patch.startedAt, scope: scope)
        try checkMoment(patch.finishedAt, scope: scope)
        return try await scope.gate.transaction(on: scope.db) { db in
            let read = try await find(id, reader: reader, library: scope.libraryID, on: db)
            if let status, status != read.readStatus {
                read.status = status.rawValue
                switch status {
                case .reading: if read.startedAt == nil { read.startedAt = scope.now }; read.finishedAt = nil
                case .finished, .didNotFinish:
                    if read.startedAt == nil { read.startedAt = read.lastProgressAt ?? scope.now }
                    read.finishedAt = scope.now
                case .wantToRead: read.startedAt = nil; read.finishedAt = nil
                }
            }
            if let started = patch.startedAt { read.startedAt = started }
            if let finished = patch.finishedAt { read.finishedAt = finished }
            if patch.rating != nil { read.rating = rating }
            if patch.review != nil { read.review = review }
            read.updatedAt = scope.now
            derive(read, events: try await entries(of: read.id!, on: db), followProgress: false)
            try await read.save(on: db)
            StatsCache.shared.invalidate(library: scope.libraryID, reader: reader.key)
            return read.dto
        }
    }

    static func delete(_ id: UUID, reader: Reader, in scope: Scope) async throws {
        try await scope.gate.transaction(on: scope.db) { db in
            let read = try await find(id, reader: reader, library: scope.libraryID, on: db)
            try await ReadingDays.remove(readID: id, reader: reader, library: scope.libraryID, on: db.sql)
            try await read.delete(on: db)
            StatsCache.shared.invalidate(library: scope.libraryID, reader: reader.key)
        }
    }

    static func detail(_ id: UUID, reader: Reader, libraryID: UUID, on db: any Database) async throws -> ReadDetail {
        let read = try await find(id, reader: reader, library: libraryID, on: db)
        let events = try await ProgressEvent.query(on: db).filter(\.$read.$id == id).sort(\.$at).sort(\.$createdAt).all()
        return ReadDetail(read: read.dto, events: events.map {
            ProgressEventDTO(id: $0.id!, at: $0.at, unit: $0.unit, value: $0.value, label: $0.label)
        })
    }

    /// The reader's reads, newest activity first, optionally of one status or one title.
    static func list(reader: Reader, status: ReadStatus?, titleID: UUID? = nil, libraryID: UUID, limit: Int, offset: Int,
                     on db: any Database) async throws -> [ReadDTO] {
        var query = readsOf(reader, libraryID: libraryID, on: db)
        if let status { query = query.filter(\.$status == status.rawValue) }
        if let titleID { query = query.filter(\.$titleID == titleID) }
        return try await query.sort(\.$updatedAt, .descending).sort(\.$id).range(offset..<(offset + limit)).all().map(\.dto)
    }

    static func count(reader: Reader, status: ReadStatus?, libraryID: UUID, on db: any Database) async throws -> Int {
        var query = readsOf(reader, libraryID: libraryID, on: db)
        if let status { query = query.filter(\.$status == status.rawValue) }
        return try await query.count()
    }

    // MARK: Progress

    /// Records one progress event on a read and derives its position and status again from all its
    /// events in time order. An event whose id is already recorded is not recorded again.
    static func addProgress(_ input: ProgressInput, to id: UUID, reader: Reader, language: SpokenProgress.Language,
                            in scope: Scope) async throws -> ReadDTO {
        let entry = try progressEntry(input, language: language, scope: scope)
        return try await scope.gate.transaction(on: scope.db) { db in
            let read = try await find(id, reader: reader, library: scope.libraryID, on: db)
            return try await record(entry, eventID: input.id, on: read, scope: scope, db: db)
        }
    }

    /// Progress on a title: on the reader's open read of it (want to read, reading or stopped), or on
    /// a new read when there is none (a finished book read again is a re-read).
    static func progressOnTitle(_ titleID: UUID, _ input: ProgressInput, reader: Reader, language: SpokenProgress.Language,
                                in scope: Scope) async throws -> ReadDTO {
        let title = try await Catalog.find(titleID, library: scope.libraryID, on: scope.db)
        let entry = try progressEntry(input, language: language, scope: scope)
        return try await scope.gate.transaction(on: scope.db) { db in
            if let eventID = input.id, let done = try await ProgressEvent.query(on: db).filter(\.$id == eventID).with(\.$read).first(),
               done.read.reader == reader, done.read.$library.id == scope.libraryID {
                return done.read.dto
            }
            let open = try await readsOf(reader, libraryID: scope.libraryID, on: db).filter(\.$titleID == titleID)
                .filter(\.$status != ReadStatus.finished.rawValue).sort(\.$updatedAt, .descending).first()
            let read: Read
            if let open {
                read = open
            } else {
                read = Read(library: scope.libraryID, reader: reader, titleID: titleID, title: title.title, author: title.authors.first,
                            pageCount: title.pageCount, status: .wantToRead, at: scope.now)
                try await read.create(on: db)
            }
            read.pageCount = title.pageCount
            return try await record(entry, eventID: input.id, on: read, scope: scope, db: db)
        }
    }

    /// On PostgreSQL two events for one read may arrive at once: the read's row is locked before its
    /// events are read or written, so each transaction sees the other's gains and the pages kept per
    /// day stay equal to the events'. `FOR NO KEY UPDATE`, not `FOR UPDATE`: an event's foreign key
    /// holds a key-share lock on the read, which `FOR UPDATE` would wait for (a deadlock between two
    /// events). SQLite's writes are one at a time already.
    private static func lock(_ readID: UUID, on db: any Database) async throws {
        if !db.isSQLite { try await db.sql.raw("SELECT id FROM reads WHERE id = \(bind: readID) FOR NO KEY UPDATE").run() }
    }

    private static func record(_ entry: ProgressEntry, eventID: UUID?, on read: Read, scope: Scope, db: any Database) async throws -> ReadDTO {
        try await lock(read.id!, on: db)
        if let eventID, try await ProgressEvent.find(eventID, on: db) != nil { return read.dto }
        if entry.kind == .page, let page = entry.value, let pages = read.pageCount, pages > 0, page > pages {
            throw ReadingError.pageBeyondEnd(page: page, pages: pages)
        }
        let event = ProgressEvent()
        event.id = eventID ?? UUID()
        event.$read.id = read.id!
        event.at = entry.at
        event.unit = entry.kind.rawValue
        event.value = entry.value
        event.label = entry.label
        event.createdAt = scope.now
        event.day = ReadingRules.dayNumber(entry.at, in: scope.library.policy.timeZone)
        event.gain = 0
        try await event.create(on: db)
        let events = try await refreshGains(of: read, zone: scope.library.policy.timeZone, on: db)
        let before = read.readStatus
        derive(read, events: events)
        if read.readStatus != before {
            if read.startedAt == nil { read.startedAt = events.first?.at ?? entry.at }
            if read.readStatus == .finished { read.finishedAt = entry.at }
            if read.readStatus == .reading { read.finishedAt = nil }
        }
        if read.startedAt == nil, read.readStatus != .wantToRead { read.startedAt = events.first?.at }
        read.updatedAt = scope.now
        try await read.save(on: db)
        if let reader = read.reader { StatsCache.shared.invalidate(library: scope.libraryID, reader: reader.key) }
        return read.dto
    }

    /// The read's position and status from its events (status only moves forward from progress;
    /// the reader's own choice of status is kept otherwise).
    private static func derive(_ read: Read, events: [ProgressEntry], followProgress: Bool = true) {
        let position = ReadingRules.position(of: events, pageCount: read.pageCount, status: read.readStatus)
        read.progressPage = position.page
        read.progressFraction = position.fraction
        read.progressLabel = position.label
        read.lastProgressAt = events.last?.at
        if followProgress { read.status = ReadingRules.status(after: position, was: read.readStatus).rawValue }
        if read.readStatus == .finished {
            read.progressFraction = 1
            if let pages = read.pageCount { read.progressPage = pages }
        }
    }

    /// Sets each event's pages gained and day again (a late event changes what the ones after it
    /// added) and answers the read's events in time order. Only rows that change are written.
    @discardableResult
    /// A caller adding an event locks the read first (`record`), so two events at once see each other.
    static func refreshGains(of read: Read, zone: TimeZone, on db: any Database) async throws -> [ProgressEntry] {
        let events = try await ProgressEvent.query(on: db).filter(\.$read.$id == read.id!).sort(\.$at).sort(\.$createdAt).all()
        let entries = events.map(\.entry)
        let gains = ReadingRules.gains(of: entries, pageCount: read.pageCount)
        var delta: [Int: Int] = [:]
        var (coveredBefore, coveredAfter) = (0, 0)
        for (event, gain) in zip(events, gains) {
            let day = ReadingRules.dayNumber(event.at, in: zone)
            coveredBefore += event.gain
            coveredAfter += gain
            if event.gain != gain || event.day != day {
                delta[event.day, default: 0] -= event.gain
                delta[day, default: 0] += gain
                event.gain = gain
                event.day = day
                try await event.save(on: db)
            }
        }
        if let reader = read.reader {
            try await ReadingDays.add(delta, reader: reader, library: read.$library.id, on: db.sql)
        }
        if coveredBefore != coveredAfter {
            try await db.sql.update("reads").set("covered", to: coveredAfter).where("id", .equal, read.id!).run()
        }
        return entries
    }

    /// After a restore: every read's pages gained and days, in its library's time zone.
    static func refreshGains(readIDs: [UUID], library: UUID, on db: any Database) async throws {
        guard !readIDs.isEmpty, let lib = try await Library.find(library, on: db) else { return }
        let zone = Library.zone(lib.timeZone)
        for chunk in readIDs.chunked(500) {
            for read in try await Read.query(on: db).filter(\.$id ~~ chunk).all() {
                try await refreshGains(of: read, zone: zone, on: db)
            }
        }
    }

    private static func entries(of readID: UUID, on db: any Database) async throws -> [ProgressEntry] {
        try await ProgressEvent.query(on: db).filter(\.$read.$id == readID).sort(\.$at).sort(\.$createdAt).all().map(\.entry)
    }

    /// The one event a progress input describes: a page, a percentage, pages read, a label, or a
    /// phrase read by `SpokenProgress`.
    static func progressEntry(_ input: ProgressInput, language: SpokenProgress.Language, scope: Scope) throws -> ProgressEntry {
        let at = input.at ?? scope.now
        try checkMoment(at, scope: scope)
        let label = try Check.optional(input.label, field: "label", max: ProgressEntry.labelMaxLength)
        let phrase = try Check.optional(input.phrase, field: "phrase", max: SpokenProgress.maxPhraseLength)
        let given = [input.page != nil, input.percent != nil, input.pagesRead != nil, phrase != nil].filter { $0 }.count
        guard given == 1 || (given == 0 && label != nil) else {
            throw ReadingError.sayOneProgress
        }
        if let phrase {
            let spoken: SpokenProgress
            do {
                spoken = try SpokenProgress.parse(phrase, language: language)
            } catch .noNumber {
                throw ReadingError.noPageHeard(phrase: phrase)
            } catch .outOfRange(let n) {
                throw ReadingError.heardOutOfRange(n)
            }
            switch spoken {
            case .page(let p): return ProgressEntry(at: at, kind: .page, value: p, label: label)
            case .percent(let p): return ProgressEntry(at: at, kind: .percent, value: p)
            case .pagesRead(let n): return ProgressEntry(at: at, kind: .pagesRead, value: n)
            }
        }
        if let page = try Check.range(input.page, SpokenProgress.pageRange, field: "page") {
            return ProgressEntry(at: at, kind: .page, value: page, label: label)
        }
        if let percent = try Check.range(input.percent, SpokenProgress.percentRange, field: "percent") {
            return ProgressEntry(at: at, kind: .percent, value: percent)
        }
        if let n = try Check.range(input.pagesRead, SpokenProgress.pageRange, field: "pagesRead") {
            return ProgressEntry(at: at, kind: .pagesRead, value: n)
        }
        guard let label else { throw ReadingError.sayOneProgress }
        return ProgressEntry(at: at, kind: .page, value: nil, label: label)
    }

    // MARK: Import and export

    /// A book's reading history from an import file (Goodreads, StoryGraph, LibraryThing).
    struct ImportedHistory: Sendable {
        var titleID: UUID
        var title: String
        var author: String?
        var pageCount: Int?
        var reads: [ImportedRead]
        var rating: Double?
    }

    /// Adds the importing user's reads, inside the import's transaction. A book the user already has
    /// reads of is left as it is (importing the same file twice does not double the history); an
    /// import from the command line (no account) brings no history.
    static func importHistory(_ history: [ImportedHistory], user userID: UUID, library: UUID, now: Date, on db: any Database) async throws {
        guard !history.isEmpty, try await User.find(userID, on: db) != nil else { return }
        StatsCache.shared.invalidate(library: library, reader: Reader.user(userID).key)
        var known = Set<UUID>()
        let titleIDs = history.map(\.titleID)
        for part in titleIDs.chunked(500) {
            for read in try await Read.query(on: db).filter(\.$library.$id == library).filter(\.$userID == userID)
                .filter(\.$titleID ~~ part).all() {
                if let id = read.titleID { known.insert(id) }
            }
        }
        for book in history where !known.contains(book.titleID) {
            known.insert(book.titleID)
            for (i, imported) in book.reads.enumerated() {
                let read = Read(library: library, reader: .user(userID), titleID: book.titleID, title: book.title, author: book.author,
                                pageCount: book.pageCount, status: imported.status, at: now)
                read.startedAt = imported.startedAt
                read.finishedAt = imported.finishedAt
                if i == 0, imported.status == .finished, let rating = book.rating, (0...5).contains(rating) { read.rating = (rating * 2).rounded() / 2 }
                read.updatedAt = imported.finishedAt ?? imported.startedAt ?? now
                derive(read, events: [], followProgress: false)
                try await read.create(on: db)
            }
        }
    }

    /// E1: one reader's history in Goodreads' CSV layout (one line per book, its latest read; Read
    /// Count counts its finished reads), so a reader can always leave.
    static func exportGoodreadsCSV(reader: Reader, libraryID: UUID, on db: any Database) async throws -> String {
        let reads = try await readsOf(reader, libraryID: libraryID, on: db).sort(\.$updatedAt, .descending).all()
        var titleRows: [UUID: (isbn: String?, isbn13: String?, publisher: String?, year: String?)] = [:]
        let ids = Array(Set(reads.compactMap(\.titleID)))
        for chunk in ids.chunked(500) {
            for t in try await Title.query(on: db).filter(\.$id ~~ chunk).all() {
                titleRows[t.id!] = (t.isbn13.flatMap { try? ISBN($0) }?.isbn10, t.isbn13, t.publisher, t.publishedDate.map { String($0.prefix(4)) })
            }
        }
        var byBook: [String: [Read]] = [:]
        var order: [String] = []
        for read in reads {
            let key = read.titleID?.uuidString ?? "t:" + read.titleText
            if byBook[key] == nil { order.append(key) }
            byBook[key, default: []].append(read)
        }
        func day(_ d: Date?) -> String {
            guard let d else { return "" }
            var calendar = Calendar(identifier: .gregorian)
            calendar.timeZone = TimeZone(identifier: "UTC")!
            let c = calendar.dateComponents([.year, .month, .day], from: d)
            return String(format: "%04d/%02d/%02d", c.year ?? 0, c.month ?? 0, c.day ?? 0)
        }
        var rows: [[String]] = [["Book Id", "Title", "Author", "Additional Authors", "ISBN", "ISBN13", "My Rating", "Publisher",
                                 "Number of Pages", "Year Published", "Date Read", "Date Added", "Bookshelves", "Exclusive Shelf",
                                 "My Review", "Read Count"]]
        for (n, key) in order.enumerated() {
            let all = byBook[key]!
            let latest = all[0]
            let shelf: String = switch latest.readStatus {
            case .finished: "read"
            case .reading: "currently-reading"
            case .wantToRead: "to-read"
            case .didNotFinish: "did-not-finish"
            }
            let finished = all.filter { $0.readStatus == .finished }
            let info = latest.titleID.flatMap { titleRows[$0] }
            let rating = finished.compactMap(\.rating).first.map { String(Int($0.rounded())) } ?? "0"
            rows.append([String(n + 1), latest.titleText, latest.authorText ?? "", "", info?.isbn ?? "", info?.isbn13 ?? "", rating, info?.publisher ?? "", latest.pageCount.map(String.init) ?? "",
                         info?.year ?? "", day(finished.compactMap(\.finishedAt).max()),
                         day(all.flatMap { [$0.startedAt, $0.finishedAt, $0.createdAt].compactMap { $0 } }.min()), shelf, shelf,
                         latest.review ?? "", String(finished.count)])
        }
        return rows.map(CSVWriter.line).joined()
    }

    // MARK: Goals

    static func setGoal(year: Int, books: Int?, pages: Int?, reader: Reader, in scope: Scope) async throws -> GoalDTO {
        _ = try Check.range(year, goalYears, field: "year")
        let books = try Check.range(books, 1...10_000, field: "books")
        let pages = try Check.range(pages, 1...10_000_000, field: "pages")
        try await scope.gate.transaction(on: scope.db) { db in
            let existing = try await ReadingGoal.query(on: db).filter(\.$library.$id == scope.libraryID)
                .filter(\.$readerKey == reader.key).filter(\.$year == year).first()
            if books == nil && pages == nil {
                try await existing?.delete(on: db)
                return
            }
            let goal = existing ?? ReadingGoal()
            goal.$library.id = scope.libraryID
            goal.userID = reader.userID
            goal.memberID = reader.memberID
            goal.readerKey = reader.key
            goal.year = year
            goal.books = books
            goal.pages = pages
            try await goal.save(on: db)
        }
        let stats = try await stats(year: year, reader: reader, in: scope)
        return stats.goal ?? GoalDTO(year: year, books: nil, pages: nil, booksDone: stats.books, pagesDone: stats.pages)
    }

    static let goalYears = 1900...2200

    // MARK: Statistics

    /// E3: a reader's year: books and pages per month and per year, streaks, goal pace, statuses,
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

    // MARK: Helpers

    /// The day number (`ReadingRules.dayNumber`) of 1 January of a year.
    private static func daysSince1970(year: Int) -> Int {
        var utc = Calendar(identifier: .gregorian)
        utc.timeZone = TimeZone(identifier: "UTC")!
        let start = utc.date(from: DateComponents(year: year, month: 1, day: 1)) ?? Date(timeIntervalSince1970: 0)
        return Int((start.timeIntervalSince1970 / 86_400).rounded(.down))
    }

    static func find(_ id: UUID, reader: Reader, library: UUID, on db: any Database) async throws -> Read {
        guard let read = try await readsOf(reader, libraryID: library, on: db).filter(\.$id == id).first() else {
            throw ReadingError.readNotFound
        }
        return read
    }

    private static func readsOf(_ reader: Reader, libraryID: UUID, on db: any Database) -> QueryBuilder<Read> {
        let query = Read.query(on: db).filter(\.$library.$id == libraryID)
        switch reader {
        case .user(let id): return query.filter(\.$userID == id)
        case .member(let id): return query.filter(\.$memberID == id)
        }
    }

    private static func readerCondition(_ reader: Reader) -> SQLQueryString {
        switch reader {
        case .user(let id): "r.user_id = \(bind: id)"
        case .member(let id): "r.member_id = \(bind: id)"
        }
    }

    static func parseStatus(_ raw: String) throws -> ReadStatus {
        guard let status = ReadStatus(rawValue: raw) else { throw ReadingError.unknownStatus(raw) }
        return status
    }

    private static func checkedRating(_ rating: Double?) throws -> Double? {
        guard let rating else { return nil }
        guard (0...5).contains(rating), rating.isFinite else { throw CatalogError.ratingOutOfRange(rating) }
        return (rating * 2).rounded() / 2
    }

    private static func checkMoment(_ date: Date?, scope: Scope) throws {
        guard let date else { return }
        if date.timeIntervalSince(scope.now) > futureSlack || date.timeIntervalSince1970 < -2_208_988_800 { // before 1900
            throw ReadingError.momentInFuture
        }
    }
}

extension Read {
    var dto: ReadDTO {
        ReadDTO(id: id!, titleId: titleID, title: titleText, authors: authorText, pageCount: pageCount, status: status,
                startedAt: startedAt, finishedAt: finishedAt, rating: rating, review: review, page: progressPage,
                pageLabel: progressLabel, percent: position.percent, lastProgressAt: lastProgressAt, memberId: memberID)
    }
}

/// The last statistics of each reader and year (today's), with the version of the reads they were
/// worked out from (see `ReadingLog.stats`). Bounded: the oldest half goes when it is full.
final class StatsCache: Sendable {
    struct Key: Hashable, Sendable { var library: UUID; var reader: String; var year: Int; var day: Int }
    static let shared = StatsCache()
    static let capacity = 512

    private let entries = NIOLockedValueBox<[Key: (version: String, stats: ReadingStatsDTO, used: UInt64)]>([:])
    private let clock = NIOLockedValueBox<UInt64>(0)

    func get(_ key: Key, version: String) -> ReadingStatsDTO? {
        let tick = clock.withLockedValue { $0 += 1; return $0 }
        return entries.withLockedValue { all in
            guard let entry = all[key], entry.version == version else { return nil }
            all[key]?.used = tick
            return entry.stats
        }
    }

    /// A write in this process: the reader's figures are worked out again (the version catches writes
    /// in other processes; this catches two in the same millisecond).
    func invalidate(library: UUID, reader: String) {
        entries.withLockedValue { all in
            for key in all.keys where key.library == library && key.reader == reader { all.removeValue(forKey: key) }
        }
    }

    func set(_ key: Key, version: String, _ stats: ReadingStatsDTO) {
        let tick = clock.withLockedValue { $0 += 1; return $0 }
        entries.withLockedValue { all in
            if all.count >= Self.capacity {
                for old in all.sorted(by: { $0.value.used < $1.value.used }).prefix(Self.capacity / 2) { all.removeValue(forKey: old.key) }
            }
            all[key] = (version, stats, tick)
        }
    }
}
