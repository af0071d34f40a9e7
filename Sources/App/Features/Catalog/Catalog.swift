import Fluent
import FluentSQL
import Foundation
import ShelfmarkCore
import ShelfmarkLookup
import SQLKit

/// Changes to titles, copies and categories. Each public function is one
/// transaction and writes its activity entry.
enum Catalog {
    static let maxCopiesPerRequest = Limits.copiesPerRequest

    static func create(_ input: TitleCreate, wishlist: Bool, in scope: Scope) async throws -> UUID {
        let (library, now, gate, db) = (scope.library, scope.now, scope.gate, scope.db)
        let isbn = try input.isbn.flatMap { try Check.optional($0, field: "isbn", max: 40) }.map { try ISBN($0).isbn13 }
        let copies = try Check.range(input.copies, 0...maxCopiesPerRequest, field: "copies") ?? (wishlist ? 0 : 1)
        if wishlist, copies > 0 {
            throw CatalogError.wishlistHasNoCopies
        }
        let title = Title()
        title.isbn13 = isbn
        title.title = try Check.required(input.title, field: "title")
        title.authors = try Check.authors(input.authors)
        title.favorite = input.favorite ?? false
        title.wishlist = wishlist
        if wishlist {
            title.requestedBy = try Check.optional(input.requestedBy, field: "requestedBy", max: 100)
            title.priority = try Check.range(input.priority, 1...3, field: "priority")
        }
        try apply(TitlePatch(title: nil, subtitle: input.subtitle, authors: nil, isbn: nil, publisher: input.publisher,
                             publishedDate: input.publishedDate, pageCount: input.pageCount, language: input.language,
                             description: input.description, coverUrl: input.coverUrl, notes: input.notes, favorite: nil,
                             rating: input.rating, series: input.series, seriesNumber: input.seriesNumber,
                             readingLevel: input.readingLevel, callNumber: input.callNumber), to: title)
        let location = try Check.optional(input.location, field: "location", max: 200)
        let categoryNames = try input.categories.map(categoryNames)
        let moreSeries = try TitleSeries.settle(input.moreSeries ?? [], on: title, seriesCleared: false) ?? []
        // A national library's record the lookup of this ISBN brought is kept with the title, as it came.
        if let isbn, !wishlist { title.marcRecord = try await LookupService.cachedRecord(isbn, on: db)?.marcXML }
        return try await gate.transaction(on: db) { db in
            if let isbn { try await refuseDuplicate(isbn: isbn, library: library.libraryID, on: db) }
            title.libraryNo = try await LibraryNumber.read(library.libraryID, on: db.sql)
            try await title.create(on: db)
            let titleID = try title.requireID()
            if let categoryNames { try await setCategories(categoryNames, titleID: titleID, library: library.libraryID, now: now, on: db) }
            if !moreSeries.isEmpty { try await TitleSeries.set(moreSeries, titleID: titleID, on: db) }
            try await addCopies(copies, titleID: titleID, location: location, library: library.libraryID, on: db)
            if Enrichment.needed(title) { try await Enrichment.enqueue(titleID: titleID, libraryID: library.libraryID, now: now, on: db) }
            try await ActivityLog.record(.init(
                type: wishlist ? .addWishlist : .addBook, titleID: titleID, title: title.title, author: title.authorLine,
                detail: wishlist ? nil : .copies(copies)), library: library, at: now, on: db)
            return titleID
        }
    }

    static func update(_ titleID: UUID, _ patch: TitlePatch, in scope: Scope) async throws {
        let (library, now, gate, db) = (scope.library, scope.now, scope.gate, scope.db)
        let categoryNames = try patch.categories.map(categoryNames)
        let newISBN: String?? = try patch.isbn.map { raw in
            try Check.optional(raw, field: "isbn", max: 40).map { try ISBN($0).isbn13 }
        }
        try await gate.transaction(on: db) { db in
            let title = try await find(titleID, library: library.libraryID, on: db)
            let oldISBN = title.isbn13
            if let newISBN {
                if let isbn = newISBN, isbn != title.isbn13 {
                    try await refuseDuplicate(isbn: isbn, library: library.libraryID, on: db)
                }
                title.isbn13 = newISBN
            }
            if let text = patch.title { title.title = try Check.required(text, field: "title") }
            if let authors = patch.authors { title.authors = try Check.authors(authors) }
            let isbnChanged = title.isbn13 != oldISBN
            try apply(patch, to: title)
            let moreSeries = try TitleSeries.settle(patch.moreSeries, on: title, seriesCleared: patch.series != nil)
            try await title.save(on: db)
            if let moreSeries { try await TitleSeries.set(moreSeries, titleID: titleID, on: db) }
            if isbnChanged || CoverStore.isRemote(patch.coverUrl), Enrichment.needed(title) {
                try await Enrichment.enqueue(titleID: titleID, libraryID: library.libraryID, now: now, on: db)
            }
            if let categoryNames { try await setCategories(categoryNames, titleID: titleID, library: library.libraryID, now: now, on: db) }
            var detail: ActivityDetail?
            if let requested = patch.totalCopies {
                guard !title.wishlist else { throw CirculationError.titleIsWishlistItem }
                let availability = try await Availability.of(titleID, on: db)
                // Bounded before anything is written: one request changes at most 500 copies, and a
                // title holds at most 2,000 (a huge total once held the writer for good).
                _ = try Check.range(requested, 0...Limits.copiesPerTitle, field: "totalCopies")
                guard abs(requested - availability.total) <= maxCopiesPerRequest else {
                    throw CatalogError.tooManyCopiesAtOnce(max: maxCopiesPerRequest, from: availability.total, to: requested)
                }
                switch try CopyCountPlan.plan(current: availability, requestedTotal: requested) {
                case .unchanged: break
                case .add(let n):
                    try await addCopies(n, titleID: titleID, location: nil, library: library.libraryID, on: db)
                    detail = .copiesChanged(from: availability.total, to: requested)
                case .remove(let n):
                    try await removeAvailableCopies(n, titleID: titleID, on: db)
                    detail = .copiesChanged(from: availability.total, to: requested)
                }
            }
            if detail == nil, let favorite = patch.favorite { detail = .favorite(favorite) }
            try await ActivityLog.record(.init(type: .editBook, titleID: titleID, title: title.title, author: title.authorLine, detail: detail),
                                         library: library, at: now, on: db)
        }
    }

    static func delete(_ titleID: UUID, in scope: Scope) async throws {
        let (library, now, gate, db) = (scope.library, scope.now, scope.gate, scope.db)
        try await gate.transaction(on: db) { db in
            let title = try await find(titleID, library: library.libraryID, on: db)
            let availability = try await Availability.of(titleID, on: db)
            if availability.onLoan > 0 { throw CirculationError.titleHasCopiesOnLoan(availability.onLoan) }
            try await title.delete(on: db)
            try await ActivityLog.record(.init(type: title.wishlist ? .deleteWishlist : .deleteBook, titleID: titleID,
                                               title: title.title, author: title.authorLine),
                                         library: library, at: now, on: db)
        }
    }

    static func addCopies(to titleID: UUID, _ input: CopiesAdd, in scope: Scope) async throws {
        let (library, now, gate, db) = (scope.library, scope.now, scope.gate, scope.db)
        let count = try Check.range(input.count ?? 1, 1...maxCopiesPerRequest, field: "count")!
        let location = try Check.optional(input.location, field: "location", max: 200)
        try await gate.transaction(on: db) { db in
            let title = try await find(titleID, library: library.libraryID, on: db)
            guard !title.wishlist else {
                throw CatalogError.wishlistItem(title: title.title)
            }
            try await addCopies(count, titleID: titleID, location: location, library: library.libraryID, on: db)
            try await ActivityLog.record(.init(type: .addCopy, titleID: titleID, title: title.title, author: title.authorLine,
                                               detail: .copiesAdded(count)),
                                         library: library, at: now, on: db)
        }
    }

    /// A wishlist item becomes a catalog title with N copies.
    static func acquire(_ titleID: UUID, _ input: AcquireInput, in scope: Scope) async throws {
        let (library, now, gate, db) = (scope.library, scope.now, scope.gate, scope.db)
        let count = try Check.range(input.copies ?? 1, 1...maxCopiesPerRequest, field: "copies")!
        let location = try Check.optional(input.location, field: "location", max: 200)
        try await gate.transaction(on: db) { db in
            let title = try await find(titleID, library: library.libraryID, on: db)
            guard title.wishlist else {
                throw CatalogError.notWishlist(title: title.title)
            }
            title.wishlist = false
            try await title.save(on: db)
            try await addCopies(count, titleID: titleID, location: location, library: library.libraryID, on: db)
            try await ActivityLog.record(.init(type: .fulfillWishlist, titleID: titleID, title: title.title, author: title.authorLine,
                                               detail: .copies(count)),
                                         library: library, at: now, on: db)
        }
    }

    static func updateCopy(_ copyID: UUID, _ patch: CopyPatch, in scope: Scope) async throws {
        let (library, gate, db) = (scope.library, scope.gate, scope.db)
        let barcode = try patch.barcode.map { try Check.identifier($0, field: "barcode", spaces: true) }
        try await gate.transaction(on: db) { db in
            let no = try await LibraryNumber.read(library.libraryID, on: db.sql)
            guard let copy = try await Copy.query(on: db).filter(\.$id == copyID).filter(\.$libraryNo == no).first() else {
                throw CatalogError.copyNotFound
            }
            if let barcode, barcode != copy.barcode {
                if let other = try await Lookup.copy(barcode: barcode, library: library.libraryID, on: db), other != copyID {
                    throw CatalogError.duplicateBarcode(barcode)
                }
                copy.barcode = barcode
            }
            if patch.location != nil {
                copy.location = try Check.optional(patch.location, field: "location", max: 200)
                try await Shelves.ensure(copy.location, library: library.libraryID, now: scope.now, on: db)
            }
            if patch.condition != nil { copy.condition = try Check.optional(patch.condition, field: "condition", max: 200) }
            if patch.callNumber != nil {
                copy.callNumber = CallNumber.normalised(try Check.optional(patch.callNumber, field: "callNumber", max: CallNumber.maxLength))
            }
            let note = try Check.optional(patch.statusNote, field: "statusNote", max: 500)
            if let status = patch.status, status != copy.copyStatus {
                copy.statusAt = status == .available ? nil : scope.now
                copy.statusNote = status == .available ? nil : note
                if copy.copyStatus == .onLoan { throw CirculationError.copyOnLoan }
                if status == .onLoan {
                    throw CatalogError.loanedByEditing
                }
                copy.status = status.rawValue
            }
            try await copy.save(on: db)
        }
    }

    static func deleteCopy(_ copyID: UUID, in scope: Scope) async throws {
        let (library, now, gate, db) = (scope.library, scope.now, scope.gate, scope.db)
        try await gate.transaction(on: db) { db in
            let no = try await LibraryNumber.read(library.libraryID, on: db.sql)
            guard let copy = try await Copy.query(on: db).filter(\.$id == copyID).filter(\.$libraryNo == no)
                .with(\.$title).first() else {
                throw CatalogError.copyNotFound
            }
            if copy.copyStatus == .onLoan { throw CirculationError.copyOnLoan }
            try await copy.delete(on: db)
            try await ActivityLog.record(.init(type: .removeCopy, titleID: copy.$title.id, title: copy.title.title,
                                               author: copy.title.authorLine, info: copy.barcode),
                                         library: library, at: now, on: db)
        }
    }

    // MARK: - Categories

    static func createCategory(_ input: CategoryInput, in scope: Scope) async throws -> Category {
        let (library, now, gate, db) = (scope.library, scope.now, scope.gate, scope.db)
        let name = try Check.required(input.name, field: "name", max: 100)
        return try await gate.transaction(on: db) { db in
            if let other = try await category(named: name, library: library.libraryID, on: db) {
                throw CatalogError.duplicateCategory(other.name)
            }
            let category = Category(libraryID: library.libraryID, name: name)
            try await category.create(on: db)
            try await ActivityLog.record(.init(type: .addCategory, info: name), library: library, at: now, on: db)
            return category
        }
    }

    static func renameCategory(_ id: UUID, _ input: CategoryInput, in scope: Scope) async throws {
        let (library, now, gate, db) = (scope.library, scope.now, scope.gate, scope.db)
        let name = try Check.required(input.name, field: "name", max: 100)
        try await gate.transaction(on: db) { db in
            guard let category = try await Category.query(on: db).filter(\.$id == id).filter(\.$library.$id == library.libraryID).first() else {
                throw CatalogError.categoryNotFound
            }
            if let other = try await Catalog.category(named: name, library: library.libraryID, on: db), other.id != id {
                throw CatalogError.duplicateCategory(other.name)
            }
            let old = category.name
            category.name = name
            try await category.save(on: db)
            try await ActivityLog.record(.init(type: .editCategory, detail: .renamed(from: old, to: name)), library: library, at: now, on: db)
        }
    }

    /// Merges category `from` into `into` ("Music" and "music" were two): every title of
    /// `from` is in `into` (once), and `from` is gone.
    static func mergeCategory(_ from: UUID, into: UUID, in scope: Scope) async throws {
        let (library, now, gate, db) = (scope.library, scope.now, scope.gate, scope.db)
        try await gate.transaction(on: db) { db in
            guard let source = try await Category.query(on: db).filter(\.$id == from).filter(\.$library.$id == library.libraryID).first(),
                  let target = try await Category.query(on: db).filter(\.$id == into).filter(\.$library.$id == library.libraryID).first() else {
                throw CatalogError.categoryNotFound
            }
            guard from != into else { throw CatalogError.mergeIntoItself }
            let titles = try await TitleCategory.query(on: db).filter(\.$category.$id == from).all().map { $0.$title.id }
            let already = Set(try await TitleCategory.query(on: db).filter(\.$category.$id == into).filter(\.$title.$id ~~ titles).all().map { $0.$title.id })
            for title in titles where !already.contains(title) {
                let link = TitleCategory()
                link.$title.id = title
                link.$category.id = into
                try await link.create(on: db)
            }
            try await TitleCategory.query(on: db).filter(\.$category.$id == from).delete()
            try await source.delete(on: db)
            try await ActivityLog.record(.init(type: .editCategory, detail: .merged(from: source.name, into: target.name)), library: library, at: now, on: db)
        }
    }

    /// The library's category of this name, whatever its case ("music" is "Music").
    static func category(named name: String, library: UUID, on db: any Database) async throws -> Category? {
        let folded = name.uppercased()
        return try await Category.query(on: db).filter(\.$library.$id == library).all().first { $0.name.uppercased() == folded }
    }

    /// Titles keep existing, uncategorised: only the links go, by cascade.
    static func deleteCategory(_ id: UUID, in scope: Scope) async throws {
        let (library, now, gate, db) = (scope.library, scope.now, scope.gate, scope.db)
        try await gate.transaction(on: db) { db in
            guard let category = try await Category.query(on: db).filter(\.$id == id).filter(\.$library.$id == library.libraryID).first() else {
                throw CatalogError.categoryNotFound
            }
            try await TitleCategory.query(on: db).filter(\.$category.$id == id).delete()
            try await category.delete(on: db)
            try await ActivityLog.record(.init(type: .deleteCategory, info: category.name), library: library, at: now, on: db)
        }
    }

    // MARK: - Helpers

    /// The library's categories A–Z with how many titles each has.
    static func categories(libraryID: UUID, on db: any Database) async throws -> [CategoryDTO] {
        let rows = try await db.sql.raw("""
            SELECT c.id, c.name, c.call_number_prefix, c.call_number_dewey, COUNT(tc.id) AS n
            FROM categories c LEFT JOIN title_categories tc ON tc.category_id = c.id
            WHERE c.library_id = \(bind: libraryID) GROUP BY c.id, c.name, c.call_number_prefix, c.call_number_dewey ORDER BY c.name
            """).all()
        return try rows.map {
            CategoryDTO(id: try $0.decode(column: "id", as: UUID.self), name: try $0.decode(column: "name", as: String.self),
                        titleCount: try $0.decode(column: "n", as: Int.self),
                        callNumberPrefix: try $0.decode(column: "call_number_prefix", as: String?.self),
                        callNumberDewey: try $0.decode(column: "call_number_dewey", as: Bool?.self) ?? false)
        }
    }

    static func find(_ titleID: UUID, library: UUID, on db: any Database) async throws -> Title {
        guard let title = try await Title.query(on: db).filter(\.$id == titleID).inLibrary(library).first() else {
            throw CatalogError.titleNotFound
        }
        return title
    }

    /// The same ISBN twice is refused with the existing title, so the client can offer "add N more copies".
    static func refuseDuplicate(isbn: String, library: UUID, on db: any Database) async throws {
        guard let existing = try await Title.query(on: db).inLibrary(library).filter(\.$isbn13 == isbn).first() else { return }
        let id = try existing.requireID()
        throw CatalogError.duplicateISBN(title: existing.title, titleID: id, library: library)
    }

    private static func apply(_ patch: TitlePatch, to title: Title) throws {
        if patch.subtitle != nil { title.subtitle = try Check.optional(patch.subtitle, field: "subtitle", max: 500) }
        if patch.publisher != nil { title.publisher = try Check.optional(patch.publisher, field: "publisher", max: 300) }
        if patch.publishedDate != nil {
            // A date people type says a year (1988, Oct 1988, 1988-10-01); "yesterday" or "soon" does not.
            let date = try Check.optional(patch.publishedDate, field: "publishedDate", max: 40)
            if let date, date.range(of: "[0-9]{3,4}", options: .regularExpression) == nil { throw CatalogError.publishedDateWithoutYear(date) }
            title.publishedDate = date
        }
        if let pages = patch.pageCount { title.pageCount = try Check.range(pages, Limits.pageCount, field: "pageCount") }
        if patch.language != nil { title.language = try Check.optional(patch.language, field: "language", max: 35) }
        if patch.description != nil { title.summary = try Check.optional(patch.description, field: "description", max: 20_000) }
        if patch.coverUrl != nil { title.coverURL = try Check.coverURL(patch.coverUrl, field: "coverUrl") }
        if patch.notes != nil { title.notes = try Check.optional(patch.notes, field: "notes", max: 20_000) }
        if let favorite = patch.favorite { title.favorite = favorite }
        if let rating = patch.rating {
            guard (0...5).contains(rating) else { throw CatalogError.ratingOutOfRange(rating) }
            title.rating = rating == 0 ? nil : rating
        }
        if patch.series != nil { title.series = try Check.optional(patch.series, field: "series", max: 300) }
        if patch.seriesNumber != nil { title.seriesNumber = try Check.optional(patch.seriesNumber, field: "seriesNumber", max: 20) }
        if patch.readingLevel != nil { title.readingLevel = try Check.optional(patch.readingLevel, field: "readingLevel", max: 40) }
        if patch.callNumber != nil {
            title.setCallNumber(try Check.optional(patch.callNumber, field: "callNumber", max: CallNumber.maxLength))
        }
        title.refreshDerived()
    }

    static func categoryNames(_ names: [String]) throws -> [String] {
        guard names.count <= 50 else { throw CatalogError.tooManyCategories(max: 50) }
        var seen = Set<String>()
        return try names.enumerated().compactMap { index, raw in
            guard let name = try Check.optional(raw, field: "categories.\(index)", max: 100), seen.insert(name.uppercased()).inserted else { return nil }
            return name
        }
    }

    /// Links a title to exactly these categories, creating categories that do not exist yet; a title
    /// without a call number gets the one its categories' scheme makes (`CategoryCallNumbers`).
    static func setCategories(_ names: [String], titleID: UUID, library: UUID, now: Date, on db: any Database) async throws {
        try await TitleCategory.query(on: db).filter(\.$title.$id == titleID).delete()
        guard !names.isEmpty else { return }
        // Names match without regard to case: "music" joins "Music".
        let existing = try await Category.query(on: db).filter(\.$library.$id == library).all()
        var byName = Dictionary(existing.map { ($0.name.uppercased(), $0) }, uniquingKeysWith: { a, _ in a })
        var linked = Set<UUID>()
        for name in names {
            let category: Category
            if let found = byName[name.uppercased()] {
                category = found
            } else {
                category = Category(libraryID: library, name: name)
                try await category.create(on: db)
                byName[name.uppercased()] = category
            }
            guard linked.insert(try category.requireID()).inserted else { continue }
            let link = TitleCategory()
            link.$title.id = titleID
            link.$category.id = try category.requireID()
            try await link.create(on: db)
        }
        if existing.contains(where: { $0.callNumberPrefix != nil }) {
            try await CategoryCallNumbers.fill([titleID], now: now, on: db)
        }
    }

    /// Reserves `count` accession numbers of the library (inside the caller's transaction) and
    /// returns the first, with the library's number the new copies name it by (`LibraryNumber`); copy
    /// barcodes are made from them (`Copy.barcode(accession:)`).
    static func allocateAccessions(_ count: Int, library: UUID, on db: any Database) async throws -> (first: Int, libraryNo: Int) {
        let row = try await db.sql.raw("""
            UPDATE libraries SET next_accession = next_accession + \(literal: count) WHERE id = \(bind: library) RETURNING next_accession, no
            """).first()
        guard let row, let next = try row.decode(column: "next_accession", as: Int?.self), let no = try row.decode(column: "no", as: Int?.self) else {
            throw AccountError.libraryNotFound
        }
        return (next - count, no)
    }

    /// New copies get the next accession numbers of the library as barcodes ("C000042").
    static func addCopies(_ count: Int, titleID: UUID, location: String?, library: UUID, on db: any Database) async throws {
        guard count > 0 else { return }
        try await Shelves.ensure(location, library: library, on: db)
        let (first, no) = try await allocateAccessions(count, library: library, on: db)
        let maxRow = try await db.sql.raw("SELECT MAX(copy_number) AS n FROM copies WHERE title_id = \(bind: titleID)").first()
        let lastNumber = try maxRow?.decode(column: "n", as: Int?.self) ?? 0
        for i in 0..<count {
            let copy = Copy(libraryNo: no, titleID: titleID, copyNumber: lastNumber + i + 1,
                            barcode: Copy.barcode(accession: first + i), location: location)
            try await copy.create(on: db)
        }
    }

    private static func removeAvailableCopies(_ count: Int, titleID: UUID, on db: any Database) async throws {
        let copies = try await Copy.query(on: db).filter(\.$title.$id == titleID)
            .filter(\.$status == CopyStatus.available.rawValue).sort(\.$copyNumber, .descending).limit(count).all()
        for copy in copies { try await copy.delete(on: db) }
    }
}

extension Availability {
    static func of(_ titleID: UUID, on db: any Database) async throws -> Availability {
        let rows = try await db.sql.raw("SELECT status, COUNT(*) AS n FROM copies WHERE title_id = \(bind: titleID) GROUP BY status").all()
        var statuses: [CopyStatus] = []
        for row in rows {
            let status = CopyStatus(rawValue: try row.decode(column: "status", as: String.self)) ?? .available
            statuses += Array(repeating: status, count: try row.decode(column: "n", as: Int.self))
        }
        return Availability(statuses: statuses)
    }
}
