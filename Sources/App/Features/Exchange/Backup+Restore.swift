import Fluent
import Foundation
import NIOHTTP1
import ShelfmarkCore
import SQLKit

/// A backup written into a library: checked as the forms check what people type, every id new.
extension Backup {
    /// The backup's holds whose title and member it holds, one active per member and title and one
    /// ready per copy (the indexes' rules); a copy it does not hold is dropped from its hold.
    static func restorableHolds(_ b: LibraryBackup) -> [HoldRow] {
        let (titles, members, copies) = (Set(b.titles.map(\.id)), Set(b.members.map(\.id)), Set(b.copies.map(\.id)))
        var active = Set<String>(), aside = Set<UUID>()
        return (b.holds ?? []).compactMap { hold in
            // A former member's hold (no member) is kept only closed, as a figure.
            guard titles.contains(hold.title_id), let state = HoldState(rawValue: hold.state),
                  hold.member_id.map(members.contains) ?? !HoldState.active.contains(state) else { return nil }
            var row = hold
            if let copy = row.copy_id, !copies.contains(copy) || row.state != HoldState.ready.rawValue || !aside.insert(copy).inserted {
                row.copy_id = nil
                if row.state == HoldState.ready.rawValue { (row.state, row.ready_at, row.pickup_by) = (HoldState.waiting.rawValue, nil, nil) }
            }
            if row.state == HoldState.ready.rawValue, row.copy_id == nil { (row.state, row.ready_at, row.pickup_by) = (HoldState.waiting.rawValue, nil, nil) }
            if HoldState.active.map(\.rawValue).contains(row.state), !active.insert("\(row.title_id) \(row.member_id?.uuidString ?? "")").inserted { return nil }
            return row
        }
    }

    /// The backup's stocktakes at shelves it restores, with the scans of those of an outcome this server
    /// knows; a scan's copy the backup does not hold is forgotten (the scan keeps its code), and a copy
    /// is scanned at most once per stocktake (the table's rule). Texts are held to what a scan writes.
    static func restorableStocktakes(_ b: LibraryBackup, shelves: Set<UUID>)
        -> (stocktakes: [StocktakeRow], scans: [StocktakeScanRow]) {
        let copies = Set(b.copies.map(\.id))
        func text(_ value: String?, max: Int) -> String? {
            value.map { String($0.cleanedInput.prefix(max)) }.flatMap { $0.isEmpty ? nil : $0 }
        }
        let stocktakes = (b.stocktakes ?? []).compactMap { (t: StocktakeRow) -> StocktakeRow? in
            guard shelves.contains(t.shelf_id), let name = text(t.shelf_name, max: 200) else { return nil }
            var r = t
            r.shelf_name = name
            r.started_by = text(t.started_by, max: 200)
            (r.found, r.missing, r.misplaced, r.unknown) = (max(0, t.found), max(0, t.missing), max(0, t.misplaced), max(0, t.unknown))
            return r
        }
        let kept = Set(stocktakes.map(\.id))
        var seen = Set<String>()
        let scans = (b.stocktakeScans ?? []).compactMap { (s: StocktakeScanRow) -> StocktakeScanRow? in
            guard kept.contains(s.stocktake_id), StocktakeOutcome(rawValue: s.outcome) != nil,
                  let code = text(s.code, max: Stocktakes.maxCode) else { return nil }
            var r = s
            r.code = code
            r.expected = text(s.expected, max: 200)
            if let copy = s.copy_id, !copies.contains(copy) { r.copy_id = nil }
            if let copy = r.copy_id, !seen.insert("\(s.stocktake_id) \(copy)").inserted { return nil }
            return r
        }
        return (stocktakes, scans)
    }

    /// A backup's settings are held to the same ranges as the settings API.
    static func validateSettings(_ library: LibraryRow) throws {
        func refuse(_ field: String, _ value: Int) -> ExchangeError { .backupSettingOutOfRange(field: field, value: value) }
        guard LoanPolicy.loanPeriodRange.contains(library.loan_period_days) else { throw refuse("loanPeriodDays", library.loan_period_days) }
        guard Limits.maxRenewals.contains(library.max_renewals) else { throw refuse("maxRenewals", library.max_renewals) }
        guard (1...999_999_999).contains(library.next_accession) else { throw refuse("nextAccession", library.next_accession) }
        if let days = library.renewal_days, !Limits.renewalDays.contains(days) { throw refuse("renewalDays", days) }
        if let days = library.renew_window_days, !Limits.renewWindowDays.contains(days) { throw refuse("renewWindowDays", days) }
        if let days = library.hold_pickup_days, !Limits.holdPickupDays.contains(days) { throw refuse("holdPickupDays", days) }
        if let n = library.max_holds_per_member, !Limits.holdsPerMember.contains(n) { throw refuse("maxHoldsPerMember", n) }
        for (field, value) in [("finePerDay", library.fine_per_day), ("fineCap", library.fine_cap), ("fineBlockAt", library.fine_block_at)] {
            if let value, !FinePolicy.amountRange.contains(value) { throw refuse(field, value) }
        }
        if let days = library.fine_grace_days, !FinePolicy.graceRange.contains(days) { throw refuse("fineGraceDays", days) }
        if let days = library.fine_suspension_days, !FinePolicy.suspensionRange.contains(days) { throw refuse("fineSuspensionDays", days) }
        if let hour = library.reminder_hour, !ReminderPolicy.hourRange.contains(hour) { throw refuse("hour", hour) }
        if let days = library.remind_before_days, !ReminderPolicy.beforeRange.contains(days) { throw refuse("beforeDays", days) }
        for days in [library.remind_overdue_1, library.remind_overdue_2, library.remind_overdue_3].compactMap({ $0 })
            where !ReminderPolicy.overdueRange.contains(days) { throw refuse("overdueDays", days) }
        guard !library.name.trimmingCharacters(in: .whitespaces).isEmpty, library.name.count <= 200 else {
            throw ExchangeError.backupLibraryName
        }
    }

    /// A backup's members are held to what the member form takes: a card without spaces or control
    /// characters, an address that is one (`EmailAddress`). The first that is not names its place.
    static func validateMembers(_ members: [MemberRow]) throws {
        var rosterIDs = Set<String>()
        for (index, m) in members.enumerated() {
            guard (try? Identifier.parse(m.card_id, spaces: false)) == m.card_id else {
                throw ExchangeError.unreadableBackup(at: "members[\(index)].card_id")
            }
            if let email = m.email, !email.isEmpty, EmailAddress(parsing: email) == nil {
                throw ExchangeError.unreadableBackup(at: "members[\(index)].email")
            }
            if let email = m.guardian_email, !email.isEmpty, EmailAddress(parsing: email) == nil {
                throw ExchangeError.unreadableBackup(at: "members[\(index)].guardian_email")
            }
            if let id = m.roster_id, id.isEmpty || id.count > RosterFile.maxIDLength || id.unicodeScalars.contains(where: { $0.properties.generalCategory == .control }) {
                throw ExchangeError.unreadableBackup(at: "members[\(index)].roster_id")
            }
            if let id = m.roster_id, !rosterIDs.insert(id).inserted {
                throw ExchangeError.unreadableBackup(at: "members[\(index)].roster_id")
            }
        }
    }

    /// Writes a backup into `libraryID` (which must hold no data: new, or just erased). Every row gets
    /// a new id (the original library may still exist in this database); references follow.
    /// With `batches`, each few thousand rows are their own transaction, so a large restore into a new
    /// library never holds the writer for long (other libraries keep lending while it runs); without,
    /// everything runs in the caller's transaction.
    @discardableResult
    /// Reminders come back on only where messages can go: `mailOf` is the library whose mail server
    /// counts (the one restored over, when the backup is written beside it first).
    static func restore(_ b: LibraryBackup, into libraryID: UUID, mailOf: UUID? = nil, on db: any Database,
                        batches gate: WriteGate? = nil) async throws -> LeftOut {
        try validateSettings(b.library)
        try validateMembers(b.members)
        for (index, copy) in b.copies.enumerated() where (try? Identifier.parse(copy.barcode, spaces: true)) == nil {
            throw ExchangeError.unreadableBackup(at: "copies[\(index)].barcode")
        }
        let counts: [Int] = [b.titles.count, b.copies.count, b.members.count, b.loans.count, b.activities.count, b.categories.count,
                             b.titleCategories.count, b.titleSeries?.count ?? 0, b.covers?.count ?? 0, b.reads?.count ?? 0, b.progressEvents?.count ?? 0,
                             b.readingGoals?.count ?? 0, b.quotes?.count ?? 0, b.pagePhotos?.count ?? 0, b.holds?.count ?? 0, b.fines?.count ?? 0, b.shelves?.count ?? 0,
                             b.stocktakes?.count ?? 0, b.stocktakeScans?.count ?? 0, b.savedReports?.count ?? 0, b.auditLog?.count ?? 0]
        let total = counts.reduce(0, +)
        guard total <= Limits.rowsPerRestore else {
            throw ExchangeError.backupTooLarge(rows: total, max: Limits.rowsPerRestore)
        }
        @discardableResult
        func write<T: Sendable>(_ body: @escaping @Sendable (any Database) async throws -> T) async throws -> T {
            if let gate { return try await gate.transaction(on: db, body) }
            return try await body(db)
        }
        var ids: [UUID: UUID] = [:]
        func map(_ id: UUID) -> UUID {
            if let known = ids[id] { return known }
            let new = UUID()
            ids[id] = new
            return new
        }
        func map(_ id: UUID?) -> UUID? { id.map { map($0) } }
        // Covers are shared between libraries and deduplicated by content, so nothing the file says
        // about one is trusted: its type is sniffed from its bytes (only JPEG, PNG, GIF and WebP are
        // taken) and its hash computed here (a claimed hash could replace another library's cover).
        // Keyed by id, not by the URL's text: a UUID is the same in upper and lower case (a file edited
        // by hand or written by another tool).
        var coverIDs: [UUID: UUID] = [:]
        for (index, cover) in (b.covers ?? []).enumerated() {
            let id = try await write { db in
                try await CoverStore.insert(cover.bytes, sourceURL: cover.source_url, now: cover.created_at ?? Date(), on: db,
                                            refusal: { ExchangeError.backupCover(number: index + 1, $0) })
            }
            coverIDs[cover.id] = id
        }
        // Reminders come back on only where messages can go (the mail server is not in a backup).
        let canSend = try await MailServers.effective(library: mailOf ?? libraryID, on: db) != nil
        let overdue = (try? ReminderPolicy.checkOverdue([b.library.remind_overdue_1, b.library.remind_overdue_2, b.library.remind_overdue_3]))
            ?? ReminderPolicy().overdueDays
        // A zone this system does not know is left out: the server's applies.
        let settings = Settings(loan_period_days: b.library.loan_period_days, max_renewals: b.library.max_renewals,
                                public_catalog: b.library.public_catalog, next_accession: b.library.next_accession,
                                time_zone: b.library.time_zone.flatMap { TimeZone(identifier: $0)?.identifier },
                                renewal_days: b.library.renewal_days, renew_window_days: b.library.renew_window_days,
                                hold_pickup_days: b.library.hold_pickup_days ?? 7,
                                max_holds_per_member: b.library.max_holds_per_member ?? Limits.defaultHoldsPerMember,
                                kiosk_asks_pin: b.library.kiosk_asks_pin ?? false, catalog_indexable: b.library.catalog_indexable ?? false,
                                public_figures: b.library.public_figures ?? false,
                                // Fines as the backup kept them; a mode or currency this server does not know: off, euro.
                                fine_mode: (b.library.fine_mode.flatMap(FinePolicy.Mode.init(rawValue:)) ?? .off).rawValue,
                                fine_per_day: b.library.fine_per_day ?? 0, fine_grace_days: b.library.fine_grace_days ?? 0,
                                fine_cap: b.library.fine_cap.flatMap { $0 > 0 ? $0 : nil }, fine_suspension_days: b.library.fine_suspension_days ?? 1,
                                fine_block_at: b.library.fine_block_at.flatMap { $0 > 0 ? $0 : nil },
                                currency: b.library.currency.flatMap { FinePolicy.isCurrencyCode($0) ? $0 : nil } ?? "EUR",
                                reminders_on: (b.library.reminders_on ?? false) && canSend, reminder_hour: b.library.reminder_hour ?? 8,
                                remind_before_days: b.library.reminder_hour == nil ? ReminderPolicy().beforeDays : b.library.remind_before_days,
                                remind_overdue_1: overdue.count > 0 ? overdue[0] : nil, remind_overdue_2: overdue.count > 1 ? overdue[1] : nil,
                                remind_overdue_3: overdue.count > 2 ? overdue[2] : nil,
                                language: b.library.language.flatMap { Lang(rawValue: $0)?.rawValue } ?? "en",
                                contact: b.library.contact.map { String($0.prefix(Reminders.maxContact)) },
                                retention_months: b.library.retention_months.flatMap { Retention.range.contains($0) ? $0 : nil },
                                roster_nightly: b.library.roster_nightly ?? false)
        try await write { db in
            try await db.sql.update("libraries").set(model: settings).where("id", .equal, libraryID).run()
        }

        // A batch per transaction, as many rows as the pacer says (`BatchPacer`), 200 rows to a statement.
        // Rows of a table with a `library_id` carry the library's; a child table's rows (a title's
        // categories, a read's progress, a stocktake's scans) go as they are (`inLibrary: false`); a table
        // that names libraries by number (`LibraryNumber.tables`) carries its number.
        let libraryNo = try await LibraryNumber.read(libraryID, on: db.sql)
        func insert<Row: Encodable & Sendable>(_ table: String, _ rows: [Row], inLibrary: Bool = true) async throws {
            let byNumber = LibraryNumber.tables.contains(table)
            var pacer = BatchPacer()
            var start = 0
            while start < rows.count {
                let batch = Array(rows[start..<min(start + pacer.rows, rows.count)])
                let insertBatch: @Sendable (any Database, Int) async throws -> ((), rows: Int) = { db, _ in
                    for chunk in batch.chunked(200) {
                        let query = db.sql.insert(into: table)
                        if inLibrary {
                            try await query.models(chunk.map { InLibrary(row: $0, libraryID: libraryID, libraryNo: byNumber ? libraryNo : nil) }, nilEncodingStrategy: .asNil).run()
                        } else {
                            try await query.models(Array(chunk), nilEncodingStrategy: .asNil).run()
                        }
                    }
                    return ((), batch.count)
                }
                if let gate { try await gate.batch(&pacer, on: db, insertBatch) } else { _ = try await insertBatch(db, batch.count) }
                start += batch.count
            }
        }
        try await insert("categories", b.categories.map { var r = $0; r.id = map(r.id); return r })
        // Smart collections whose filter this server reads, their category mapped like the categories;
        // at most a library's number, one per name.
        var collectionNames = Set<String>()
        var collectionIDs: [UUID: UUID] = [:]
        let backedUpCategories = Set(b.categories.map(\.id))
        try await insert("collections", (b.collections ?? []).compactMap { (c: CollectionRow) -> CollectionRow? in
            let name = c.name.trimmingCharacters(in: .whitespacesAndNewlines)
            guard !name.isEmpty, name.count <= 80, collectionNames.count < Collections.maxPerLibrary,
                  collectionNames.insert(name.lowercased()).inserted,
                  var filter = try? JSONDecoder().decode(CollectionFilter.self, from: Data(c.filter.utf8)),
                  (try? filter.checked()) != nil else { return nil }
            if let category = filter.categoryId {
                let mapped: UUID? = backedUpCategories.contains(category) ? (map(category) as UUID) : nil
                filter.categoryId = mapped
            }
            guard let json = try? JSONEncoder().encode(filter) else { return nil }
            let id = UUID()
            collectionIDs[c.id] = id
            return CollectionRow(id: id, name: name, name_key: name.lowercased(), filter: String(decoding: json, as: UTF8.self),
                                               created_at: c.created_at, updated_at: c.updated_at)
        })
        try await insert("titles", b.titles.map { t in
            var r = t
            r.id = map(r.id)
            r.author_key = Title.authorKey(r.authors)
            // Derived from the row's own fields, as a save does, not taken from the file (an older version cut words otherwise).
            r.search_text = Title.derived(title: r.title, subtitle: r.subtitle, authors: r.authors, series: r.series, isbn13: r.isbn13).searchText
            if let url = r.cover_url, CoverStore.isLocal(url), let old = coverID(url), let new = coverIDs[old] {
                r.cover_url = CoverStore.localURL(new)
            } else {
                // Only covers this server stores or http(s) addresses; `javascript:` and the like are dropped.
                r.cover_url = (try? CoverURL.validate(r.cover_url)) ?? nil
            }
            return r
        })
        struct Link: Encodable, Sendable { var id: UUID; var title_id: UUID; var category_id: UUID }
        let links = b.titleCategories.map { Link(id: UUID(), title_id: map($0.title_id), category_id: map($0.category_id)) }
        try await insert("title_categories", links, inLibrary: false)
        // The other series of titles the backup holds that have one of their own, each checked as an edit checks it.
        let titlesWithSeries = Set(b.titles.filter { $0.series != nil }.map(\.id))
        var seriesSeen = Set<String>()
        struct SeriesInsert: Encodable, Sendable { var id: UUID; var title_id: UUID; var position: Int; var name: String; var number: String? }
        try await insert("title_series", (b.titleSeries ?? []).compactMap { (r: TitleSeriesRow) -> SeriesInsert? in
            let name = r.name.cleanedInput.trimmingCharacters(in: .whitespaces)
            guard titlesWithSeries.contains(r.title_id), !name.isEmpty, name.count <= SeriesEntry.maxName, (2...SeriesEntry.maxEntries + 1).contains(r.position),
                  seriesSeen.insert("\(r.title_id) \(r.position)").inserted else { return nil }
            return SeriesInsert(id: UUID(), title_id: map(r.title_id), position: r.position, name: name,
                                number: r.number.map { String($0.prefix(SeriesEntry.maxNumber)) })
        }, inLibrary: false)
        try await insert("copies", b.copies.map { var r = $0; r.id = map(r.id); r.title_id = map(r.title_id); return r })
        // The backup's shelves (one per name and code, each checked as a person's would be), then a
        // shelf for every location its copies name that it does not list.
        var shelfNames = Set<String>(), shelfCodes = Set<String>()
        let keptShelves = (b.shelves ?? []).compactMap { (s: ShelfRow) -> ShelfRow? in
            let name = s.name.cleanedInput
            guard !name.isEmpty, name.count <= 200, shelfNames.count < Shelves.maxPerLibrary, shelfNames.insert(name).inserted,
                  let code = ShelfCode.normalized(s.code), shelfCodes.insert(code).inserted else { return nil }
            return ShelfRow(id: s.id, name: name, room: s.room.map { String($0.cleanedInput.prefix(100)) }.flatMap { $0.isEmpty ? nil : $0 },
                                          code: code, created_at: s.created_at, updated_at: s.updated_at)
        }
        try await insert("shelves", keptShelves.map { var r = $0; r.id = map($0.id); return r })
        try await write { db in try await Shelves.ensureAll(library: libraryID, on: db) }
        try await insert("members", b.members.map {
            var r = $0
            r.id = map(r.id)
            r.language = r.language.flatMap { Lang(rawValue: $0)?.rawValue }
            r.search_text = Member.searchText(cardID: r.card_id, firstName: r.first_name, lastName: r.last_name, grade: r.grade)
            return r
        })
        try await insert("loans", b.loans.map { l in
            var r = l
            r.id = map(r.id); r.copy_id = map(r.copy_id); r.title_id = map(r.title_id); r.member_id = map(r.member_id)
            r.reminder_stage = min(max(r.reminder_stage ?? 0, 0), ReminderPolicy.Stage.overdue3.rawValue)
            return r
        })
        // Edited templates of known kinds and languages (the backup's replace the library's).
        if b.mailTemplates != nil {
            try await write { db in try await db.sql.raw("DELETE FROM mail_templates WHERE library_id = \(bind: libraryID)").run() }
        }
        try await insert("mail_templates", (b.mailTemplates ?? []).compactMap { (t: MailTemplateRow) -> MailTemplateRow? in
            guard MailKind(rawValue: t.kind) != nil, Lang(rawValue: t.language) != nil else { return nil }
            var r = t
            r.id = UUID()
            r.subject = String(r.subject.prefix(MailTemplates.maxSubject))
            r.body = String(r.body.prefix(MailTemplates.maxBody))
            return r
        })
        // How often each title was lent (`loan_count`), counted from the restored loans as a whole. The loans'
        // triggers (`AddOpenLoanCounts`) already counted them as they were written, so this finds the same.
        try await write { db in
            try await db.sql.raw("""
                UPDATE titles SET loan_count = (SELECT COUNT(*) FROM loans l WHERE l.title_id = titles.id) WHERE library_no = \(LibraryNumber.of(libraryID))
                """).run()
        }
        try await insert("activities", b.activities.map { var r = $0; r.id = map(r.id); r.title_id = map(r.title_id); return r })
        // Fines of members the backup holds (or of former members, kept as figures), each a positive amount of a known kind;
        // a loan it does not hold is forgotten.
        let memberIDs = Set(b.members.map(\.id)), loanIDs = Set(b.loans.map(\.id))
        try await insert("fines", (b.fines ?? []).compactMap { (f: FineRow) -> FineRow? in
            guard f.member_id.map(memberIDs.contains) ?? true, FineKind(rawValue: f.kind) != nil, (1...FinePolicy.amountRange.upperBound).contains(f.amount) else {
                return nil
            }
            var r = f
            r.id = map(f.id); r.member_id = map(f.member_id)
            if let loan = f.loan_id, loanIDs.contains(loan) { let mapped: UUID = map(loan); r.loan_id = mapped } else { r.loan_id = nil }
            return r
        })
        try await insert("holds", restorableHolds(b).map { h in
            var r = h
            r.id = map(h.id); r.title_id = map(h.title_id); r.member_id = map(h.member_id); r.copy_id = map(h.copy_id)
            return r
        })
        let (stocktakes, scans) = restorableStocktakes(b, shelves: Set(keptShelves.map(\.id)))
        try await insert("stocktakes", stocktakes.map { var r = $0; r.id = map($0.id); r.shelf_id = map($0.shelf_id); return r })
        try await insert("stocktake_scans", scans.map { s in
            var r = s
            r.id = map(s.id); r.stocktake_id = map(s.stocktake_id); r.copy_id = map(s.copy_id)
            return r
        }, inLibrary: false)
        // Saved reports of known kinds, their options read as a report reads them (a category or smart
        // collection mapped like those), at most a library's number, one per name; a schedule without
        // anyone to mail is kept unscheduled.
        var savedNames = Set<String>()
        try await insert("saved_reports", (b.savedReports ?? []).compactMap { (r: SavedReportRow) -> SavedReportRow? in
            let name = r.name.cleanedInput
            guard !name.isEmpty, name.count <= SavedReports.maxName, savedNames.count < SavedReports.maxPerLibrary,
                  savedNames.insert(name.lowercased()).inserted, ReportKind(rawValue: r.kind) != nil,
                  var options = try? ReportOptions.read(query: r.options) else { return nil }
            options.category = options.category.flatMap { backedUpCategories.contains($0) ? (map($0) as UUID) : nil }
            options.collection = options.collection.flatMap { collectionIDs[$0] }
            let recipients = r.addresses.compactMap { EmailAddress(parsing: $0)?.text }.prefix(SavedReports.maxRecipients)
            var row = r
            (row.id, row.name, row.name_key, row.options) = (map(r.id), name, name.lowercased(), options.queryString)
            row.recipients = recipients.joined(separator: "\n")
            row.language = Lang(rawValue: r.language)?.rawValue ?? Lang.en.rawValue
            row.created_by = String(r.created_by.cleanedInput.prefix(200))
            if SavedReportSchedule(rawValue: r.schedule) == nil || recipients.isEmpty { row.schedule = SavedReportSchedule.none.rawValue }
            return row
        })
        // The audit log as it was (restored over a library, these go with the hidden library: the
        // library keeps its own log). Known actions only, their texts bounded.
        try await insert("audit_log", (b.auditLog ?? []).compactMap { (r: AuditRow) -> AuditRow? in
            guard AuditLog.Action(rawValue: r.action) != nil else { return nil }
            var row = r
            row.id = map(r.id)
            row.actor = String(r.actor.cleanedInput.prefix(200))
            row.target = r.target.map { String($0.cleanedInput.prefix(300)) }
            row.detail = r.detail.flatMap { $0.utf8.count <= 2_000 ? $0 : nil }
            return row
        })

        // Reading life: reads, progress, goals, quotes and page photos. A user's rows come back only when
        // that account exists on this server (a backup from elsewhere brings its members' logs, not
        // strangers' diaries); a member's follow the member; photos whose bytes are not images are left out.
        let reads = b.reads ?? [], goals = b.readingGoals ?? [], quotes = b.quotes ?? [], photos = b.pagePhotos ?? []
        let named = Array(Set(reads.compactMap(\.user_id) + goals.compactMap(\.user_id) + quotes.map(\.user_id) + photos.map(\.user_id)))
        var users = Set<UUID>()
        struct IDRow: Decodable { var id: UUID }
        for chunk in named.chunked(500) where !chunk.isEmpty {
            for row in try await db.sql.select().column("id").from("users").where("id", .in, Array(chunk)).all(decoding: IDRow.self) { users.insert(row.id) }
        }
        let members = Set(b.members.map(\.id))
        func kept(_ user: UUID?, _ member: UUID?) -> Bool {
            if let user { return users.contains(user) }
            if let member { return members.contains(member) }
            return false
        }
        let keptReads = reads.filter { kept($0.user_id, $0.member_id) }
        let readIDs = Set(keptReads.map(\.id))
        try await insert("reads", keptReads.map { r in
            var row = r
            row.id = map(r.id); row.member_id = map(r.member_id); row.title_id = map(r.title_id)
            return row
        })
        let events = (b.progressEvents ?? []).filter { readIDs.contains($0.read_id) && ProgressUnit(rawValue: $0.unit) != nil }
            .map { e in var row = e; row.id = map(e.id); row.read_id = map(e.read_id); return row }
        try await insert("progress_events", events, inLibrary: false)
        let withEvents = Array(Set(events.map(\.read_id)))
        for chunk in withEvents.chunked(500) {
            try await write { db in try await ReadingLog.refreshGains(readIDs: chunk, library: libraryID, on: db) }
        }
        try await write { db in try await ReadingDays.recount(library: libraryID, on: db.sql) }
        try await write { db in try await LoanTallies.recount(library: libraryID, on: db.sql) }
        try await insert("reading_goals", goals.filter { kept($0.user_id, $0.member_id) }.map { g in
            var row = g
            row.id = map(g.id)
            if let member = g.member_id { let mapped: UUID = map(member); row.member_id = mapped; row.reader_key = Reader.member(mapped).key }
            return row
        })
        let titleIDs = Set(b.titles.map(\.id))
        let keptPhotos = photos.filter {
            users.contains($0.user_id) && titleIDs.contains($0.title_id) && CoverStore.sniff($0.original) != nil
                && CoverStore.sniff($0.image) == "image/jpeg" && CoverStore.sniff($0.thumbnail) == "image/jpeg"
                && $0.original.count <= PagePhotos.maxBytes
        }
        let photoIDs = Set(keptPhotos.map(\.id))
        for photo in keptPhotos {
            var row = photo
            row.id = map(photo.id); row.title_id = map(photo.title_id)
            try await insert("page_photos", [row])
        }
        let keptQuotes = quotes.filter { users.contains($0.user_id) && titleIDs.contains($0.title_id) }
        let quotedTitles = Dictionary(b.titles.map { ($0.id, $0) }, uniquingKeysWith: { first, _ in first })
        try await insert("quotes", keptQuotes.map { q in
            var row = q
            if let title = quotedTitles[q.title_id] {
                row.search_text = Quote.searchText(text: q.text, note: q.note, title: title.title, authors: title.authors)
            }
            row.id = map(q.id); row.title_id = map(q.title_id)
            row.photo_id = q.photo_id.flatMap { id -> UUID? in photoIDs.contains(id) ? map(id) as UUID : nil }
            return row
        })
        let keptGoals = goals.filter { kept($0.user_id, $0.member_id) }.count
        return LeftOut(readers: Set(named).subtracting(users).count, reads: reads.count - keptReads.count, goals: goals.count - keptGoals,
                       quotes: quotes.count - keptQuotes.count, photos: photos.count - keptPhotos.count)
    }
}

/// A row as a table of a library's rows holds it: its own columns and the library's id, or its number
/// where the table names libraries by number (`libraryNo`: the copies, the titles, the loans).
struct InLibrary<Row: Encodable & Sendable>: Encodable, Sendable {
    var row: Row
    var libraryID: UUID
    var libraryNo: Int? = nil
    func encode(to encoder: any Encoder) throws {
        try row.encode(to: encoder)
        var c = encoder.container(keyedBy: Key.self)
        if let libraryNo { try c.encode(libraryNo, forKey: .library_no) } else { try c.encode(libraryID, forKey: .library_id) }
    }
    enum Key: String, CodingKey { case library_id, library_no }
}
