/// Hyphenation by the International ISBN Agency's ranges (`ISBNRanges`, generated from RangeMessage.xml):
/// prefix, registration group, registrant, publication, check digit.
extension ISBN {
    /// "978-0-306-40615-7"; the plain 13 digits when the ranges do not cover the number.
    public var hyphenated: String {
        guard let parts = parts else { return isbn13 }
        return [parts.prefix, parts.group, parts.registrant, parts.publication, parts.check].joined(separator: "-")
    }

    /// "0-306-40615-2", for the 978 prefix.
    public var hyphenatedISBN10: String? {
        guard let isbn10, let parts, parts.prefix == "978" else { return nil }
        return [parts.group, parts.registrant, parts.publication, String(isbn10.last!)].joined(separator: "-")
    }

    public struct Parts: Equatable, Sendable {
        public var prefix, group, registrant, publication, check: String
    }

    /// The number's elements, or nil when its group or registrant range is not assigned.
    public var parts: Parts? {
        let digits = Array(isbn13)
        let prefix = String(digits[0..<3])
        let body = Array(digits[3..<12])  // group + registrant + publication: 9 digits
        guard let groupLength = RangeTable.length(for: prefix, next: body) else { return nil }
        let group = String(body[0..<groupLength])
        let afterGroup = Array(body[groupLength...])
        guard let registrantLength = RangeTable.length(for: "\(prefix)-\(group)", next: afterGroup),
              registrantLength < afterGroup.count else { return nil }
        return Parts(prefix: prefix, group: group, registrant: String(afterGroup[0..<registrantLength]),
                     publication: String(afterGroup[registrantLength...]), check: String(digits[12]))
    }
}

/// The generated range strings, parsed once on first use.
enum RangeTable {
    struct Rule { let low: Int, high: Int, length: Int }

    static let prefixes: [String: [Rule]] = ISBNRanges.prefixes.mapValues(parse)
    static let groups: [String: [Rule]] = ISBNRanges.groups.mapValues(parse)

    static func parse(_ text: String) -> [Rule] {
        text.split(separator: ",").compactMap { item in
            let halves = item.split(separator: ":")
            let bounds = halves.first?.split(separator: "-") ?? []
            guard halves.count == 2, bounds.count == 2, let low = Int(bounds[0]), let high = Int(bounds[1]),
                  let length = Int(halves[1]) else { return nil }
            return Rule(low: low, high: high, length: length)
        }
    }

    /// The element length for the digits following `key`, read as a 7-digit number (padded with zeros).
    static func length(for key: String, next digits: [Character]) -> Int? {
        let rules = key.count == 3 ? prefixes[key] : groups[key]
        guard let rules else { return nil }
        let seven = String((digits.prefix(7) + Array(repeating: "0", count: max(0, 7 - digits.count))).prefix(7))
        guard let value = Int(seven) else { return nil }
        return rules.first { $0.low <= value && value <= $0.high }?.length
    }
}
