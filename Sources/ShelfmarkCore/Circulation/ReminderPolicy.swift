import Foundation

/// When a library reminds its members. Off by default. A daily run at `hour` (the library's time
/// zone) sends a due-soon reminder `beforeDays` before the due day and up to three overdue reminders
/// `overdueDays` after it. Each loan moves through stages (`Stage`) and is reminded once per stage, so
/// a run made twice sends nothing twice and a run missed for days sends the stage reached, once.
public struct ReminderPolicy: Equatable, Sendable {
    public static let hourRange = 0...23
    public static let beforeRange = 1...14
    public static let overdueRange = 1...365

    /// How far a loan has gone: nothing sent, the due-soon reminder, the first, second, third overdue one.
    public enum Stage: Int, Sendable, Comparable, CaseIterable, Codable {
        case none = 0, dueSoon, overdue1, overdue2, overdue3

        public static func < (a: Stage, b: Stage) -> Bool { a.rawValue < b.rawValue }
        /// The template a message at this stage is written from.
        public var kind: String {
            switch self {
            case .none: ""
            case .dueSoon: "due_soon"
            case .overdue1: "overdue_1"
            case .overdue2: "overdue_2"
            case .overdue3: "overdue_3"
            }
        }
    }

    public enum Invalid: Error, Equatable, Sendable {
        /// Two overdue reminders on the same day.
        case overdueNotIncreasing(field: String)
    }

    public var on: Bool
    public var hour: Int
    public var beforeDays: Int?
    /// Up to three, strictly increasing.
    public var overdueDays: [Int]

    public init(on: Bool = false, hour: Int = 8, beforeDays: Int? = 2, overdueDays: [Int] = [1, 7, 14]) {
        self.on = on
        self.hour = hour
        self.beforeDays = beforeDays
        self.overdueDays = overdueDays
    }

    /// The overdue days as they are kept: in order (first, second, third), absent ones left out; two
    /// on the same day are refused.
    public static func checkOverdue(_ days: [Int?]) throws(Invalid) -> [Int] {
        var out: [Int] = []
        for (i, day) in days.enumerated() {
            guard let day else { continue }
            if out.contains(day) { throw .overdueNotIncreasing(field: "overdueDays\(i + 1)") }
            out.append(day)
        }
        return out.sorted()
    }

    /// The stage a loan due at `dueAt` has reached at `now`, counting whole days in `calendar`'s zone.
    public func stage(dueAt: Date, now: Date, calendar: Calendar) -> Stage {
        let today = calendar.startOfDay(for: now), dueDay = calendar.startOfDay(for: dueAt)
        let days = calendar.dateComponents([.day], from: dueDay, to: today).day ?? 0
        if days > 0, dueAt < now {
            for (index, threshold) in overdueDays.enumerated().reversed() where days >= threshold {
                return Stage(rawValue: Stage.overdue1.rawValue + index) ?? .overdue3
            }
        }
        if let beforeDays, -days <= beforeDays { return .dueSoon }
        return .none
    }
}
