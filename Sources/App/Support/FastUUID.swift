import Foundation

/// Random (version 4) UUIDs for bulk writes. Foundation's `UUID()` opens, reads and closes
/// /dev/urandom for every id on Linux; an import of 100,000 rows needs 300,000 ids, so these come
/// from the standard library's system generator (getrandom, no file) instead.
struct UUIDSource {
    private var generator = SystemRandomNumberGenerator()

    mutating func next() -> UUID {
        let high = generator.next() as UInt64, low = generator.next() as UInt64
        var b: uuid_t = (0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0)
        withUnsafeMutableBytes(of: &b) { raw in
            raw.storeBytes(of: high, toByteOffset: 0, as: UInt64.self)
            raw.storeBytes(of: low, toByteOffset: 8, as: UInt64.self)
            raw[6] = (raw[6] & 0x0F) | 0x40  // version 4
            raw[8] = (raw[8] & 0x3F) | 0x80  // RFC 4122 variant
        }
        return UUID(uuid: b)
    }
}
