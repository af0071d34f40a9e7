import Foundation

/// The year-end rollover's first guess at where each class goes: its year number one up ("3A" → "4A",
/// "Year 6" → "Year 7", "Klasse 4b" → "Klasse 5b"); a class whose next year is past the school's
/// highest leaves (nil); a class without a number stays as it is (not in the answer). The librarian
/// confirms or changes every line before anything moves.
public enum ClassPromotion {
    /// The first run of digits in `name`, where it is, and its value.
    static func yearNumber(_ name: String) -> (range: Range<String.Index>, value: Int)? {
        guard let start = name.firstIndex(where: \.isYearDigit) else { return nil }
        let end = name[start...].firstIndex(where: { !$0.isYearDigit }) ?? name.endIndex
        guard let value = Int(name[start..<end]), name.distance(from: start, to: end) <= 3 else { return nil }
        return (start..<end, value)
    }

    /// For each class with a year number: the class it becomes, or nil for leavers.
    public static func suggest(_ classes: [String]) -> [String: String?] {
        let numbered = classes.compactMap { name in yearNumber(name).map { (name, $0) } }
        guard let top = numbered.map(\.1.value).max() else { return [:] }
        var out: [String: String?] = [:]
        for (name, number) in numbered {
            if number.value >= top {
                out[name] = .some(nil)
            } else {
                var next = name
                next.replaceSubrange(number.range, with: String(number.value + 1))
                out[name] = .some(next)
            }
        }
        return out
    }
}

extension Character {
    /// 0–9 (a class's year number is written in ASCII digits).
    fileprivate var isYearDigit: Bool { isASCII && isNumber }
}
