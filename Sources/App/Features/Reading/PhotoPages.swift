import Fluent
import Foundation
import NIOFoundationEssentialsCompat
import Plot
import ShelfmarkCore
import ShelfmarkImaging
import Vapor

/// Page photos and quotes on the web: take or upload a photo of a page from the book's page,
/// straighten it by dragging its corners, mark it up, make a quote from its text, share, delete; keep
/// quotes by hand; all quotes in one searchable list.
enum PhotoPages {
    static func register(_ web: any RoutesBuilder) {
        let upload = PagePhotos.maxBytes + 65_536
        web.on(.POST, WebRoute.titlePhotos(library: .pattern, title: .pattern).pattern, body: .collect(maxSize: ByteCount(value: upload)),
               use: uploadPhoto).maxBody(upload)
        web.get(.photo(library: .pattern, photo: .pattern), use: photo)
        web.post(.photoCorners(library: .pattern, photo: .pattern), use: corners)
        web.on(.POST, WebRoute.photoMarkup(library: .pattern, photo: .pattern).pattern, body: .collect(maxSize: 600_000), use: markup).maxBody(600_000)
        web.post(.photoDelete(library: .pattern, photo: .pattern), use: deletePhoto)
        web.post(.photoQuote(library: .pattern, photo: .pattern), use: quoteFromPhoto)
        web.get(.quotes(library: .pattern), use: quotes)
        web.post(.quotes(library: .pattern), use: addQuote)
        web.post(.quoteDelete(library: .pattern, quote: .pattern), use: deleteQuote)
    }

    @Sendable static func uploadPhoto(req: Request) async throws -> Response {
        let ctx = try await req.library(.read)
        let titleID = try req.uuid("titleID")
        struct Upload: Content { var photo: File? }
        let data = (try? req.content.decode(Upload.self).photo).flatMap { $0 }.map { Data(buffer: $0.data) } ?? Data()
        let back = WebRoute.title(library: ctx.libraryID, title: titleID).path + "#photos"
        do {
            let photo = try await PagePhotos.upload(data, titleID: titleID, page: try req.form(UploadForm.self).page, userID: ctx.user.id, in: req.scope(ctx),
                                                    pool: req.application.threadPool)
            return req.seeOther(WebRoute.photo(library: ctx.libraryID, photo: photo.id).path, flash: req.t(photo.corners == nil ? .photoSaved : .photoStraightened))
        } catch let error where error.isFormRefusal {
            return req.seeOther(back, flash: req.t.message(error), isError: true)
        }
    }

    @Sendable static func photo(req: Request) async throws -> HTML {
        let ctx = try await req.library(.read)
        return try await PhotoPage.make(photoID: try req.uuid("photoID"), library: ctx, on: req.db).render(try await req.page(library: ctx))
    }

    @Sendable static func corners(req: Request) async throws -> Response {
        let ctx = try await req.library(.read)
        let id = try req.uuid("photoID")
        return try await req.seeOther(WebRoute.photo(library: ctx.libraryID, photo: id).path) {
            var values: [Double]? = nil
            let form = try req.form(CornersForm.self)
            if form.undo == nil {
                guard let corners = PageImage.Corners(text: form.corners ?? "") else { throw ReadingError.cornersInvalid }
                values = corners.points
            }
            _ = try await PagePhotos.setCorners(id, corners: values, userID: ctx.user.id, in: req.scope(ctx), pool: req.application.threadPool)
            return req.t(values == nil ? .cropUndone : .pageStraightened)
        }
    }

    @Sendable static func markup(req: Request) async throws -> Response {
        let ctx = try await req.library(.read)
        let id = try req.uuid("photoID")
        return try await req.seeOther(WebRoute.photo(library: ctx.libraryID, photo: id).path) {
            let json = try req.form(MarkupForm.self).markup ?? "{\"strokes\":[]}"
            guard let markup = try? JSONDecoder().decode(PhotoMarkup.self, from: Data(json.utf8)) else { throw InputProblem.notANumber(field: "markup") }
            _ = try await PagePhotos.setMarkup(id, markup, userID: ctx.user.id, in: req.scope(ctx))
            return req.t(.markupSaved)
        }
    }

    @Sendable static func deletePhoto(req: Request) async throws -> Response {
        let ctx = try await req.library(.read)
        let photo = try await PagePhotos.find(try req.uuid("photoID"), userID: ctx.user.id, library: ctx.libraryID, on: req.db)
        try await PagePhotos.delete(photo.id!, userID: ctx.user.id, in: req.scope(ctx))
        return req.seeOther(WebRoute.title(library: ctx.libraryID, title: photo.titleID).path + "#photos", flash: req.t(.photoDeleted))
    }

    /// The text on the page by OCR, in a quote form for the reader to trim.
    @Sendable static func quoteFromPhoto(req: Request) async throws -> HTML {
        let ctx = try await req.library(.read)
        let photo = try await PagePhotos.find(try req.uuid("photoID"), userID: ctx.user.id, library: ctx.libraryID, on: req.db)
        let text = try await PagePhotos.text(photo.id!, userID: ctx.user.id, library: ctx.libraryID, language: req.lang.rawValue, on: req.db,
                                             pool: req.application.threadPool)
        let title = try await Catalog.find(photo.titleID, library: ctx.libraryID, on: req.db)
        return QuoteFormPage(libraryID: ctx.libraryID, titleID: photo.titleID, title: title.title, photo: photo.dto, text: text, page: photo.page)
            .render(try await req.page(library: ctx))
    }

    @Sendable static func quotes(req: Request) async throws -> HTML {
        let ctx = try await req.library(.read)
        return try await QuotesPage.make(q: req.query[String.self, at: "q"], paging: Paging(req.query[Int.self, at: "page"]), library: ctx, on: req.db)
            .render(try await req.page(library: ctx))
    }

    @Sendable static func addQuote(req: Request) async throws -> Response {
        let ctx = try await req.library(.read)
        guard let titleID = try? req.form(QuoteTitle.self).titleId else { throw CatalogError.titleNotFound }
        let back = WebRoute.title(library: ctx.libraryID, title: titleID).path + "#quotes"
        return try await req.seeOther(back) {
            let form = try req.form(QuoteForm.self)
            _ = try await Quotes.create(QuoteInput(titleId: titleID, page: form.page, text: form.text ?? "", note: form.note, photoId: form.photoId),
                                        userID: ctx.user.id, in: req.scope(ctx))
            return req.t(.quoteSaved)
        }
    }

    @Sendable static func deleteQuote(req: Request) async throws -> Response {
        let ctx = try await req.library(.read)
        let form = try req.form(QuoteDeleteForm.self)
        let back = form.back == "quotes" ? WebRoute.quotes(library: ctx.libraryID).path
            : form.titleId.map { WebRoute.title(library: ctx.libraryID, title: $0).path + "#quotes" } ?? WebRoute.quotes(library: ctx.libraryID).path
        return try await req.seeOther(back) {
            try await Quotes.delete(try req.uuid("quoteID"), userID: ctx.user.id, in: req.scope(ctx))
            return req.t(.quoteDeleted)
        }
    }
}

extension PhotoPages {
    struct QuoteTitle: WebForm {
        var titleId: UUID
    }

    /// A quote as typed (or trimmed from the page's text): the bounds `Quotes` keeps.
    struct QuoteForm: WebForm {
        var page, text, note: String?
        var photoId: UUID?
        static var maxLength: [String: Int] { ["page": Quotes.maxPage, "text": Quotes.maxText, "note": Quotes.maxNote] }
    }
}

extension PhotoPages {
    /// A page photo's upload: the page it shows (the file itself is read as a file).
    struct UploadForm: WebForm {
        var page: String?
        static var maxLength: [String: Int] { ["page": Quotes.maxPage] }
    }

    /// The page's four corners as the straightening tool sends them, or `undo` to go back to the original.
    struct CornersForm: WebForm {
        var corners: String?
        var undo: String?
        static var maxLength: [String: Int] { ["corners": 400] }
    }

    /// The drawing on a photo, as JSON (`PhotoMarkup`; its strokes and points are bounded where it is saved).
    struct MarkupForm: WebForm {
        var markup: String?
        static var maxLength: [String: Int] { ["markup": 600_000] }
    }

    /// Where a deleted quote's page goes back to: the Quotes page, or its book.
    struct QuoteDeleteForm: WebForm {
        var back: String?
        var titleId: UUID?
    }
}
