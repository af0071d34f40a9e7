import Foundation
import ShelfmarkCore
import ShelfmarkPDF

/// A report as people read it: each cell in the reader's language, the CSV a spreadsheet opens, the
/// PDF a head teacher is handed.
enum ReportOutput {
    /// A cell as the page and the PDF show it.
    static func text(_ cell: ReportCellDTO, _ kind: ReportColumnKind, currency: String, t: Strings) -> String {
        if let text = cell.text { return text }
        guard let n = cell.number else { return kind == .text ? "" : "–" }
        switch kind {
        case .text, .count: return t.number(Int(n))
        case .money: return t.money(Int(n), currency)
        case .percent: return n.formatted(.number.precision(.fractionLength(0...1)).locale(t.lang.locale)) + "\u{A0}%"
        case .days: return n.formatted(.number.precision(.fractionLength(0...1)).locale(t.lang.locale))
        case .date: return t.date(Date(timeIntervalSince1970: n))
        }
    }

    /// A cell as the CSV writes it: plain numbers (money in the currency's units with two decimals),
    /// dates as `2026-11-27` in the library's calendar.
    static func csvValue(_ cell: ReportCellDTO, _ kind: ReportColumnKind, calendar: Calendar) -> String {
        if let text = cell.text { return text }
        guard let n = cell.number else { return "" }
        switch kind {
        case .text, .count: return String(Int(n))
        case .money: return String(format: "%.2f", n / 100)
        case .percent, .days: return String(format: "%.1f", n)
        case .date:
            let c = calendar.dateComponents([.year, .month, .day], from: Date(timeIntervalSince1970: n))
            return String(format: "%04d-%02d-%02d", c.year ?? 0, c.month ?? 0, c.day ?? 0)
        }
    }

    /// The report as CSV: one table (`only`), or each table under its title with a blank line between.
    static func csv(_ report: ReportDTO, only: String?, calendar: Calendar, t: Strings) -> Data {
        var out: [UInt8] = [0xEF, 0xBB, 0xBF]
        let tables = report.tables.filter { only == nil || $0.key == only }
        for (i, table) in tables.enumerated() {
            if only == nil {
                if i > 0 { out.append(contentsOf: [0x0D, 0x0A]) }
                CSVWriter.appendLine([table.title], to: &out)
            }
            CSVWriter.appendLine(table.columns.map(\.title), to: &out)
            for row in table.rows {
                CSVWriter.appendLine(zip(row, table.columns).map { csvValue($0, $1.kind, calendar: calendar) }, to: &out)
            }
            if let totals = table.totals {
                CSVWriter.appendLine([t(.reportTotal)] + zip(totals, table.columns).dropFirst().map { csvValue($0, $1.kind, calendar: calendar) }, to: &out)
            }
        }
        return Data(out)
    }

    /// "1 Aug 2026 – 27 Nov 2026", or "as of 27 Nov 2026" for a list of how things are now.
    static func periodText(_ report: ReportDTO, now: Date, t: Strings) -> String {
        guard let from = report.from, let to = report.to else { return t.format(.reportAsOf, t.date(now)) }
        return t.date(from) + " – " + t.date(to)
    }

    // MARK: - PDF

    static let margin = 15.0, top = 18.0, bottom = 16.0, rowHeight = 5.2, numberWidth = 24.0

    static func pdf(_ report: ReportDTO, header: String, filters: [String], now: Date, paper: SheetLayout.Paper, t: Strings) throws -> [UInt8] {
        let size: PDFDocument.PageSize = paper == .a4 ? .a4 : .letter
        let mm = PDFDocument.pointsPerMM
        let (width, height) = (paper.width, paper.height)
        let textWidth = (width - 2 * margin) * mm
        let language = t.lang.rawValue
        return try PDFDocument.make(size: size, title: report.title + " · " + header) { pdf in
            var y = top * mm, pageNumber = 0
            func newPage() {
                pdf.newPage()
                pageNumber += 1
                pdf.text(header, x: margin * mm, y: 8 * mm, width: textWidth, style: .init(size: 8, grey: true, maxLines: 1), language: language)
                pdf.rule(x: margin * mm, y: 13 * mm, width: textWidth)
                pdf.text(t.number(pageNumber), x: margin * mm, y: (height - 10) * mm, width: textWidth,
                         style: .init(size: 8, grey: true, centred: true), language: language)
                y = top * mm
            }
            func room(_ needed: Double) { if y + needed > (height - bottom) * mm { newPage() } }
            newPage()
            y += pdf.text(report.title, x: margin * mm, y: y, width: textWidth, style: .heading, language: language) + 1 * mm
            let sub = ([periodText(report, now: now, t: t)] + filters).joined(separator: " · ")
            y += pdf.text(sub, x: margin * mm, y: y, width: textWidth, style: .small, language: language) + 4 * mm
            for table in report.tables {
                // Numbers get a fixed width; text columns share the rest, the first twice as much.
                let numbers = table.columns.filter { $0.kind != .text }.count
                let texts = table.columns.count - numbers
                let shared = max(20, (width - 2 * margin) - Double(numbers) * numberWidth)
                let widths = table.columns.enumerated().map { i, c -> Double in
                    c.kind != .text ? numberWidth : shared / Double(texts + 1) * (i == 0 ? 2 : 1)
                }
                func line(_ cells: [String], bold: Bool) {
                    room(rowHeight * mm)
                    var x = margin * mm
                    for (i, cell) in cells.enumerated() {
                        let w = widths[i] * mm
                        let right = table.columns[i].kind != .text
                        pdf.text(cell, x: x, y: y, width: w - 2 * mm, style: .init(size: 8, bold: bold, maxLines: 1, right: right),
                                 language: language)
                        x += w
                    }
                    y += rowHeight * mm
                }
                room(18 * mm)
                y += pdf.text(table.title, x: margin * mm, y: y, width: textWidth, style: .init(size: 12, bold: true), language: language) + 1 * mm
                let heads = table.columns.map(\.title)
                line(heads, bold: true)
                pdf.rule(x: margin * mm, y: y - 0.6 * mm, width: textWidth)
                if table.rows.isEmpty {
                    line([t(.reportNothingCounted)] + Array(repeating: "", count: table.columns.count - 1), bold: false)
                }
                for row in table.rows {
                    if y + rowHeight * mm > (height - bottom) * mm { newPage(); line(heads, bold: true) }
                    line(zip(row, table.columns).map { text($0, $1.kind, currency: report.currency, t: t) }, bold: false)
                }
                if let totals = table.totals {
                    pdf.rule(x: margin * mm, y: y, width: textWidth)
                    y += 0.8 * mm
                    line([t(.reportTotal)] + zip(totals, table.columns).dropFirst().map { $0.number == nil ? "" : text($0, $1.kind, currency: report.currency, t: t) },
                         bold: true)
                }
                if let note = table.note {
                    room(8 * mm)
                    y += pdf.text(note, x: margin * mm, y: y + 1 * mm, width: textWidth, style: .init(size: 8, grey: true), language: language) + 1 * mm
                }
                y += 5 * mm
            }
        }
    }
}
