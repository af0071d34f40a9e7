import Fluent
import FluentSQL
import Foundation
import ShelfmarkCore
import SQLKit
import Vapor

/// `POST …/sync/push`: a device's queued mutations, each a domain operation applied by
/// the same service the web and the API use (the lending rules, holds and fines included), each applied
/// exactly once: its answer is written in the transaction that applies it, keyed by user, library, device
/// and number, and a mutation sent again is answered from there.
///
/// Conflicts: circulation is first-wins (a copy lent by someone else meanwhile refuses the second loan,
/// with the copy and its loan as they are); a title edit is merged field by field against the values it
/// was made on (`base`): a field nobody else changed takes the device's value, a field changed on both
/// sides goes to the newer change (`editedAt` against the title's `updatedAt`; the device's wins a tie);
/// progress and quotes are only ever added.
extension Sync {
    static let maxMutations = 500
    static let maxSeq = 9_007_199_254_740_991  // 2^53 - 1: exact in every JSON reader

    static func push(_ input: SyncPush, in scope: Scope, t: Strings) async throws -> SyncPushResult {
        let client = try Check.required(input.clientId, field: "clientId", max: 64)
        _ = try Check.range(input.mutations.count, 1...maxMutations, field: "mutations")
        for (i, mutation) in input.mutations.enumerated() { _ = try Check.range(mutation.seq, 1...maxSeq, field: "mutations.\(i).seq") }
        let key = Key(user: scope.library.user.id, library: scope.libraryID, client: client)
        do {
            // All in one transaction: a push of 100 is one commit. A refusal writes nothing (services
            // refuse before they write), so it is answered and the rest go on. The transaction's
            // statements are sent from their connection's own event loop (`EventLoopExecutor`).
            return try await scope.gate.transaction(on: scope.db) { db in
                try await EventLoopExecutor.run(on: db.eventLoop) { try await applyAll(input, key, in: scope, t: t, on: db) }
            }
        } catch let refusal where isRefusal(refusal) {
            throw refusal
        } catch {
            // Something failed that a refusal does not explain (on PostgreSQL a failed statement ends the
            // transaction; the same push sent twice at once meets on the answers' key): each mutation
            // again, alone. Whatever was applied by another request is answered from its record.
            var results: [SyncOutcome] = []
            for mutation in input.mutations {
                results.append(try await pushAlone(mutation, key, in: scope, t: t))
            }
            return SyncPushResult(results: results)
        }
    }

    /// The push's mutations in the transaction `db` has open, each once.
    private static func applyAll(_ input: SyncPush, _ key: Key, in scope: Scope, t: Strings, on db: any Database) async throws -> SyncPushResult {
        var answered = try await answers(key, seqs: input.mutations.map(\.seq), on: db)
        let batch = try await PushBatch.read(input.mutations.filter { answered[$0.seq] == nil }, library: scope.library, on: db)
        let inner = scope.inside(db, batch: batch)
        var results: [SyncOutcome] = []
        var fresh: [SyncOutcome] = []
        for mutation in input.mutations {
            if let earlier = answered[mutation.seq] {
                results.append(earlier.givenAgain)
                continue
            }
            let outcome: SyncOutcome
            do {
                outcome = try await apply(mutation, in: inner)
            } catch let refusal where isRefusal(refusal) {
                outcome = try await rejected(mutation, refusal, t: t, on: db, library: scope.libraryID)
            }
            answered[mutation.seq] = outcome
            fresh.append(outcome)
            results.append(outcome)
        }
        // The log, the loan counts and the answers, written in the same transaction (a few
        // statements, not one each).
        try await batch.write(in: inner)
        try await record(fresh, key, at: scope.now, on: db)
        return SyncPushResult(results: results)
    }

    struct Key: Sendable {
        var user: UUID
        var library: UUID
        var client: String
    }

    static func isRefusal(_ error: any Error) -> Bool {
        (error is any DomainError || error is AppError) && error.answered.status.code < 500
    }

    private static func pushAlone(_ mutation: SyncMutation, _ key: Key, in scope: Scope, t: Strings) async throws -> SyncOutcome {
        do {
            return try await scope.gate.transaction(on: scope.db) { db in
                if let earlier = try await answers(key, seqs: [mutation.seq], on: db)[mutation.seq] { return earlier.givenAgain }
                let outcome = try await apply(mutation, in: scope.inside(db))
                try await record(outcome, key, at: scope.now, on: db)
                return outcome
            }
        } catch let refusal where isRefusal(refusal) {
            // Rolled back; the refusal is written on its own (unless another request answered it meanwhile).
            let outcome = try await rejected(mutation, refusal, t: t, on: scope.db, library: scope.libraryID)
            return try await scope.gate.transaction(on: scope.db) { db in
                if let earlier = try await answers(key, seqs: [mutation.seq], on: db)[mutation.seq] { return earlier.givenAgain }
                try await record(outcome, key, at: scope.now, on: db)
                return outcome
            }
        }
    }

    private static func answers(_ key: Key, seqs: [Int], on db: any Database) async throws -> [Int: SyncOutcome] {
        var found: [Int: SyncOutcome] = [:]
        for chunk in Array(Set(seqs)).chunked(500) {
            for row in try await db.sql.raw("""
                SELECT seq, outcome FROM sync_mutations WHERE user_id = \(bind: key.user) AND library_id = \(bind: key.library)
                AND client_id = \(bind: key.client) AND seq IN (\(binds: chunk))
                """).all() {
                let text = try row.decode(column: "outcome", as: String.self)
                found[try row.decode(column: "seq", as: Int.self)] = try JSONDecoder.api.decode(SyncOutcome.self, from: Data(text.utf8))
            }
        }
        return found
    }

    private static func record(_ outcome: SyncOutcome, _ key: Key, at now: Date, on db: any Database) async throws {
        try await record([outcome], key, at: now, on: db)
    }

    private static func record(_ outcomes: [SyncOutcome], _ key: Key, at now: Date, on db: any Database) async throws {
        let encoder = JSONEncoder.api
        for chunk in outcomes.chunked(200) {
            var values: [SQLQueryString] = []
            for outcome in chunk {
                let text = String(decoding: try encoder.encode(outcome), as: UTF8.self)
                values.append("(\(bind: key.user), \(bind: key.library), \(bind: key.client), \(bind: outcome.seq), \(bind: text), \(bind: now))")
            }
            guard !values.isEmpty else { continue }
            try await db.sql.raw("INSERT INTO sync_mutations (user_id, library_id, client_id, seq, outcome, created_at) VALUES "
                                 + values.joined(separator: ", ")).run()
        }
    }

    // MARK: One mutation

    private static func apply(_ m: SyncMutation, in scope: Scope) async throws -> SyncOutcome {
        var outcome = SyncOutcome(seq: m.seq, status: .applied)
        let role = scope.library.role
        func need(_ action: Role.Action) throws {
            guard role.may(action) else { throw AccountError.roleTooLow(role, needs: action.minimumRole) }
        }
        switch m.op {
        case .checkout:
            try need(.circulate)
            outcome.loan = try await Circulation.checkout(CheckoutInput(memberId: m.memberId, cardId: m.cardId, titleId: m.titleId,
                                                                        copyBarcode: m.copyBarcode, lendHeld: m.lendHeld), in: scope)
        case .return:
            try need(.circulate)
            outcome.loan = try await Circulation.giveBack(ReturnInput(loanId: m.loanId, copyBarcode: m.copyBarcode), in: scope)
        case .renew:
            try need(.circulate)
            guard let loanID = m.loanId else { throw LoanError.sayWhichLoan }
            outcome.loan = try await Circulation.renew(loanID, in: scope)
        case .progress:
            guard let titleID = m.titleId else { throw LoanError.sayWhichBook }
            outcome.read = try await ReadingLog.progressOnTitle(titleID, ProgressInput(at: m.at, page: m.page, percent: m.percent),
                                                                reader: .user(scope.library.user.id), language: .en, in: scope)
        case .quote:
            guard let titleID = m.titleId else { throw LoanError.sayWhichBook }
            outcome.quote = try await Quotes.create(QuoteInput(titleId: titleID, page: m.quotePage, text: m.text ?? "", note: m.note),
                                                    userID: scope.library.user.id, in: scope)
        case .editTitle:
            try need(.catalog)
            guard let titleID = m.titleId else { throw LoanError.sayWhichBook }
            (outcome.title, outcome.kept) = try await edit(titleID, m, in: scope)
        }
        return outcome
    }

    /// A refusal, answered with the state that refused it: the copy and its open loan for circulation,
    /// the title as it is for an edit.
    private static func rejected(_ m: SyncMutation, _ refusal: any Error, t: Strings, on db: any Database, library: UUID) async throws -> SyncOutcome {
        let answer = refusal.answered
        var outcome = SyncOutcome(seq: m.seq, status: .rejected, code: answer.code, message: t.message(refusal), field: answer.field,
                                  details: answer.details)
        switch m.op {
        case .checkout, .return, .renew:
            var copyRow: (any SQLRow)?
            if let barcode = m.copyBarcode?.cleanedInput, !barcode.isEmpty, barcode.count <= 64 {
                copyRow = try await db.sql.raw("""
                    SELECT id, title_id, barcode, copy_number, status, location FROM copies
                    WHERE library_no = \(LibraryNumber.of(library)) AND barcode = \(bind: barcode)
                    """).first()
            } else if let loanID = m.loanId {
                copyRow = try await db.sql.raw("""
                    SELECT c.id, c.title_id, c.barcode, c.copy_number, c.status, c.location FROM loans l JOIN copies c ON c.id = l.copy_id
                    WHERE \(LibraryNumber.rows(of: "loans", library, alias: "l")) AND l.id = \(bind: loanID)
                    """).first()
            }
            if let copyRow {
                outcome.copy = try syncCopy(copyRow)
                let copyID = try copyRow.decode(column: "id", as: UUID.self)
                outcome.openLoan = try await db.sql.raw("""
                    SELECT copy_id, title_id, member_id, due_at, renewals FROM loans WHERE copy_id = \(bind: copyID) AND returned_at IS NULL
                    """).first().map(syncLoan)
            }
        case .editTitle:
            if let titleID = m.titleId {
                outcome.title = try await currentTitle(titleID, library: library, on: db)
            }
        case .progress, .quote:
            break
        }
        return outcome
    }

    /// A title edit, merged with what changed on the server since the device saw the title.
    private static func edit(_ titleID: UUID, _ m: SyncMutation, in scope: Scope) async throws -> (SyncTitle?, [String]?) {
        guard let fields = m.fields, !fields.changes.isEmpty else { throw SyncError.nothingToEdit }
        let title = try await Catalog.find(titleID, library: scope.libraryID, on: scope.db)
        let current = SyncTitleFields(title)
        let base = m.base ?? SyncTitleFields()
        // A device's clock may run ahead: an edit is never newer than the moment it arrives.
        let editedAt = min(m.editedAt ?? .distantPast, scope.now)
        let deviceWinsConflicts = editedAt >= (title.updatedAt ?? .distantPast)
        var patch = TitlePatch()
        var kept: [String] = []
        for (name, value) in fields.changes {
            let now = current.changes.first { $0.name == name }?.value ?? .none
            let was = base.changes.first { $0.name == name }?.value ?? .none
            if now == value { continue }                        // already so
            if now == was || deviceWinsConflicts {
                patch.set(name, value)
            } else {
                kept.append(name)                               // changed on the server too, and later
            }
        }
        if !patch.isEmpty {
            try await Catalog.update(titleID, patch, in: scope)
            scope.batch?.edited(title: titleID)
        }
        return (try await currentTitle(titleID, library: scope.libraryID, on: scope.db), kept.isEmpty ? nil : kept)
    }

    /// A title as the feed sends it, read now (the answer to an edit, applied or refused).
    private static func currentTitle(_ titleID: UUID, library: UUID, on db: any Database) async throws -> SyncTitle? {
        try await db.sql.raw("""
            SELECT title, subtitle, authors, isbn13, publisher, published_date, page_count, series, series_number, reading_level,
                   cover_url, updated_at FROM titles WHERE library_no = \(LibraryNumber.of(library)) AND id = \(bind: titleID)
            """).first().map(syncTitle)
    }
}

extension Scope {
    /// This scope inside a transaction already open: its writes join it instead of opening their own.
    func inside(_ transaction: any Database, batch: PushBatch? = nil) -> Scope {
        Scope(library: library, now: now, gate: .joined, db: transaction, clock: clock, batch: batch)
    }
}

extension SyncOutcome {
    /// This answer, given again for a mutation sent again.
    var givenAgain: SyncOutcome {
        var again = self
        again.repeated = true
        return again
    }
}

/// A field's value as compared in a merge: cleaned, an empty text the same as none.
enum FieldValue: Equatable {
    case none
    case text(String)
    case list([String])
    case number(Int)
}

extension SyncTitleFields {
    init(_ title: Title) {
        self.init(title: title.title, subtitle: title.subtitle, authors: title.authors, publisher: title.publisher,
                  publishedDate: title.publishedDate, pageCount: title.pageCount, series: title.series, seriesNumber: title.seriesNumber,
                  readingLevel: title.readingLevel)
    }

    /// The fields that are there, by their API name, compared as a reader would.
    var changes: [(name: String, value: FieldValue)] {
        func text(_ s: String?) -> FieldValue {
            guard let s = s?.cleanedInput, !s.isEmpty else { return .none }
            return .text(s)
        }
        var out: [(String, FieldValue)] = []
        if title != nil { out.append(("title", text(title))) }
        if subtitle != nil { out.append(("subtitle", text(subtitle))) }
        if let authors {
            let cleaned = authors.map(\.cleanedInput).filter { !$0.isEmpty }
            out.append(("authors", cleaned.isEmpty ? .none : .list(cleaned)))
        }
        if publisher != nil { out.append(("publisher", text(publisher))) }
        if publishedDate != nil { out.append(("publishedDate", text(publishedDate))) }
        if let pageCount { out.append(("pageCount", .number(pageCount))) }
        if series != nil { out.append(("series", text(series))) }
        if seriesNumber != nil { out.append(("seriesNumber", text(seriesNumber))) }
        if readingLevel != nil { out.append(("readingLevel", text(readingLevel))) }
        return out
    }
}

extension TitlePatch {
    var isEmpty: Bool {
        title == nil && subtitle == nil && authors == nil && publisher == nil && publishedDate == nil && pageCount == nil
            && series == nil && seriesNumber == nil && readingLevel == nil
    }

    /// Sets one field of a merge; `.none` clears it (an empty text, as the edit form sends).
    mutating func set(_ name: String, _ value: FieldValue) {
        var text: String {
            if case .text(let s) = value { return s }
            return ""
        }
        switch name {
        case "title": title = text
        case "subtitle": subtitle = text
        case "authors":
            if case .list(let names) = value { authors = names } else { authors = [] }
        case "publisher": publisher = text
        case "publishedDate": publishedDate = text
        case "pageCount":
            if case .number(let n) = value { pageCount = n }
        case "series": series = text
        case "seriesNumber": seriesNumber = text
        case "readingLevel": readingLevel = text
        default: break
        }
    }
}
