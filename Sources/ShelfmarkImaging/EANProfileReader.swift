import ShelfmarkCore

/// A second EAN-13 decoder, working on scan lines the way ZXing's one-dimensional readers do
/// rather than on zbar's edge detector: each row is sharpened (a -1 4 -1 filter that undoes some
/// blur) and thresholded at the valley of its own brightness histogram, then each digit's four
/// bar widths are compared with the ten patterns by relative width. That tolerates what zbar's
/// fixed edge rules do not: bars warped by a creased wrapper, widths that drift along a curved
/// surface. It reads only EAN-13 with a first digit other than 0 (books' ISBNs among them); zbar
/// keeps UPC-A and the rest.
///
/// Every row that decodes, with its check digit right, is one vote. One row alone is never
/// believed (the caller requires corroboration, as for zbar's reads).
struct EANProfileReader {
    /// Digits 0–9, L code (odd parity) as widths of space, bar, space, bar in modules.
    private static let lPatterns: [[Int]] = [
        [3, 2, 1, 1], [2, 2, 2, 1], [2, 1, 2, 2], [1, 4, 1, 1], [1, 1, 3, 2],
        [1, 2, 3, 1], [1, 1, 1, 4], [1, 3, 1, 2], [1, 2, 1, 3], [3, 1, 1, 2],
    ]
    /// L patterns then G patterns (even parity: the L pattern mirrored).
    private static let lgPatterns: [[Int]] = lPatterns + lPatterns.map { Array($0.reversed()) }
    /// The first digit, encoded by which of the left six digits use G patterns.
    private static let firstDigitParity: [Int] = [0x00, 0x0B, 0x0D, 0x0E, 0x13, 0x19, 0x1C, 0x15, 0x16, 0x1A]
    /// Accepted average and single-width deviation, as fractions of a module (ZXing's limits).
    private static let maxAverageVariance = 0.48
    private static let maxIndividualVariance = 0.7

    /// Row reads of an 8-bit grey image given as packed rows; the text of each decoded row. Each
    /// row is thresholded once and decoded in both directions (a code upside down reads backwards;
    /// the histogram and the symmetric filter give the same bits either way).
    static func read(gray: [UInt8], width: Int, height: Int) -> [String: Int] {
        guard width >= 95, height > 0, gray.count == width * height else { return [:] }
        var votes: [String: Int] = [:]
        let step = max(1, height >> 6)
        var row = [Int32](repeating: 0, count: width)
        var bits = [Bool](repeating: false, count: width)
        var y = 0
        while y < height {
            let base = y * width
            for x in 0..<width { row[x] = Int32(gray[base + x]) }
            if threshold(row, into: &bits) {
                let runs = runLengths(bits)
                for text in decode(runs: runs) + decode(runs: runs.reversed()) { votes[text, default: 0] += 1 }
            }
            y += step
        }
        return votes
    }

    /// Black where the sharpened brightness is below the valley between the row's two histogram
    /// peaks (dark bars, light background); both ends light. False when the row has no two
    /// distinct levels.
    static func threshold(_ row: [Int32], into bits: inout [Bool]) -> Bool {
        let width = row.count
        var histogram = [Int](repeating: 0, count: 32)
        for v in row { histogram[Int(v >> 3)] += 1 }
        var first = 0
        for i in 1..<32 where histogram[i] > histogram[first] { first = i }
        // The second peak: tall and far from the first.
        var second = 0, secondScore = -1
        for i in 0..<32 {
            let d = i - first
            let score = d * d * histogram[i]
            if score > secondScore { second = i; secondScore = score }
        }
        if first > second { swap(&first, &second) }
        guard second - first > 2 else { return false }
        // The valley: low, between the peaks, nearer the dark one.
        var valley = second - 1, valleyScore = -1
        var x = second - 1
        while x > first {
            let fromFirst = x - first
            let score = fromFirst * fromFirst * (second - x) * (histogram[second] - histogram[x])
            if score > valleyScore { valley = x; valleyScore = score }
            x -= 1
        }
        let blackPoint = Int32(valley << 3)
        bits[0] = false
        bits[width - 1] = false
        for i in 1..<(width - 1) {
            bits[i] = (row[i] * 4 - row[i - 1] - row[i + 1]) / 2 < blackPoint
        }
        return true
    }

    /// The lengths of the row's alternating light and dark runs, starting with a light one (the
    /// thresholded row's ends are light).
    static func runLengths(_ bits: [Bool]) -> [Int] {
        var runs: [Int] = []
        runs.reserveCapacity(bits.count / 2)
        var current = bits[0], length = 0
        for b in bits {
            if b == current { length += 1 } else { runs.append(length); current = b; length = 1 }
        }
        runs.append(length)
        return runs
    }

    /// Mean deviation of `counters` from `pattern` per pixel, or nil when one width is off by more
    /// than the individual limit.
    private static func variance(_ runs: [Int], at start: Int, _ pattern: [Int]) -> Double? {
        var total = 0, patternTotal = 0
        for (i, p) in pattern.enumerated() { total += runs[start + i]; patternTotal += p }
        guard total >= patternTotal else { return nil }
        let unit = Double(total) / Double(patternTotal)
        let limit = maxIndividualVariance * unit
        var sum = 0.0
        for (i, p) in pattern.enumerated() {
            let v = abs(Double(runs[start + i]) - Double(p) * unit)
            if v > limit { return nil }
            sum += v
        }
        return sum / Double(total)
    }

    private static func matches(_ runs: [Int], at start: Int, _ pattern: [Int]) -> Bool {
        (variance(runs, at: start, pattern) ?? .infinity) < maxAverageVariance
    }

    /// The best-matching pattern's index, when one matches well enough.
    private static func digit(_ runs: [Int], at start: Int, _ patterns: [[Int]]) -> Int? {
        var best: Int?, bestVariance = maxAverageVariance
        for (k, p) in patterns.enumerated() {
            if let v = variance(runs, at: start, p), v < bestVariance { best = k; bestVariance = v }
        }
        return best
    }

    /// Every EAN-13 whose guards, digits and check digit are found in one row's run lengths, which
    /// start with a light run (so dark runs are at the odd indices).
    static func decode(runs: [Int]) -> [String] {
        // 3 + 24 + 5 + 24 + 3 = 59 runs of bars and spaces, plus quiet zones on both sides.
        guard runs.count >= 61 else { return [] }
        var found: [String] = []
        var i = 1
        while i + 59 < runs.count {
            defer { i += 2 }
            guard matches(runs, at: i, [1, 1, 1]) else { continue }
            let guardWidth = runs[i] + runs[i + 1] + runs[i + 2]
            // A quiet zone at least as wide as the guard before the code.
            guard runs[i - 1] >= guardWidth else { continue }
            var pos = i + 3
            var digits: [Int] = []
            var parity = 0
            var ok = true
            for d in 0..<6 {
                guard let k = digit(runs, at: pos, lgPatterns) else { ok = false; break }
                digits.append(k % 10)
                if k >= 10 { parity |= 1 << (5 - d) }
                pos += 4
            }
            guard ok, matches(runs, at: pos, [1, 1, 1, 1, 1]) else { continue }
            pos += 5
            for _ in 0..<6 {
                guard let k = digit(runs, at: pos, lPatterns) else { ok = false; break }
                digits.append(k)
                pos += 4
            }
            guard ok, matches(runs, at: pos, [1, 1, 1]) else { continue }
            let end = pos + 3
            guard end < runs.count, runs[end] >= guardWidth else { continue }
            guard let first = firstDigitParity.firstIndex(of: parity), first != 0 else { continue }
            let all = ([first] + digits).map(UInt8.init)
            guard ISBN.check13(Array(all.prefix(12))) == all[12] else { continue }
            found.append(all.map(String.init).joined())
        }
        return found
    }
}
