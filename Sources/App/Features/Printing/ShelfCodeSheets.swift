import Fluent
import Foundation
import ShelfmarkCore
import ShelfmarkImaging
import ShelfmarkPDF
import Vapor

/// Shelf signs: each shelf's QR code — the address of its page, so a phone's camera opens
/// it, and the scan fields of Shelfmark take it — with its name, room and code, eight to an A4 or US
/// Letter sheet (90 × 66 mm, cut along the grey lines). One shelf or every shelf.
enum ShelfCodeSheets {
    struct Options: Sendable, Equatable {
        var paper = SheetLayout.Paper.a4
        var shelf: UUID?
    }

    struct Sign: Sendable, Equatable {
        var name: String
        var room: String?
        var code: String
        /// What the QR code holds.
        var link: String
    }

    static func layout(_ paper: SheetLayout.Paper) -> SheetLayout {
        SheetLayout(paper: paper, width: 90, height: 66, columns: 2, rows: 4,
                    left: (paper.width - 180) / 2, top: (paper.height - 264) / 2, pitchX: 90, pitchY: 66)
    }

    static func options(_ req: Request) throws -> Options {
        var o = Options()
        o.paper = try req.paperQuery()
        o.shelf = try req.uuidQuery("shelf")
        return o
    }

    /// The signs `options` select, in the shelves' natural order; `origin` starts each shelf's address.
    static func signs(_ options: Options, origin: String, library: UUID, on db: any Database) async throws -> [Sign] {
        let shelves = if let id = options.shelf { [try await Shelves.get(id, library: library, on: db)] }
            else { try await Shelves.list(library: library, on: db) }
        return shelves.map { Sign(name: $0.name, room: $0.room, code: $0.code, link: origin + WebRoute.shelf(library: library, shelf: $0.id).path) }
    }

    static func pageSize(_ paper: SheetLayout.Paper) -> PDFDocument.PageSize { paper == .a4 ? .a4 : .letter }

    static func pdf(_ signs: [Sign], _ options: Options, title: String) throws -> [UInt8] {
        try PDFDocument.make(size: pageSize(options.paper), title: title) { draw(signs, options, on: $0) }
    }

    static func preview(_ signs: [Sign], _ options: Options, page: Int) throws -> [UInt8] {
        try PDFDocument.preview(size: pageSize(options.paper), page: page, dpi: 96) { draw(signs, options, on: $0) }
    }

    static func draw(_ signs: [Sign], _ options: Options, on pdf: PDFDocument) {
        let sheet = layout(options.paper)
        let mm = PDFDocument.pointsPerMM
        var page = -1
        for (index, sign) in signs.enumerated() {
            let place = sheet.place(index)
            while page < place.page {
                pdf.newPage()
                page += 1
            }
            guard pdf.drawing else { continue }
            let (x, y, w, h) = (place.x * mm, place.y * mm, sheet.width * mm, sheet.height * mm)
            pdf.outline(x: x, y: y, width: w, height: h)
            let side = 44 * mm, pad = 5 * mm
            qr(sign.link, x: x + pad, y: y + (h - side) / 2, side: side, on: pdf)
            let textX = x + pad + side + 4 * mm, textWidth = w - (textX - x) - pad
            var top = y + 7 * mm
            top += pdf.text(sign.name, x: textX, y: top, width: textWidth, style: .init(size: 15, bold: true, maxLines: 3)) + 1.5 * mm
            if let room = sign.room {
                top += pdf.text(room, x: textX, y: top, width: textWidth, style: .init(size: 10, grey: true, maxLines: 2)) + 1.5 * mm
            }
            let codeHeight = pdf.height(of: sign.code, width: textWidth, style: .init(size: 20, bold: true))
            pdf.text(sign.code, x: textX, y: max(top, y + h - 7 * mm - codeHeight), width: textWidth, style: .init(size: 20, bold: true, maxLines: 1))
        }
        if signs.isEmpty { pdf.newPage() }
    }

    /// A QR code as squares `side` points wide (its four-module quiet zone inside `side`).
    static func qr(_ text: String, x: Double, y: Double, side: Double, on pdf: PDFDocument) {
        guard let code = try? BarcodeRenderer.qrRuns(text) else { return }
        let module = side / Double(code.size + 8)
        let rects = code.runs.map {
            PDFDocument.Rect(x: x + Double($0.x + 4) * module, y: y + Double($0.y + 4) * module, width: Double($0.length) * module, height: module)
        }
        pdf.fill(rects)
    }
}
