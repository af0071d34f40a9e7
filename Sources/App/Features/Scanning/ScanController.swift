import Fluent
import Foundation
import NIOFoundationEssentialsCompat
import ShelfmarkCore
import ShelfmarkImaging
import Vapor

/// Reading photos (a book, a copy or a card) and drawing codes for labels, cards and
/// shelves.
enum ScanController {
    static let maxImageMB = 10

    static func register(_ api: APIRoutes) {
        api.on(.POST, "scan", doc: .init(
            summary: "Read a photo: barcodes (EAN-13 with ISBN and add-on, EAN-8, UPC-A/E, Code 128, Code 39, Codabar, QR), else the printed text and the ISBNs in it. Send the image as the raw body (image/jpeg, image/png …) or as multipart form data (field `image`); at most 10 MB",
            tag: "Scanning",
            query: [.init(name: "ocr", kind: .boolean, description: "Read the text when no code is found (default true)."),
                    .init(name: "live", kind: .boolean, description: "The image is one frame of a live camera: one quick look (no retries, no text), for a client that sends frames while a code is in view and believes a value when two frames agree (default false).")],
            upload: ["image/jpeg", "image/png", "image/webp"], uploadField: "image", response: ScanResponse.self),
               body: .collect(maxSize: ByteCount(value: maxImageMB << 20)), use: scan)

        let lib = api.grouped("libraries", ":libraryID")
        for format in ["svg", "png"] {
            lib.on(.GET, .copyBarcode(library: .pattern, copy: .pattern, format: format), doc: .init(
                summary: "The copy's barcode label as \(format.uppercased()) (Code 128 with the barcode text)", tag: "Scanning"), use: copyBarcode)
            lib.on(.GET, .memberBarcode(library: .pattern, member: .pattern, format: format), doc: .init(
                summary: "The member's card barcode as \(format.uppercased()) (Code 128 of the card ID)", tag: "Scanning"), use: memberBarcode)
            lib.on(.GET, "titles", ":titleID", "barcode.\(format)", doc: .init(
                summary: "The title's ISBN as an EAN-13 book barcode, \(format.uppercased())", tag: "Scanning"), use: titleBarcode)
            lib.on(.GET, "shelves", "qr.\(format)", doc: .init(
                summary: "A shelf's QR code as \(format.uppercased()): `shelfmark:shelf:<location>` (A10)", tag: "Scanning",
                query: [.init(name: "location", description: "The shelf location, as on copies.", required: true, schema: ["minLength": 1, "maxLength": 150, "pattern": .string(Rule.notBlank)])]), use: shelfQR)
        }
    }

    struct Upload: Content {
        var image: File?
        var file: File?
        var photo: File?
    }

    @Sendable static func scan(req: Request) async throws -> ScanResponse {
        _ = try req.user
        let data: Data
        if req.headers.contentType?.type == "multipart" {
            let upload = try req.multipart(Upload.self)
            guard let file = upload.image ?? upload.file ?? upload.photo else {
                throw RequestError.noFile(field: "image")
            }
            data = Data(buffer: file.data)
        } else {
            data = req.body.data.map { Data(buffer: $0) } ?? Data()
        }
        guard data.count <= maxImageMB << 20 else {
            throw EdgeError.badImage(.tooLarge(maxMB: maxImageMB))
        }
        let live = try req.flag("live", default: false)
        let withText = try req.flag("ocr", default: true) && !live
        let started = ContinuousClock.now
        let outcome: (BarcodeReader.Result, TextReader.Result?) = try await req.application.threadPool.runIfActive {
            do {
                let result = live ? try BarcodeReader().readFrame(data) : try BarcodeReader().read(data)
                guard result.barcodes.isEmpty, withText else { return (result, nil) }
                return (result, try? TextReader.shared.read(data))  // no OCR model: the codes' answer stands
            } catch let error as ImageError {
                throw EdgeError.badImage(ImageProblem(error))
            }
        }
        let (result, text) = outcome
        let elapsed = ContinuousClock.now - started
        let codes = result.barcodes.map(ScannedCode.init)
        let ocr = text.map { ScannedText(text: $0.text, isbns: $0.isbns.map(ISBNForms.init)) }
        let isbn = codes.lazy.compactMap(\.isbn).first ?? ocr?.isbns.first
        let found = !codes.isEmpty || isbn != nil
        return ScanResponse(
            found: found, barcodes: codes, isbn: isbn, ocr: ocr, width: result.width, height: result.height,
            milliseconds: Int(elapsed.components.seconds * 1000 + elapsed.components.attoseconds / 1_000_000_000_000_000),
            message: found ? nil : "No barcode or ISBN found. Hold the camera closer so the barcode fills the frame, avoid glare, or type the number.")
    }

    // MARK: - Drawing

    static func image(_ kind: BarcodeRenderer.Kind, _ text: String, req: Request) throws -> Response {
        let png = req.url.path.hasSuffix(".png")
        let out: BarcodeRenderer.Output
        do {
            out = try BarcodeRenderer.render(kind, text)
        } catch {
            throw EdgeError.cannotDraw(field: "text")
        }
        var headers = HTTPHeaders()
        headers.replaceOrAdd(name: .contentType, value: png ? "image/png" : "image/svg+xml; charset=utf-8")
        headers.replaceOrAdd(name: .cacheControl, value: "private, max-age=300")
        return Response(status: .ok, headers: headers, body: png ? .init(data: out.png) : .init(string: out.svg))
    }

    @Sendable static func copyBarcode(req: Request) async throws -> Response {
        let ctx = try await req.library(.read)
        let no = try await LibraryNumber.read(ctx.libraryID, on: req.db.sql)
        guard let copy = try await Copy.query(on: req.db).filter(\.$id == req.uuid("copyID")).filter(\.$libraryNo == no).first() else {
            throw CatalogError.copyNotFound
        }
        return try image(codeKind(for: copy.barcode), copy.barcode, req: req)
    }

    @Sendable static func memberBarcode(req: Request) async throws -> Response {
        let ctx = try await req.library(.circulate)
        guard let member = try await Member.query(on: req.db).filter(\.$id == req.uuid("memberID")).filter(\.$library.$id == ctx.libraryID).first() else {
            throw MemberError.notFound
        }
        return try image(codeKind(for: member.cardID), member.cardID, req: req)
    }

    /// Code 128 where it can hold the text (printable ASCII, as card IDs and barcodes usually are);
    /// a QR code otherwise ("Müller-7", "李明"), which every phone camera and our scanner read.
    static func codeKind(for text: String) -> BarcodeRenderer.Kind {
        text.unicodeScalars.allSatisfy({ (0x20...0x7E).contains($0.value) }) && text.utf8.count <= 80 ? .code128 : .qr
    }

    @Sendable static func titleBarcode(req: Request) async throws -> Response {
        let ctx = try await req.library(.read)
        let title = try await Catalog.find(try req.uuid("titleID"), library: ctx.libraryID, on: req.db)
        guard let isbn = title.isbn13 else {
            throw CatalogError.noISBNToDraw(title: title.title)
        }
        return try image(.isbn, isbn, req: req)
    }

    @Sendable static func shelfQR(req: Request) async throws -> Response {
        _ = try await req.library(.read)
        guard let location = req.query[String.self, at: "location"]?.trimmingCharacters(in: .whitespaces), !location.isEmpty else {
            throw EdgeError.shelfNeeded
        }
        guard location.count <= 150 else { throw InputProblem.tooLong(field: "location", max: 150) }
        return try image(.qr, "shelfmark:shelf:" + location, req: req)
    }
}
