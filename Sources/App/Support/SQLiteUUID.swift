import Foundation
import NIOCore
import SQLiteNIO

/// On SQLite an id is kept as its 16 bytes, as PostgreSQL's `uuid` keeps it, not as 36 characters of
/// text: every table, index and list order that holds ids is about a third smaller, and comparing two
/// ids compares 16 bytes. SQLiteKit converts a value through this conformance before anything else,
/// so every bind of a `UUID` (Fluent's models and filters, `\(bind:)`, `BulkInsert`) writes bytes and
/// every read of one accepts them. Text is still read, for a database an earlier version wrote before
/// its update (`IdsAsBytes`) and for values kept inside text columns.
///
/// Bytes sort as the upper-case text did (hex digits are in the order of their values), so an order
/// by id, and a cursor that seeks by one, is the same before and after the update.
extension UUID: @retroactive SQLiteDataConvertible {
    public init?(sqliteData: SQLiteData) {
        switch sqliteData {
        case .blob(let buffer) where buffer.readableBytes == 16:
            self = buffer.withUnsafeReadableBytes { UUID(uuid: $0.loadUnaligned(as: uuid_t.self)) }
        case .text(let text):
            guard let id = UUID(uuidString: text) else { return nil }
            self = id
        default:
            return nil
        }
    }

    public var sqliteData: SQLiteData? { .blob(sqliteBytes) }

    /// The 16 bytes as SQLite keeps them.
    var sqliteBytes: ByteBuffer {
        withUnsafeBytes(of: uuid) { ByteBuffer(bytes: $0) }
    }
}
