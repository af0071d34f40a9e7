import Fluent
import Foundation
import ShelfmarkCore
import ShelfmarkPDF
import Vapor

/// Member cards: ID-1 cards (85.6 × 54 mm), ten to an A4 or US Letter sheet, each with the
/// library's name, the member's name and class and the card's Code 128 barcode, and a thin line to cut
/// along; for one member, a class (or any search) or everyone. The same drawing is the page's preview.
enum MemberCardSheets {
    /// At most this many cards in one PDF (a school prints class by class; 1,000 is a large school).
    static let maxCards = 1_000

    struct Options: Sendable, Equatable {
        var paper = SheetLayout.Paper.a4
        var startAt = 1
        /// A class or a search (card ID or name).
        var q: String?
        var member: UUID?

        /// The options as the PDF's query (the page's links to the PDF and its previews).
        var query: [(String, String)] {
            var pairs: [(String, String)] = [("paper", paper.rawValue)]
            if startAt != 1 { pairs.append(("start", String(startAt))) }
            if let q { pairs.append(("q", q)) }
            if let member { pairs.append(("member", member.uuidString)) }
            return pairs
        }
    }

    struct Card: Sendable, Equatable {
        var name: String
        var grade: String?
        var cardID: String
    }

    static func options(_ req: Request) throws -> Options {
        var o = Options()
        o.paper = try req.paperQuery()
        o.startAt = try req.intQuery("start", default: 1, range: 1...CardLayout.sheet(o.paper).perSheet)
        if let raw = req.query[String.self, at: "q"]?.cleanedInput, !raw.isEmpty {
            guard raw.count <= 100 else { throw InputProblem.tooLong(field: "q", max: 100) }
            o.q = raw
        }
        o.member = try req.uuidQuery("member")
        return o
    }

    /// The cards `options` select, by class then name; more than `maxCards` is refused with the count.
    static func cards(_ options: Options, library: UUID, on db: any Database) async throws -> [Card] {
        if let id = options.member {
            guard let m = try await Member.query(on: db).filter(\.$id == id).filter(\.$library.$id == library).first() else {
                throw LoanError.memberIDNotFound
            }
            return [Card(name: m.fullName, grade: m.grade, cardID: m.cardID)]
        }
        let members = try await Members.list(query: options.q, sort: .grade, libraryID: library, limit: maxCards + 1, offset: 0, on: db)
        if members.count > maxCards {
            throw Problem.tooMany(try await Members.count(query: options.q, libraryID: library, on: db))
        }
        return members.map { Card(name: $0.name, grade: $0.grade, cardID: $0.cardId) }
    }

    enum Problem: DomainError, Equatable {
        case tooMany(Int)
        var described: Described {
            switch self {
            case .tooMany(let n): .init(.invalid, "too_many_cards", details: ["count": String(n), "max": String(MemberCardSheets.maxCards)]) {
                $0.format(.errTooManyCards, $0.number(n), $0.number(MemberCardSheets.maxCards))
            }
            }
        }
    }

    static func pageSize(_ paper: SheetLayout.Paper) -> PDFDocument.PageSize { paper == .a4 ? .a4 : .letter }

    static func pdf(_ cards: [Card], _ options: Options, libraryName: String, title: String) throws -> [UInt8] {
        try PDFDocument.make(size: pageSize(options.paper), title: title) { draw(cards, options, libraryName: libraryName, on: $0) }
    }

    static func preview(_ cards: [Card], _ options: Options, libraryName: String, page: Int) throws -> [UInt8] {
        try PDFDocument.preview(size: pageSize(options.paper), page: page, dpi: 96) { draw(cards, options, libraryName: libraryName, on: $0) }
    }

    static func draw(_ cards: [Card], _ options: Options, libraryName: String, on pdf: PDFDocument) {
        let sheet = CardLayout.sheet(options.paper)
        let mm = PDFDocument.pointsPerMM
        var page = -1
        for (index, card) in cards.enumerated() {
            let place = sheet.place(index, startAt: options.startAt)
            while page < place.page {
                pdf.newPage()
                page += 1
            }
            guard pdf.drawing else { continue }
            let (x, y, w, h) = (place.x * mm, place.y * mm, sheet.width * mm, sheet.height * mm)
            let pad = 4 * mm, inner = w - 2 * pad
            pdf.outline(x: x, y: y, width: w, height: h, radius: 3.18 * mm)  // ID-1's corner radius: cut along it
            var top = y + 3.5 * mm
            top += pdf.text(libraryName, x: x + pad, y: top, width: inner, style: .init(size: 8, grey: true, maxLines: 1)) + 1 * mm
            top += pdf.text(card.name, x: x + pad, y: top, width: inner, style: .init(size: 13, bold: true, maxLines: 2))
            if let grade = card.grade, !grade.isEmpty {
                pdf.text(grade, x: x + pad, y: top, width: inner, style: .init(size: 9, maxLines: 1))
            }
            let textHeight = pdf.height(of: card.cardID, width: inner, style: .init(size: 8))
            let bottom = y + h - 3 * mm
            LabelSheets.barcode(card.cardID, x: x, y: bottom - textHeight - 12 * mm, width: w, height: 11 * mm, on: pdf)
            pdf.text(card.cardID, x: x + pad, y: bottom - textHeight, width: inner, style: .init(size: 8, centred: true))
        }
        if cards.isEmpty { pdf.newPage() }
    }
}
