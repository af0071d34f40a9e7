import Foundation

/// An iCalendar feed (RFC 5545) of all-day events: a member's due dates. Lines end in
/// CRLF and are folded at 75 octets without splitting a UTF-8 character; text is escaped.
public struct ICalendar: Sendable, Equatable {
    public struct Event: Sendable, Equatable {
        /// Stable for the event's life (a loan's id): a client updates the event instead of adding one.
        public var uid: String
        /// The day, as year, month and day (an all-day event on it).
        public var year: Int, month: Int, day: Int
        public var summary: String
        public var description: String?
        /// Raised on each change (a renewal moves the date).
        public var sequence: Int

        public init(uid: String, year: Int, month: Int, day: Int, summary: String, description: String? = nil, sequence: Int = 0) {
            (self.uid, self.year, self.month, self.day, self.summary, self.description, self.sequence) = (uid, year, month, day, summary, description, sequence)
        }
    }

    public var name: String
    public var events: [Event]
    /// When the feed was made (each event's DTSTAMP).
    public var stamp: Date
    /// How often a client should fetch it again (REFRESH-INTERVAL, RFC 7986).
    public var refreshHours: Int

    public init(name: String, events: [Event], stamp: Date, refreshHours: Int = 6) {
        (self.name, self.events, self.stamp, self.refreshHours) = (name, events, stamp, refreshHours)
    }

    public func render() -> String {
        var lines = ["BEGIN:VCALENDAR", "VERSION:2.0", "PRODID:-//Shelfmark//Library loans//EN", "CALSCALE:GREGORIAN", "METHOD:PUBLISH",
                     "X-WR-CALNAME:" + Self.escape(name), "NAME:" + Self.escape(name),
                     "REFRESH-INTERVAL;VALUE=DURATION:PT\(refreshHours)H", "X-PUBLISHED-TTL:PT\(refreshHours)H"]
        let stampText = Self.utc(stamp)
        for event in events {
            let next = Self.nextDay(year: event.year, month: event.month, day: event.day)
            lines += ["BEGIN:VEVENT", "UID:" + Self.escape(event.uid), "DTSTAMP:" + stampText,
                      "DTSTART;VALUE=DATE:" + Self.date(event.year, event.month, event.day),
                      "DTEND;VALUE=DATE:" + Self.date(next.year, next.month, next.day),
                      "SEQUENCE:\(event.sequence)", "SUMMARY:" + Self.escape(event.summary), "TRANSP:TRANSPARENT"]
            if let description = event.description { lines.append("DESCRIPTION:" + Self.escape(description)) }
            lines.append("END:VEVENT")
        }
        lines.append("END:VCALENDAR")
        return lines.map(Self.fold).joined(separator: "\r\n") + "\r\n"
    }

    /// TEXT values: backslash, semicolon and comma escaped, line breaks as `\n`, other control characters dropped.
    public static func escape(_ text: String) -> String {
        var out = ""
        for scalar in text.unicodeScalars {
            switch scalar {
            case "\\": out += "\\\\"
            case ";": out += "\\;"
            case ",": out += "\\,"
            case "\n": out += "\\n"
            case "\r": continue
            default:
                if scalar.value < 0x20 || scalar.value == 0x7F { continue }
                out.unicodeScalars.append(scalar)
            }
        }
        return out
    }

    /// A content line folded at 75 octets: each continuation starts with one space, and no UTF-8
    /// character is split between lines.
    public static func fold(_ line: String) -> String {
        var result = "", octets = 0, limit = 75
        for character in line {
            let size = String(character).utf8.count
            if octets + size > limit {
                result += "\r\n "
                octets = 1
                limit = 75
            }
            result.append(character)
            octets += size
        }
        return result
    }

    static func date(_ year: Int, _ month: Int, _ day: Int) -> String {
        String(format: "%04d%02d%02d", year, month, day)
    }

    static func nextDay(year: Int, month: Int, day: Int) -> (year: Int, month: Int, day: Int) {
        var calendar = Calendar(identifier: .gregorian)
        calendar.timeZone = TimeZone(identifier: "UTC")!
        let date = calendar.date(from: DateComponents(year: year, month: month, day: day))!
        let next = calendar.dateComponents([.year, .month, .day], from: calendar.date(byAdding: .day, value: 1, to: date)!)
        return (next.year!, next.month!, next.day!)
    }

    static func utc(_ date: Date) -> String {
        var calendar = Calendar(identifier: .gregorian)
        calendar.timeZone = TimeZone(identifier: "UTC")!
        let c = calendar.dateComponents([.year, .month, .day, .hour, .minute, .second], from: date)
        return String(format: "%04d%02d%02dT%02d%02d%02dZ", c.year!, c.month!, c.day!, c.hour!, c.minute!, c.second!)
    }
}
