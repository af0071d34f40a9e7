import Foundation
import ShelfmarkCore

/// Looks up the interface text for one language. `t(.signIn)`, `t(.daysOverdue, 3)`,
/// `t.format(.copiesOf, "2", "3")`.
struct Strings: Sendable {
    let lang: Lang
    /// Dates are shown in this zone: the library's on its pages (its loans are due at the end of a
    /// day there), else the server's.
    var timeZone: TimeZone = .current

    init(lang: Lang, timeZone: TimeZone = .current) {
        self.lang = lang
        self.timeZone = timeZone
    }

    func callAsFunction(_ key: L) -> String { lang.translation.texts[key]! }

    /// A counted phrase: the form the language uses for `n`, with `{count}` replaced by the number.
    func callAsFunction(_ key: P, _ n: Int) -> String {
        let forms = lang.translation.counted[key]!
        let form = forms[min(lang.pluralForm(n), forms.count - 1)]
        return form.replacingOccurrences(of: "{count}", with: number(n))
    }

    /// The text with its named placeholders filled by the arguments, in the order the placeholders
    /// first appear in the English text (`checkedOut`: title, member, date).
    func format(_ key: L, _ args: String...) -> String {
        guard let pieces = lang.translation.templates[key] else { return self(key) }
        var text = ""
        for piece in pieces {
            switch piece {
            case .text(let s): text += s
            case .argument(let i): text += i < args.count ? args[i] : ""
            }
        }
        return text
    }

    /// A whole number as the language writes it. Below a thousand every one of the four writes the
    /// plain digits, so those skip the formatter (a list page formats hundreds of small counts).
    /// An amount in a currency's minor unit, as this language writes money: "2,50 €", "€2.50", "€2.50".
    func money(_ cents: Int, _ currency: String) -> String {
        (Decimal(cents) / 100).formatted(.currency(code: currency).locale(lang.locale))
    }

    /// An amount for a form field, plain, with this language's decimal mark ("2,50" in German); what
    /// `MoneyText.cents` reads back. Text that is not a plain amount (as typed and refused) is left as it is.
    func moneyField(_ text: String) -> String {
        let mark = lang.locale.decimalSeparator ?? "."
        guard mark == ",", MoneyText.cents(text) != nil else { return text }
        return text.replacingOccurrences(of: ".", with: ",")
    }

    func number(_ n: Int) -> String { (-999...999).contains(n) ? String(n) : n.formatted(.number.locale(lang.locale)) }

    /// A size on disk in this language's digits: "512 KB", "1,2 GB" (powers of 1,000, one decimal from a megabyte on).
    func bytes(_ n: Int64) -> String {
        let units = ["B", "KB", "MB", "GB", "TB"]
        var value = Double(max(0, n)), unit = 0
        while value >= 1000 && unit < units.count - 1 { value /= 1000; unit += 1 }
        let digits = unit >= 2 && value < 100 ? 1 : 0
        return value.formatted(.number.precision(.fractionLength(digits)).locale(lang.locale)) + "\u{A0}" + units[unit]
    }

    /// A date with its time of day, in the server's time zone.
    func dateTime(_ d: Date) -> String {
        var style = Date.FormatStyle(date: .abbreviated, time: .shortened).locale(lang.locale)
        style.timeZone = timeZone
        return d.formatted(style)
    }

    /// A time of day ("08:00", "8:00 AM"), in the time zone of the dates shown.
    func time(_ d: Date) -> String {
        var style = Date.FormatStyle(date: .omitted, time: .shortened).locale(lang.locale)
        style.timeZone = timeZone
        return d.formatted(style)
    }

    /// A month and its year ("Nov 2026", "Nov. 2026", "2026年11月"), in the time zone of the dates shown.
    func monthYear(_ d: Date) -> String {
        var style = Date.FormatStyle().month(.abbreviated).year().locale(lang.locale)
        style.timeZone = timeZone
        return d.formatted(style)
    }

    func date(_ d: Date) -> String {
        // A list shows the same few days again and again (due dates): each day is formatted once.
        let day = Int((d.timeIntervalSince1970 + Double(timeZone.secondsFromGMT(for: d))) / 86_400)
        let key = DateText.Key(lang: lang.rawValue, zone: timeZone.identifier, day: day)
        if let text = DateText.cache.get(key) { return text }
        var style = Date.FormatStyle(date: .abbreviated, time: .omitted).locale(lang.locale)
        style.timeZone = timeZone
        let text = d.formatted(style)
        DateText.cache.set(key, text)
        return text
    }
}

/// Formatted days, shared by all requests (a bounded map behind a lock).
enum DateText {
    struct Key: Hashable { var lang: String; var zone: String; var day: Int }

    final class Cache: @unchecked Sendable {
        private let lock = NSLock()
        private var texts: [Key: String] = [:]

        func get(_ key: Key) -> String? { lock.withLock { texts[key] } }

        func set(_ key: Key, _ text: String) {
            lock.withLock {
                if texts.count >= 20_000 { texts.removeAll(keepingCapacity: true) }
                texts[key] = text
            }
        }
    }

    static let cache = Cache()
}
