import Fluent
import Foundation
import NIOFoundationEssentialsCompat
import Plot
import ShelfmarkCore
import ShelfmarkImaging
import ShelfmarkLookup
import Vapor

/// Adding books: scan or type an ISBN, confirm the looked-up record (or edit it first), or
/// enter a book by hand; a known ISBN offers more copies instead.
extension CatalogPages {
    static func registerAdd(_ web: any RoutesBuilder) {
        web.on(.POST, WebRoute.addPhoto(library: .pattern).pattern, body: .collect(maxSize: ByteCount(value: ScanController.maxImageMB << 20)), use: photo)
            .maxBody(ScanController.maxImageMB << 20)
    }

    /// The fields of the confirmation / manual form.
    struct Draft: Sendable {
        var isbn: String?
        var title: String?
        var subtitle: String?
        var authors: String?
        var publisher: String?
        var publishedDate: String?
        var pageCount: String?
        var language: String?
        var description: String?
        var coverUrl: String?
        var callNumber: String?
        var copies = "1"

        init() {}

        init(_ r: BookRecord) {
            isbn = r.isbn13
            title = r.title
            subtitle = r.subtitle
            authors = r.authors?.joined(separator: ", ")
            publisher = r.publisher
            publishedDate = r.publishedDate
            pageCount = r.pageCount.map(String.init)
            language = r.language
            description = r.description
            coverUrl = r.coverURL
            callNumber = r.suggestedCallNumber
        }

        /// The draft as a form's values.
        var values: [String: String] {
            let pairs: [String: String?] = ["isbn": isbn, "title": title, "subtitle": subtitle, "authors": authors, "publisher": publisher,
                                            "publishedDate": publishedDate, "pageCount": pageCount, "language": language,
                                            "description": description, "coverUrl": coverUrl, "callNumber": callNumber, "copies": copies]
            return pairs.compactMapValues { $0 }
        }

        /// What was typed, to show again next to a refusal.
        init(typed req: Request) {
            let values = req.typed(AddForm.CodingKeys.allCases.map(\.rawValue)).filter { !$0.value.isEmpty }
            (isbn, title, subtitle, authors) = (values["isbn"], values["title"], values["subtitle"], values["authors"])
            (publisher, publishedDate, pageCount, language) = (values["publisher"], values["publishedDate"], values["pageCount"], values["language"])
            (description, coverUrl, copies) = (values["description"], values["coverUrl"], values["copies"] ?? "1")
            callNumber = values["callNumber"]
        }
    }

    /// The confirmation / manual form as sent: the API's bounds for a new title (`TitleCreate`).
    struct AddForm: WebForm, SchemaConstrained {
        var isbn, title, subtitle, authors, publisher, publishedDate, language, description, coverUrl, callNumber: String?
        var pageCount, copies: Int?

        enum CodingKeys: String, CodingKey, CaseIterable {
            case isbn, title, subtitle, authors, publisher, publishedDate, pageCount, language, description, coverUrl, copies, callNumber
        }

        static var schemaConstraints: [String: JSONValue] {
            var fields = TitleCreate.schemaConstraints
            fields["authors"] = ["maxLength": .number(Double(50 * 302))]
            return fields
        }

        var input: TitleCreate {
            TitleCreate(
                title: title ?? "", subtitle: subtitle,
                authors: authors.map { $0.split(separator: ",").map { $0.trimmingCharacters(in: .whitespaces) }.filter { !$0.isEmpty } },
                isbn: isbn, publisher: publisher, publishedDate: publishedDate, pageCount: pageCount,
                language: language, description: description, coverUrl: coverUrl, notes: nil, favorite: nil, rating: nil,
                series: nil, seriesNumber: nil, readingLevel: nil, categories: nil, copies: copies ?? 1, location: nil,
                callNumber: callNumber)
        }
    }

    @Sendable static func addForm(req: Request) async throws -> Response {
        let ctx = try await req.library(.catalog)
        let page = try await req.page(library: ctx)
        let t = page.t
        if req.query[String.self, at: "manual"] != nil {
            return try await draftPage(page, draft: Draft(), intro: nil).encodeResponse(for: req)
        }
        guard let raw = req.query[String.self, at: "isbn"]?.trimmingCharacters(in: .whitespaces), !raw.isEmpty else {
            return try await startPage(page, isbn: nil, error: nil).encodeResponse(for: req)
        }
        let isbn: ISBN
        do {
            isbn = try ISBN(raw)
        } catch {
            return try await req.refused(startPage(page, isbn: raw, error: req.t.message(error)))
        }
        if let existing = try await LookupController.existingTitle(isbn.isbn13, library: ctx.libraryID, on: req.db) {
            return try await existingPage(page, existing: existing).encodeResponse(for: req)
        }
        let looked = try await LookupService.isbn(isbn, lookup: try await req.application.metadataLookup, now: req.now,
                                                  gate: req.application.writeGate, on: req.db)
        if let record = looked.result.record {
            return try await draftPage(page, draft: Draft(record), intro: t(.lookupFound), sources: sourceLines(record, t: t)).encodeResponse(for: req)
        }
        var draft = Draft()
        draft.isbn = isbn.isbn13
        return try await draftPage(page, draft: draft, intro: t(.lookupNotFound)).encodeResponse(for: req)
    }

    static func startPage(_ page: PageContext, isbn: String?, error: String?) -> HTML {
        AddPage(libraryID: page.libraryID, state: .start(isbn: isbn, error: error)).render(page)
    }

    static func existingPage(_ page: PageContext, existing: ExistingTitleDTO) -> HTML {
        AddPage(libraryID: page.libraryID, state: .existing(existing)).render(page)
    }

    static func draftPage(_ page: PageContext, draft d: Draft, intro: String?, refusal: (any Error)? = nil, sources: [String] = []) -> HTML {
        let form = refusal.map { FormState(values: d.values, refusedWith: $0, t: page.t, fields: AddPage.fields) } ?? FormState(values: d.values)
        return AddPage(libraryID: page.libraryID, state: .draft(form, intro: intro, sources: sources)).render(page)
    }

    /// Which source gave which of the record's fields, a line per source in priority order, the
    /// fields by their labels on the form.
    static func sourceLines(_ record: BookRecord, t: Strings) -> [String] {
        let labels: [String: L] = ["title": .title, "subtitle": .subtitle, "authors": .authorsField, "publisher": .publisher,
                                   "publishedDate": .publishedDate, "pageCount": .pageCount, "language": .languageField,
                                   "description": .description, "coverURL": .coverURL, "deweyNumber": .callNumberField,
                                   "lcCallNumber": .callNumberField, "marcXML": .marcRecordHeading]
        var byProvider: [(ProviderID, [String])] = []
        for field in BookRecord.mergedFields {
            guard let source = record.fieldSources?[field].flatMap(ProviderID.init(rawValue:)), let label = labels[field].map({ t($0) }) else { continue }
            if let i = byProvider.firstIndex(where: { $0.0 == source }) {
                if !byProvider[i].1.contains(label) { byProvider[i].1.append(label) }
            } else {
                byProvider.append((source, [label]))
            }
        }
        return byProvider.map { t.format(.lookupGaveFields, $0.0.displayName, $0.1.joined(separator: ", ")) }
    }

    @Sendable static func add(req: Request) async throws -> Response {
        let ctx = try await req.library(.catalog)
        let d = Draft(typed: req)
        do {
            let id = try await Catalog.create(try req.form(AddForm.self).input, wishlist: false, in: req.scope(ctx))
            req.application.enrichmentWorker?.ring()
            return req.seeOther(WebRoute.title(library: ctx.libraryID, title: id).path, flash: req.t.format(.added, d.title ?? ""))
        } catch let error as CatalogError where error.code == "duplicate_isbn" {
            let isbn = try ISBN(d.isbn ?? "").isbn13
            guard let existing = try await LookupController.existingTitle(isbn, library: ctx.libraryID, on: req.db) else { throw error }
            return try await existingPage(try await req.page(library: ctx), existing: existing).encodeResponse(for: req)
        } catch let error as ISBN.Invalid {
            var form = FormState(values: d.values)
            form.errors["isbn"] = req.t.message(error)
            let page = try await req.page(library: ctx)
            return try await req.refused(AddPage(libraryID: ctx.libraryID, state: .draft(form, intro: nil)).render(page))
        } catch let error where error.answered.status == .unprocessableEntity || error.answered.status == .badRequest {
            return try await req.refused(draftPage(try await req.page(library: ctx), draft: d, intro: nil, refusal: error))
        }
    }

    /// Without JavaScript: a photo of the barcode is read here and leads to the lookup.
    @Sendable static func photo(req: Request) async throws -> Response {
        let ctx = try await req.library(.catalog)
        struct Upload: Content { var image: File? }
        let file = try? req.content.decode(Upload.self).image
        let data = file.map { Data(buffer: $0.data) } ?? Data()
        let page = try await req.page(library: ctx)
        do {
            let found = try await req.application.threadPool.runIfActive { () throws -> (isbn: String?, text: String) in
                let result = try BarcodeReader().read(data)
                if let isbn = result.barcodes.lazy.compactMap(\.isbn).first { return (isbn, "") }
                let read = try? TextReader.shared.read(data)
                return (read?.isbns.first?.isbn13, read?.text ?? "")
            }
            if let isbn = found.isbn { return req.redirect(to: WebRoute.add(library: ctx.libraryID).path(query: [("isbn", isbn)])) }
            // A cover without a barcode: its words are searched (all of them, and each line alone, at once),
            // and the books found offered to pick from.
            let queries = CoverText.queries(found.text)
            if let words = queries.first {
                let lookup = try await req.application.metadataLookup
                let answers = await withTaskGroup(of: (Int, [BookRecord]).self) { group in
                    for (i, query) in queries.enumerated() {
                        group.addTask { (i, await lookup.search(SearchQuery(text: query, limit: 8)).candidates) }
                    }
                    var found: [Int: [BookRecord]] = [:]
                    for await (i, records) in group { found[i] = records }
                    return found
                }
                var seen = Set<String>()
                let candidates = queries.indices.flatMap { answers[$0] ?? [] }
                    .filter { record in record.isbn13.map { seen.insert($0).inserted } ?? false }
                if !candidates.isEmpty {
                    return try await AddPage(libraryID: ctx.libraryID, state: .candidates(Array(candidates.prefix(10)), read: words))
                        .render(page).encodeResponse(for: req)
                }
            }
            return try await req.refused(startPage(page, isbn: nil, error: req.t(.lookupNotFound)))
        } catch is ImageError {
            return try await req.refused(startPage(page, isbn: nil, error: req.t(.errPhotoUnreadable)))
        }
    }
}
