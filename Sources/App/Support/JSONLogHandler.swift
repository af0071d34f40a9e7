import Foundation
import Logging
import NIOConcurrencyHelpers

/// Logs as JSON, one object per line, for a district's log collector (`SHELFMARK_LOG_FORMAT=json`):
/// `{"time":"2026-11-28T09:30:00.123Z","level":"error","message":"…","label":"codes.vapor.application",
/// "source":"App","metadata":{"request-id":"…"}}`. Keys are fixed; metadata values are strings,
/// lists or objects as `Logger.Metadata` holds them.
public struct JSONLogHandler: LogHandler {
    public var metadata: Logger.Metadata = [:]
    public var logLevel: Logger.Level
    public var metadataProvider: Logger.MetadataProvider?
    private let label: String
    private let write: @Sendable (String) -> Void

    public init(label: String, level: Logger.Level, metadataProvider: Logger.MetadataProvider? = nil,
                write: @escaping @Sendable (String) -> Void = JSONLogHandler.standardError) {
        (self.label, self.logLevel, self.metadataProvider, self.write) = (label, level, metadataProvider, write)
    }

    public subscript(metadataKey key: String) -> Logger.Metadata.Value? {
        get { metadata[key] }
        set { metadata[key] = newValue }
    }

    public func log(level: Logger.Level, message: Logger.Message, metadata explicit: Logger.Metadata?, source: String,
                    file: String, function: String, line: UInt) {
        var all = metadata
        if let provided = metadataProvider?.get() { all.merge(provided) { $1 } }
        if let explicit { all.merge(explicit) { $1 } }
        var object: [String: Any] = [
            "time": Date().formatted(.iso8601.year().month().day().time(includingFractionalSeconds: true).timeZone(separator: .omitted)),
            "level": level.rawValue, "message": message.description, "label": label, "source": source,
        ]
        if !all.isEmpty { object["metadata"] = all.mapValues(Self.plain) }
        guard let data = try? JSONSerialization.data(withJSONObject: object, options: [.sortedKeys, .withoutEscapingSlashes]) else { return }
        write(String(decoding: data, as: UTF8.self) + "\n")
    }

    private static func plain(_ value: Logger.Metadata.Value) -> Any {
        switch value {
        case .string(let s): s
        case .stringConvertible(let c): c.description
        case .array(let a): a.map(plain)
        case .dictionary(let d): d.mapValues(plain)
        }
    }

    private static let lock = NIOLock()

    /// One line to standard error, whole (lines of two threads never interleave).
    public static let standardError: @Sendable (String) -> Void = { line in
        lock.withLock { FileHandle.standardError.write(Data(line.utf8)) }
    }

    /// Whether the environment asks for JSON logs; anything but `json` or `text` (the default) is refused.
    public static func wanted(_ env: [String: String] = ProcessInfo.processInfo.environment) throws -> Bool {
        switch (env["SHELFMARK_LOG_FORMAT"] ?? "").lowercased() {
        case "", "text": return false
        case "json": return true
        case let other: throw LogFormatError(value: other)
        }
    }

    public struct LogFormatError: Error, CustomStringConvertible {
        let value: String
        public var description: String { "SHELFMARK_LOG_FORMAT must be text or json (got “\(value.prefix(20))”)." }
    }
}
