import Foundation

/// Finds a photographed page's four corners: the page is the largest light region set off from a
/// darker desk or table. The photo is brought down to a small grey image, split at Otsu's threshold,
/// the largest light region taken with the text inside it, its outline reduced to the quadrilateral
/// that loses least of its area. Answers nothing where there is no such page: a photo that is all page
/// (nothing to straighten), a page without contrast to its background, a region that is not four-sided.
public enum PageEdges {
    /// Longest side of the image the search works on: enough for a corner within half a percent.
    static let side = 480

    static func find(_ image: Bitmap) -> PageImage.Corners? {
        let long = max(image.width, image.height)
        guard long >= 32 else { return nil }
        let small = long > side ? image.scaled(Double(side) / Double(long)) : image
        guard let small, let plane = GrayPlane(small) else { return nil }
        return find(gray: plane.bytes, width: plane.width, height: plane.height)
    }

    static func find(gray: [UInt8], width w: Int, height h: Int) -> PageImage.Corners? {
        guard w >= 16, h >= 16, gray.count == w * h else { return nil }
        let pixels = smoothed(gray, w, h)
        let threshold = otsu(pixels)
        guard let region = largestLightRegion(pixels, w, h, above: threshold) else { return nil }
        let total = Double(w * h)
        // A page: a good part of the photo, and not all of it.
        guard Double(region.count) > 0.12 * total else { return nil }
        // Set off from its background: the light region's mean well above the rest's.
        var inside = 0.0, outside = 0.0
        var member = [Bool](repeating: false, count: w * h)
        for i in region.pixels { member[i] = true }
        for i in 0..<(w * h) { if member[i] { inside += Double(pixels[i]) } else { outside += Double(pixels[i]) } }
        let outsideCount = Double(w * h - region.count)
        guard outsideCount > 0.04 * total else { return nil }
        guard inside / Double(region.count) - outside / outsideCount > 35 else { return nil }

        let hull = convexHull(region.rowEnds)
        guard hull.count >= 4, let quad = reduced(hull, to: 4) else { return nil }
        // Four-sided: the region and the quadrilateral it was reduced to cover each other (a disc
        // overflows its inscribed quadrilateral, a fan leaves it half empty).
        let quadArea = area(quad), filled = Double(region.filled)
        guard quadArea > 0, filled / quadArea > 0.88, quadArea / filled > 0.92 else { return nil }
        // Corners as fractions, clockwise from the top left (the one nearest the photo's top left).
        var points = quad.map { (x: $0.x / Double(w - 1), y: $0.y / Double(h - 1)) }
        let first = points.indices.min { points[$0].x + points[$0].y < points[$1].x + points[$1].y } ?? 0
        points = Array(points[first...] + points[..<first])
        // Already the whole photo: nothing to straighten.
        let frame = [(0.0, 0.0), (1.0, 0.0), (1.0, 1.0), (0.0, 1.0)]
        if zip(points, frame).allSatisfy({ abs($0.0.x - $0.1.0) < 0.03 && abs($0.0.y - $0.1.1) < 0.03 }) { return nil }
        return PageImage.Corners(points.flatMap { [min(1, max(0, $0.x)), min(1, max(0, $0.y))] })
    }

    /// A 3×3 box blur: the paper's grain and the JPEG's blocks are not edges.
    static func smoothed(_ g: [UInt8], _ w: Int, _ h: Int) -> [UInt8] {
        var out = g
        for y in 1..<(h - 1) {
            for x in 1..<(w - 1) {
                var sum = 0
                for dy in -1...1 { for dx in -1...1 { sum += Int(g[(y + dy) * w + x + dx]) } }
                out[y * w + x] = UInt8(sum / 9)
            }
        }
        return out
    }

    /// Otsu's threshold: the grey level that best splits the picture into two classes.
    static func otsu(_ pixels: [UInt8]) -> Int {
        var histogram = [Int](repeating: 0, count: 256)
        for p in pixels { histogram[Int(p)] += 1 }
        let total = Double(pixels.count)
        let sumAll = histogram.enumerated().reduce(0.0) { $0 + Double($1.offset * $1.element) }
        var sumBelow = 0.0, below = 0.0, best = 0.0, threshold = 127
        for t in 0..<256 {
            below += Double(histogram[t])
            if below == 0 { continue }
            let above = total - below
            if above == 0 { break }
            sumBelow += Double(t * histogram[t])
            let meanBelow = sumBelow / below, meanAbove = (sumAll - sumBelow) / above
            let between = below * above * (meanBelow - meanAbove) * (meanBelow - meanAbove)
            if between > best { (best, threshold) = (between, t) }
        }
        return threshold
    }

    struct Region {
        var pixels: [Int]
        var count: Int { pixels.count }
        /// Each row's leftmost and rightmost pixel: the outline the hull is taken of.
        var rowEnds: [(x: Double, y: Double)]
        /// The pixels between each row's ends: the region with the dark text inside it counted in.
        var filled: Int
    }

    /// The largest 4-connected region lighter than the threshold.
    static func largestLightRegion(_ pixels: [UInt8], _ w: Int, _ h: Int, above threshold: Int) -> Region? {
        var label = [Int32](repeating: 0, count: w * h)
        var best: [Int] = []
        var next: Int32 = 1
        var stack: [Int] = []
        for start in 0..<(w * h) where label[start] == 0 && Int(pixels[start]) > threshold {
            var members: [Int] = []
            label[start] = next
            stack.append(start)
            while let i = stack.popLast() {
                members.append(i)
                let x = i % w
                for n in [x > 0 ? i - 1 : -1, x < w - 1 ? i + 1 : -1, i - w, i + w] where n >= 0 && n < w * h {
                    if label[n] == 0 && Int(pixels[n]) > threshold {
                        label[n] = next
                        stack.append(n)
                    }
                }
            }
            if members.count > best.count { best = members }
            next += 1
        }
        guard !best.isEmpty else { return nil }
        var left = [Int](repeating: Int.max, count: h), right = [Int](repeating: -1, count: h)
        for i in best {
            let (x, y) = (i % w, i / w)
            left[y] = min(left[y], x)
            right[y] = max(right[y], x)
        }
        var ends: [(x: Double, y: Double)] = []
        var filled = 0
        for y in 0..<h where right[y] >= 0 {
            ends.append((Double(left[y]), Double(y)))
            ends.append((Double(right[y]), Double(y)))
            filled += right[y] - left[y] + 1
        }
        return Region(pixels: best, rowEnds: ends, filled: filled)
    }

    /// Andrew's monotone chain, clockwise on screen (y down).
    static func convexHull(_ points: [(x: Double, y: Double)]) -> [(x: Double, y: Double)] {
        let p = points.sorted { ($0.x, $0.y) < ($1.x, $1.y) }
        guard p.count > 2 else { return p }
        func cross(_ o: (x: Double, y: Double), _ a: (x: Double, y: Double), _ b: (x: Double, y: Double)) -> Double {
            (a.x - o.x) * (b.y - o.y) - (a.y - o.y) * (b.x - o.x)
        }
        var lower: [(x: Double, y: Double)] = [], upper: [(x: Double, y: Double)] = []
        for q in p {
            while lower.count >= 2 && cross(lower[lower.count - 2], lower[lower.count - 1], q) <= 0 { lower.removeLast() }
            lower.append(q)
        }
        for q in p.reversed() {
            while upper.count >= 2 && cross(upper[upper.count - 2], upper[upper.count - 1], q) <= 0 { upper.removeLast() }
            upper.append(q)
        }
        // Counter-clockwise in y-up terms is clockwise on a screen whose y runs down.
        return Array(lower.dropLast() + upper.dropLast())
    }

    /// The polygon reduced to `count` of its corners, each time dropping the corner whose removal
    /// loses the least area (a cut-off page corner's short edges go first, the page's sides stay).
    static func reduced(_ polygon: [(x: Double, y: Double)], to count: Int) -> [(x: Double, y: Double)]? {
        var poly = polygon
        guard poly.count >= count else { return nil }
        func loss(_ i: Int) -> Double {
            let a = poly[(i + poly.count - 1) % poly.count], b = poly[i], c = poly[(i + 1) % poly.count]
            return abs((b.x - a.x) * (c.y - a.y) - (b.y - a.y) * (c.x - a.x)) / 2
        }
        while poly.count > count {
            let drop = poly.indices.min { loss($0) < loss($1) }!
            poly.remove(at: drop)
        }
        return poly
    }

    static func area(_ poly: [(x: Double, y: Double)]) -> Double {
        var sum = 0.0
        for i in poly.indices {
            let a = poly[i], b = poly[(i + 1) % poly.count]
            sum += a.x * b.y - b.x * a.y
        }
        return abs(sum) / 2
    }
}
