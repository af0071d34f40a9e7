import Foundation

/// Ids for bulk writes: time-ordered UUIDs (version 7, RFC 9562) from the standard library's system
/// generator. Two reasons. Foundation's `UUID()` opens, reads and closes /dev/urandom for every id
/// on Linux, and an import of 100,000 rows needs 400,000 ids. And random ids scatter inserts over
/// every page of each index that holds them (primary keys, `copies.title_id`, …); ids that grow with
/// time append at the end of those indexes, so a batch touches a few pages instead of thousands.
/// Within one millisecond a 12-bit counter keeps them increasing.
struct UUIDSource {
    private var generator = BufferedRandom()
    private var lastMillis: UInt64 = 0
    private var sequence: UInt64 = 0

    mutating func next() -> UUID {
        var millis = UInt64(max(0, Date().timeIntervalSince1970 * 1000))
        if millis <= lastMillis {
            millis = lastMillis
            sequence += 1
            if sequence > 0xFFF {
                millis += 1
                sequence = 0
            }
        } else {
            sequence = generator.next() & 0x3FF  // a random start leaves room to count up
        }
        lastMillis = millis
        let random = generator.next() as UInt64
        var b: uuid_t = (0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0)
        withUnsafeMutableBytes(of: &b) { raw in
            for i in 0..<6 { raw[i] = UInt8(truncatingIfNeeded: millis >> (8 * (5 - UInt64(i)))) }
            raw[6] = 0x70 | UInt8(truncatingIfNeeded: sequence >> 8)  // version 7, counter high bits
            raw[7] = UInt8(truncatingIfNeeded: sequence)
            for i in 8..<16 { raw[i] = UInt8(truncatingIfNeeded: random >> (8 * UInt64(i - 8))) }
            raw[8] = (raw[8] & 0x3F) | 0x80  // RFC 9562 variant
        }
        return UUID(uuid: b)
    }
}

/// Random numbers from the system's generator (`arc4random_buf`, on Linux glibc's `getrandom`), fetched
/// 4 KiB at a time: one request per 512 numbers instead of one per number (an import asks for two per id).
struct BufferedRandom: RandomNumberGenerator {
    private var buffer = [UInt64](repeating: 0, count: 512)
    private var position = 512

    mutating func next() -> UInt64 {
        if position == buffer.count {
            buffer.withUnsafeMutableBytes { arc4random_buf($0.baseAddress!, $0.count) }
            position = 0
        }
        defer { position += 1 }
        return buffer[position]
    }
}
