import Fluent
import NIOConcurrencyHelpers
import FluentSQL
import Foundation
import ShelfmarkCore
import SQLKit

/// Reading life: reads, progress events, goals and statistics, for a reader — a user account
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
            try await lockFirstRead(reader, titleID: titleID, on: db)
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

    /// On PostgreSQL the first events for a title nobody reads yet may arrive at once (40 at once
    /// made 28 reads): each would find no open read and start one. A lock on the reader and title, held
    /// to the end of the transaction, lets one start it; the others then find it (each statement of a
    /// READ COMMITTED transaction sees what committed before it). SQLite's writes are one at a time.
    private static func lockFirstRead(_ reader: Reader, titleID: UUID, on db: any Database) async throws {
        try await Dialect.lockName("read:" + reader.key + ":" + titleID.uuidString, on: db)
    }

    /// On PostgreSQL two events for one read may arrive at once: the read's row is locked before its
    /// events are read or written, so each transaction sees the other's gains and the pages kept per
    /// day stay equal to the events'. `FOR NO KEY UPDATE`, not `FOR UPDATE`: an event's foreign key
    /// holds a key-share lock on the read, which `FOR UPDATE` would wait for (a deadlock between two
    /// events). SQLite's writes are one at a time already.
    private static func lock(_ readID: UUID, on db: any Database) async throws {
        try await Dialect.lockRow("reads", id: readID, noKeyUpdate: true, on: db)
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
    static func derive(_ read: Read, events: [ProgressEntry], followProgress: Bool = true) {
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

    static func entries(of readID: UUID, on db: any Database) async throws -> [ProgressEntry] {
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

    // MARK: Helpers

    static func find(_ id: UUID, reader: Reader, library: UUID, on db: any Database) async throws -> Read {
        guard let read = try await readsOf(reader, libraryID: library, on: db).filter(\.$id == id).first() else {
            throw ReadingError.readNotFound
        }
        return read
    }

    static func readsOf(_ reader: Reader, libraryID: UUID, on db: any Database) -> QueryBuilder<Read> {
        let query = Read.query(on: db).filter(\.$library.$id == libraryID)
        switch reader {
        case .user(let id): return query.filter(\.$userID == id)
        case .member(let id): return query.filter(\.$memberID == id)
        }
    }

    static func readerCondition(_ reader: Reader) -> SQLQueryString {
        switch reader {
        case .user(let id): "r.user_id = \(bind: id)"
        case .member(let id): "r.member_id = \(bind: id)"
        }
    }

    static func parseStatus(_ raw: String) throws -> ReadStatus {
        guard let status = ReadStatus(rawValue: raw) else { throw ReadingError.unknownStatus(raw) }
        return status
    }

    static func checkedRating(_ rating: Double?) throws -> Double? {
        guard let rating else { return nil }
        guard (0...5).contains(rating), rating.isFinite else { throw CatalogError.ratingOutOfRange(rating) }
        return (rating * 2).rounded() / 2
    }

    static func checkMoment(_ date: Date?, scope: Scope) throws {
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
