import Foundation

/// A card number or a copy's barcode as a person, a scanner or a file gives it: what is printed on a
/// card or a label, and what a wedge scanner types before its Enter. The one check every door uses (the
/// API, the forms, class lists, restores): surrounding spaces go, but a line break, a tab, a control or
/// an invisible format character inside is refused, never quietly dropped (it would make two values
/// that look alike, or break a header, a CSV line or a label).
public enum Identifier {
    public static let maxLength = 64

    public enum Problem: Error, Equatable, Sendable {
        case empty
        case tooLong
        /// A space inside (cards: a scanner reads one code, so a space is two).
        case spaces
        /// A line break, tab, control or invisible format character inside.
        case invisible
    }

    /// The value, trimmed; `spaces`: whether plain spaces may stand inside (barcodes typed by hand).
    public static func parse(_ raw: String, spaces: Bool) throws(Problem) -> String {
        let text = raw.trimmingCharacters(in: .whitespacesAndNewlines)
        guard !text.isEmpty else { throw .empty }
        for scalar in text.unicodeScalars {
            switch scalar.properties.generalCategory {
            case .control, .format, .lineSeparator, .paragraphSeparator, .unassigned, .surrogate, .privateUse: throw .invisible
            case .spaceSeparator where !(spaces && scalar == " "): throw .spaces
            default: continue
            }
        }
        guard text.count <= maxLength else { throw .tooLong }
        return text.precomposedStringWithCanonicalMapping
    }
}
