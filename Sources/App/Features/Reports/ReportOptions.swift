import Foundation
import ShelfmarkCore
import Vapor

/// What a report is asked for: its period and grouping, its filters, and the weeding list's ages.
struct ReportOptions: Sendable, Equatable {
    var preset = ReportPeriod.Preset.schoolYear
    var from: String?
    var to: String?
    var grouping = ReportPeriod.Grouping.month
    var grade: String?
    var category: UUID?
    var shelf: String?
    var level: String?
    var collection: UUID?
    /// Weeding: copies not lent for this many years (1–20, default 3) …
    var notLentYears = 3
    /// … and published (or, when the year is unknown, acquired) at least this many years ago (0–100, default 10).
    var olderThanYears = 10

    static let notLentRange = 1...20
    static let olderRange = 0...100

    /// The options as query pairs (the links to the CSV and the PDF carry them).
    var query: [(String, String)] {
        var pairs: [(String, String)] = [("period", preset.rawValue), ("group", grouping.rawValue)]
        if preset == .custom {
            if let from { pairs.append(("from", from)) }
            if let to { pairs.append(("to", to)) }
        }
        if let grade { pairs.append(("class", grade)) }
        if let category { pairs.append(("category", category.uuidString)) }
        if let shelf { pairs.append(("shelf", shelf)) }
        if let level { pairs.append(("level", level)) }
        if let collection { pairs.append(("collection", collection.uuidString)) }
        if notLentYears != 3 { pairs.append(("notLentYears", String(notLentYears))) }
        if olderThanYears != 10 { pairs.append(("olderThanYears", String(olderThanYears))) }
        return pairs
    }

    /// Read from a request's query; a value that is not one the report takes is refused by its field.
    static func read(_ req: Request) throws -> ReportOptions {
        try read { req.query[String.self, at: $0] }
    }

    /// Read from a query string as `queryString` writes it (a saved report's): `name=value` pairs
    /// joined by `&`, percent-encoded, `+` a space; the first of a name counts.
    static func read(query: String) throws -> ReportOptions {
        var values: [String: String] = [:]
        for piece in query.split(separator: "&") {
            let parts = piece.split(separator: "=", maxSplits: 1, omittingEmptySubsequences: false).map {
                String($0).replacingOccurrences(of: "+", with: " ").removingPercentEncoding
            }
            guard let name = parts[0], let value = parts.count > 1 ? parts[1] : "" else { throw ReportError.notOptions }
            if values[name] == nil { values[name] = value }
        }
        return try read { values[$0] }
    }

    /// The options as a query string (`period=last-month&class=4A`), as `read(query:)` reads it.
    var queryString: String {
        let unreserved = CharacterSet(charactersIn: "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789-._~")
        return query.map { pair in
            [pair.0, pair.1].map { $0.addingPercentEncoding(withAllowedCharacters: unreserved) ?? "" }.joined(separator: "=")
        }.joined(separator: "&")
    }

    /// Read from named values; a value that is not one the report takes is refused by its field.
    static func read(_ value: (String) -> String?) throws -> ReportOptions {
        var o = ReportOptions()
        func text(_ name: String, max: Int) throws -> String? {
            guard let raw = value(name)?.cleanedInput, !raw.isEmpty else { return nil }
            guard raw.count <= max else { throw InputProblem.tooLong(field: name, max: max) }
            return raw
        }
        func id(_ name: String) throws -> UUID? {
            guard let raw = value(name), !raw.isEmpty else { return nil }
            guard let id = UUID(uuidString: raw) else { throw RequestError.notAnID(field: name, got: raw) }
            return id
        }
        func number(_ name: String, default fallback: Int, range: ClosedRange<Int>) throws -> Int {
            guard let raw = value(name) else { return fallback }
            guard let n = Int(raw), range.contains(n) else { throw RequestError.wholeNumber(field: name, range: range, got: raw) }
            return n
        }
        if let raw = try text("period", max: 40) {
            guard let preset = ReportPeriod.Preset(rawValue: raw) else {
                throw RequestError.oneOf(field: "period", allowed: ReportPeriod.Preset.allCases.map(\.rawValue), got: raw)
            }
            o.preset = preset
        }
        if let raw = try text("group", max: 40) {
            guard let grouping = ReportPeriod.Grouping(rawValue: raw) else {
                throw RequestError.oneOf(field: "group", allowed: ReportPeriod.Grouping.allCases.map(\.rawValue), got: raw)
            }
            o.grouping = grouping
        }
        (o.from, o.to) = (try text("from", max: 10), try text("to", max: 10))
        if o.from != nil || o.to != nil { o.preset = .custom }
        o.grade = try text("class", max: 100)
        o.category = try id("category")
        o.shelf = try text("shelf", max: 200)
        o.level = try text("level", max: 100)
        o.collection = try id("collection")
        o.notLentYears = try number("notLentYears", default: 3, range: notLentRange)
        o.olderThanYears = try number("olderThanYears", default: 10, range: olderRange)
        return o
    }

    /// The period on `now` in the library's calendar; a custom range needs both days, in order.
    func period(now: Date, calendar: Calendar) throws -> ReportPeriod {
        var from: DateComponents?, to: DateComponents?
        if preset == .custom {
            // A last day alone counts from the start of its school year; a first day alone up to today.
            var last = now
            if let b = self.to {
                guard let day = LabelSheets.day(b, timeZone: calendar.timeZone) else { throw InputProblem.notADate(field: "to", value: String(b.prefix(40))) }
                last = day
            }
            var first: Date
            if let a = self.from {
                guard let day = LabelSheets.day(a, timeZone: calendar.timeZone) else { throw InputProblem.notADate(field: "from", value: String(a.prefix(40))) }
                first = day
            } else {
                first = try ReportPeriod.resolve(.schoolYear, now: last, calendar: calendar).start
            }
            from = calendar.dateComponents([.year, .month, .day], from: first)
            to = calendar.dateComponents([.year, .month, .day], from: last)
        }
        do {
            return try ReportPeriod.resolve(preset, from: from, to: to, grouping: grouping, now: now, calendar: calendar)
        } catch let problem as ReportPeriod.Problem {
            throw ReportError.period(problem)
        }
    }
}
