import Fluent
import Foundation
import SQLKit
import ShelfmarkCore

/// A row of `titles` as a plain value: the one representation the backup (its JSON keys are the
/// column names), the restore, the import's bulk insert and the full reads share. The library is
/// not part of it: a row is written into whichever library it goes to (`values(library:)`).
/// Pages read narrower projections of it (`TitleQuery.SummaryRow`, the catalog CSV's line), only the
/// columns they show; the Fluent model `Title` serves single-row edits.
struct TitleRow: Codable, Sendable, Equatable {
    var id: UUID
    var isbn13: String?
    var title: String
    var subtitle: String?
    var authors: [String]
    var publisher: String?
    var published_date: String?
    var page_count: Int?
    var language: String?
    var description: String?
    var cover_url: String?
    var notes: String?
    var favorite: Bool
    var rating: Double?
    var wishlist: Bool
    var series: String?
    var series_number: String?
    var reading_level: String?
    var requested_by: String? = nil
    var priority: Int? = nil
    var asin: String? = nil
    var call_number: String? = nil
    /// A national library's MARC record (MARCXML); absent in backups made before it was kept.
    var marc_record: String? = nil
    var sort_key: String
    var section: String
    var search_text: String
    /// Computed here, never read from a backup (older backups have none).
    var author_key: String?
    var created_at: Date?
    var updated_at: Date?

    /// The columns of an insert, in the order of `values(library:)`.
    static let insertColumns = ["id", "library_no", "isbn13", "title", "subtitle", "authors", "publisher", "published_date", "page_count",
                                "language", "description", "cover_url", "notes", "favorite", "rating", "wishlist", "series", "series_number",
                                "reading_level", "requested_by", "priority", "asin", "sort_key", "section", "search_text", "author_key", "created_at",
                                "updated_at", "level_scheme", "level_value", "level_points", "call_number", "call_number_sort", "marc_record"]

    /// This row's values for a bulk insert into `library`, the library's number (`LibraryNumber.read`).
    func values(library: Int) -> [BulkInsert.Value] {
        [.uuid(id), .integer(library), .text(isbn13), .text(title), .text(subtitle), .strings(authors), .text(publisher), .text(published_date),
         .integer(page_count), .text(language), .text(description), .text(cover_url), .text(notes), .bool(favorite), .real(rating),
         .bool(wishlist), .text(series), .text(series_number), .text(reading_level), .text(requested_by), .integer(priority), .text(asin), .text(sort_key), .text(section), .text(search_text), .text(author_key ?? Title.authorKey(authors)),
         .date(created_at), .date(updated_at)] + Self.levelValues(reading_level)
            + [.text(call_number), .text(Title.callNumberSortKey(call_number)), .text(marc_record)]
    }

    /// The level columns of a reading level's text (`Title.refreshDerived` does the same for a model).
    static func levelValues(_ text: String?) -> [BulkInsert.Value] {
        let level = text.flatMap(ReadingLevel.parse)
        return [.text(level?.scheme.rawValue), .real(level?.value), .real(level?.points)]
    }

    /// A title as the import writes it: checked like any other write, the derived columns computed here.
    init(importing r: ImportRecord, id: UUID, now: Date) throws {
        self.id = id
        isbn13 = r.isbn
        title = try Check.required(r.title ?? "", field: "Title")
        authors = try Check.authors(Array(r.authors.prefix(20)))
        subtitle = try Check.optional(r.subtitle, field: "Subtitle", max: 500)
        publisher = try Check.optional(r.publisher, field: "Publisher", max: 300)
        published_date = try Check.optional(r.publishedDate, field: "Published Date", max: 50)
        language = try Check.optional(r.language, field: "Language", max: 50)
        description = try Check.optional(r.description, field: "Description", max: 20_000)
        notes = try Check.optional(r.notes, field: "Notes", max: 10_000)
        cover_url = (try? CoverURL.validate(r.coverURL)) ?? nil  // `javascript:` and other schemes are dropped
        page_count = r.pageCount
        rating = r.rating
        favorite = false
        wishlist = r.wishlist
        series = try Check.optional(r.series, field: "Series", max: 300)
        series_number = try Check.optional(r.seriesNumber, field: "Series number", max: 50)
        // "A Desolation Called Peace (Teixcalaan, #2)", as Goodreads writes a series into the title.
        if series == nil, let found = SeriesTitle.parse(title), found.series.count <= 300 {
            (title, series, series_number) = (found.title, found.series, found.number.map { String($0.prefix(50)) })
        }
        reading_level = nil
        asin = r.asin
        call_number = CallNumber.normalised(r.callNumber)
        created_at = now
        updated_at = now
        (sort_key, section, search_text) = Title.derived(title: title, subtitle: subtitle, authors: authors, series: series, isbn13: isbn13)
        author_key = Title.authorKey(authors)
    }

    /// The other series of an imported book, after the row's own: the file's list, or the ones its
    /// title names after the first ("Mort (Discworld, #4; Death, #1)"); each once, never the row's own.
    func moreSeries(importing r: ImportRecord) -> [SeriesEntry] {
        guard series != nil else { return [] }
        let listed = r.series == nil ? (r.title.flatMap(SeriesTitle.parse)?.more ?? []) : r.moreSeries
        var seen = Set([series?.lowercased()].compactMap { $0 })
        return listed.prefix(SeriesEntry.maxEntries).filter { seen.insert($0.name.lowercased()).inserted }
    }

    /// As `Enrichment.needed`: an ISBN and something missing.
    var needsEnrichment: Bool {
        guard isbn13 != nil else { return wishlist }
        let blank: (String?) -> Bool = { ($0 ?? "").trimmingCharacters(in: .whitespaces).isEmpty }
        return blank(description) || blank(cover_url) || CoverStore.isRemote(cover_url) || blank(publisher)
            || blank(published_date) || page_count == nil || blank(language) || authors.isEmpty
    }
}

/// A row of `copies` as a plain value, shared by the backup, the restore and the import's bulk insert.
struct CopyRow: Codable, Sendable, Equatable {
    var id: UUID
    var title_id: UUID
    var copy_number: Int
    var barcode: String
    var location: String?
    var condition: String?
    var status: String
    var status_note: String? = nil
    var status_at: Date? = nil
    var created_at: Date?
    var updated_at: Date?
    /// When a stocktake last saw it; absent in backups made before it was kept.
    var seen_at: Date? = nil
    /// Its own call number where it differs from the title's; absent in older backups.
    var call_number: String? = nil

    static let insertColumns = ["id", "library_no", "title_id", "copy_number", "barcode", "location", "condition", "status", "status_note",
                                "status_at", "created_at", "updated_at", "seen_at", "call_number"]

    /// New copies on the shelf: each title's numbered from 1, their barcodes from consecutive accession
    /// numbers starting at `firstAccession` (allocated by `Catalog.allocateAccessions`), in the order given.
    static func fresh(_ titles: [(title: UUID, copies: Int, location: String?)], firstAccession: Int, now: Date,
                      ids: inout UUIDSource) -> [CopyRow] {
        var rows: [CopyRow] = []
        rows.reserveCapacity(titles.reduce(0) { $0 + $1.copies })
        for (title, count, location) in titles where count > 0 {
            for number in 1...count {
                rows.append(CopyRow(id: ids.next(), title_id: title, copy_number: number, barcode: Copy.barcode(accession: firstAccession + rows.count),
                                    location: location, condition: nil, status: CopyStatus.available.rawValue, created_at: now, updated_at: now))
            }
        }
        return rows
    }

    /// `library`: the library's number (`LibraryNumber.read`).
    func values(library: Int) -> [BulkInsert.Value] {
        [.uuid(id), .integer(library), .uuid(title_id), .integer(copy_number), .text(barcode), .text(location), .text(condition), .text(status),
         .text(status_note), .date(status_at), .date(created_at), .date(updated_at), .date(seen_at), .text(call_number)]
    }
}

struct CategoryRow: Codable, Sendable, Equatable {
    var id: UUID
    var name: String
    var call_number_prefix: String?
    var call_number_dewey: Bool?
    var created_at: Date?
}

struct TitleCategoryRow: Codable, Sendable, Equatable {
    var title_id: UUID
    var category_id: UUID
}

extension TitleCategoryRow {
    /// Links titles to categories, many per statement (a link's own id is made here; nothing refers to it).
    static func insert(_ rows: [TitleCategoryRow], on db: any Database) async throws {
        struct Link: Encodable, Sendable { var id: UUID; var title_id: UUID; var category_id: UUID }
        for chunk in rows.chunked(200) {
            try await db.sql.insert(into: "title_categories").models(chunk.map { Link(id: UUID(), title_id: $0.title_id, category_id: $0.category_id) }).run()
        }
    }
}

struct CollectionRow: Codable, Sendable, Equatable {
    var id: UUID
    var name: String
    var name_key: String
    /// The `CollectionFilter` as JSON.
    var filter: String
    var created_at: Date
    var updated_at: Date
}

struct CoverRow: Codable, Sendable, Equatable {
    var id: UUID
    var sha256: String
    var content_type: String
    /// Base64 in JSON (Data's default encoding).
    var bytes: Data
    var source_url: String?
    var created_at: Date?
}
