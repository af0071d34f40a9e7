import Foundation

/// A book's reading level as schools write it, read into its scheme and a number that orders and
/// filters ("AR 3.0–4.5"): Accelerated Reader book levels (with quiz points), Lexile measures,
/// guided reading letters (Fountas & Pinnell A–Z), Antolin school years — and anything else kept as
/// free text without a number.
public struct ReadingLevel: Sendable, Equatable {
    public enum Scheme: String, Sendable, CaseIterable, Codable {
        case ar, lexile, guided, antolin, other

        /// The numbers a range of this scheme may span (what a client may ask for).
        public var bounds: ClosedRange<Double> {
            switch self {
            case .ar: 0...20
            case .lexile: -2000...2500
            case .guided: 1...26
            case .antolin: 1...13
            case .other: 0...0
            }
        }
    }

    public var scheme: Scheme
    /// The level as a number: AR book level, Lexile measure (BR150L is −150), guided reading letter
    /// (A = 1 … Z = 26), Antolin school year; nil for free text.
    public var value: Double?
    /// Accelerated Reader quiz points.
    public var points: Double?

    public init(scheme: Scheme, value: Double?, points: Double? = nil) {
        (self.scheme, self.value, self.points) = (scheme, value, points)
    }

    /// Reads a level as catalogues, publishers and teachers write it: "AR 3.4", "ATOS 3.4 (2.0 pts)",
    /// "BL 3.4 / Pts 2", "3.4 AR", "Lexile 820L", "820L", "BR150L", "HL620L", "GR M", "Guided reading M",
    /// "F&P M", "Antolin 3", "Antolin ab Klasse 3", "ab 3. Klasse". Anything else is free text.
    public static func parse(_ raw: String) -> ReadingLevel? {
        let text = raw.trimmingCharacters(in: .whitespacesAndNewlines)
        guard !text.isEmpty else { return nil }
        let lower = text.lowercased()
        func number(_ pattern: String) -> Double? {
            guard let range = lower.range(of: pattern, options: .regularExpression) else { return nil }
            let digits = lower[range].replacingOccurrences(of: ",", with: ".")
                .components(separatedBy: CharacterSet(charactersIn: "0123456789.").inverted).joined()
            return Double(digits.trimmingCharacters(in: CharacterSet(charactersIn: ".")))
        }
        // Lexile: a number with L after it (and an optional code before: BR beginning reader, HL, AD, GN, NC, IG, NP).
        if let range = lower.range(of: #"(^|[^a-z])(br|hl|ad|gn|nc|ig|np)?\s?-?[0-9]{1,4}\s?l\b"#, options: .regularExpression) {
            let match = String(lower[range])
            let digits = match.filter(\.isNumber)
            if let n = Double(digits) {
                return ReadingLevel(scheme: .lexile, value: match.contains("br") || match.contains("-") ? -n : n)
            }
        }
        if lower.hasPrefix("lexile"), let n = number(#"-?[0-9]{1,4}"#) {
            return ReadingLevel(scheme: .lexile, value: lower.contains("br") || lower.contains("-") ? -n : n)
        }
        // Accelerated Reader: "AR", "ATOS" or "BL" with a book level; points after "pts", "points" or "AR Pts".
        if lower.range(of: #"(^|[^a-z])(ar|atos|bl)([^a-z]|$)"#, options: .regularExpression) != nil,
           let level = number(#"(ar|atos|bl)[^0-9]{0,6}[0-9]{1,2}([.,][0-9])?"#) ?? number(#"^[0-9]{1,2}([.,][0-9])?\s*(ar|atos)"#) {
            let points = number(#"(pts|points|punkte)[^0-9]{0,4}[0-9]{1,3}([.,][0-9])?"#) ?? number(#"[0-9]{1,3}([.,][0-9])?\s*(pts|points|punkte)"#)
            guard ReadingLevel.Scheme.ar.bounds.contains(level) else { return ReadingLevel(scheme: .other, value: nil) }
            return ReadingLevel(scheme: .ar, value: level, points: points)
        }
        // Guided reading: a letter A–Z after "GR", "guided reading", "F&P", "Fountas" or "level".
        if let range = lower.range(of: #"^(gr|guided reading|f\s?&\s?p|fountas( and| &)? pinnell|level)[\s:.-]*[a-z]$"#, options: .regularExpression),
           let letter = lower[range].last, let ascii = letter.asciiValue {
            return ReadingLevel(scheme: .guided, value: Double(ascii - 96))
        }
        // Antolin: the school year ("Antolin 3", "ab Klasse 3", "ab 3. Klasse", "Klasse 3").
        if lower.contains("antolin") || lower.contains("klasse") {
            if let year = number(#"[0-9]{1,2}"#), ReadingLevel.Scheme.antolin.bounds.contains(year) {
                return ReadingLevel(scheme: .antolin, value: year)
            }
        }
        return ReadingLevel(scheme: .other, value: nil)
    }

    /// The level written the way this scheme writes it: "AR 3.4 · 2 pts", "Lexile 820L", "BR150L",
    /// "Guided reading M", "Antolin 3"; nil for free text (shown as typed).
    public var canonical: String? {
        guard let value else { return nil }
        func decimal(_ v: Double) -> String { v == v.rounded() ? String(Int(v)) : String(format: "%.1f", v) }
        switch scheme {
        case .ar: return "AR " + String(format: "%.1f", value) + (points.map { " · " + decimal($0) + " pts" } ?? "")
        case .lexile: return value < 0 ? "BR\(Int(-value))L" : "Lexile \(Int(value))L"
        case .guided:
            guard let scalar = UnicodeScalar(64 + Int(value)) else { return nil }
            return "Guided reading " + String(Character(scalar))
        case .antolin: return "Antolin " + decimal(value)
        case .other: return nil
        }
    }
}
