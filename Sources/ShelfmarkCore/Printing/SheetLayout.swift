import Foundation

/// A sheet of labels or cards: the paper, one label's size, how many across and down, and where
/// the first one starts. Every measure is in millimetres from the sheet's top left corner, as the
/// label makers print them on their packets.
public struct SheetLayout: Sendable, Equatable {
    public enum Paper: String, Sendable, CaseIterable {
        case a4, letter

        public var width: Double { self == .a4 ? 210 : 215.9 }
        public var height: Double { self == .a4 ? 297 : 279.4 }
    }

    /// Where one label is: its page (from 0) and its top left corner (mm).
    public struct Place: Sendable, Equatable {
        public var page: Int
        public var x: Double
        public var y: Double
    }

    public var paper: Paper
    public var width: Double
    public var height: Double
    public var columns: Int
    public var rows: Int
    /// The first label's top left corner.
    public var left: Double
    public var top: Double
    /// From one label's left (top) edge to the next one's.
    public var pitchX: Double
    public var pitchY: Double

    public init(paper: Paper, width: Double, height: Double, columns: Int, rows: Int,
                left: Double, top: Double, pitchX: Double, pitchY: Double) {
        (self.paper, self.width, self.height, self.columns, self.rows) = (paper, width, height, columns, rows)
        (self.left, self.top, self.pitchX, self.pitchY) = (left, top, pitchX, pitchY)
    }

    public var perSheet: Int { columns * rows }

    /// The printer offset a volunteer may set to calibrate (mm, each way).
    public static let maxOffset = 10.0

    /// Where the `index`-th label (from 0) goes when the first sheet is already used up to label
    /// `startAt - 1` (labels count across, then down, from 1) and the printer puts everything
    /// `offsetX`, `offsetY` millimetres off.
    public func place(_ index: Int, startAt: Int = 1, offsetX: Double = 0, offsetY: Double = 0) -> Place {
        let n = index + min(max(startAt, 1), perSheet) - 1
        let slot = n % perSheet
        return Place(page: n / perSheet,
                     x: left + Double(slot % columns) * pitchX + offsetX,
                     y: top + Double(slot / columns) * pitchY + offsetY)
    }

    /// The sheets `count` labels take from label `startAt` on.
    public func pages(count: Int, startAt: Int = 1) -> Int {
        guard count > 0 else { return 0 }
        return place(count - 1, startAt: startAt).page + 1
    }

    /// Labels centred on the paper, without gaps between them (cards cut apart by hand).
    static func centred(_ paper: Paper, width: Double, height: Double, columns: Int, rows: Int) -> SheetLayout {
        SheetLayout(paper: paper, width: width, height: height, columns: columns, rows: rows,
                    left: (paper.width - Double(columns) * width) / 2, top: (paper.height - Double(rows) * height) / 2,
                    pitchX: width, pitchY: height)
    }
}

/// The label sheets Shelfmark prints on, with the measures their makers publish.
public enum LabelLayout: String, Sendable, CaseIterable {
    /// Avery 5160 and its equivalents: US Letter, 3 × 10, 2⅝″ × 1″.
    case avery5160 = "avery-5160"
    /// Avery L7160: A4, 3 × 7, 63.5 × 38.1 mm.
    case averyL7160 = "avery-l7160"
    /// A4, 3 × 8, 70 × 37 mm, edge to edge (Herma 4453, Avery 3475 …).
    case a4x24 = "a4-70x37"
    /// Spine labels: A4, 3 × 17, 70 × 16.9 mm.
    case spine = "spine-70x16.9"

    public var sheet: SheetLayout {
        switch self {
        case .avery5160:
            let inch = 25.4
            return SheetLayout(paper: .letter, width: 2.625 * inch, height: inch, columns: 3, rows: 10,
                               left: 0.1875 * inch, top: 0.5 * inch, pitchX: 2.75 * inch, pitchY: inch)
        case .averyL7160:
            return SheetLayout(paper: .a4, width: 63.5, height: 38.1, columns: 3, rows: 7,
                               left: 7.21, top: 15.15, pitchX: 66.04, pitchY: 38.1)
        case .a4x24:
            return .centred(.a4, width: 70, height: 37, columns: 3, rows: 8)
        case .spine:
            return .centred(.a4, width: 70, height: 16.9, columns: 3, rows: 17)
        }
    }

    /// A spine label holds the shelf mark in large type, not a barcode.
    public var isSpine: Bool { self == .spine }
}

/// Member cards: ID-1, the size of a bank card (85.6 × 54 mm), ten to a sheet, to cut apart.
public enum CardLayout {
    public static let width = 85.6
    public static let height = 54.0

    public static func sheet(_ paper: SheetLayout.Paper) -> SheetLayout {
        .centred(paper, width: width, height: height, columns: 2, rows: 5)
    }
}

/// The shelf mark on a spine label, as school libraries write it: the shelf (or the section) and the
/// first three letters of the first author's family name in capitals ("B3 / ROW").
public enum SpineMark {
    public static func authorLetters(_ authors: [String]) -> String? {
        guard let first = authors.first?.trimmingCharacters(in: .whitespaces), !first.isEmpty else { return nil }
        // Chinese, Japanese and Korean names are written family name first, often in one character.
        if let scalar = first.unicodeScalars.first, scalar.value >= 0x2E80 { return String(first.prefix(1)) }
        // "Rowling, J. K." names the family first; "J. K. Rowling" last.
        let family = first.contains(",") ? String(first.prefix { $0 != "," })
            : (first.split(separator: " ").last.map(String.init) ?? first)
        let letters = family.filter { $0.isLetter }
        guard !letters.isEmpty else { return nil }
        return String(letters.prefix(3)).uppercased()
    }
}
