import CImaging
import Foundation
import ShelfmarkCore

/// The symbologies Shelfmark reads and draws.
public enum Symbology: String, Codable, Sendable, CaseIterable {
    case ean13 = "EAN-13"
    case ean8 = "EAN-8"
    case upcA = "UPC-A"
    case upcE = "UPC-E"
    case code128 = "Code 128"
    case code39 = "Code 39"
    case codabar = "Codabar"
    case qr = "QR"

    init?(zbar type: zbar_symbol_type_t) {
        switch type {
        case ZBAR_EAN13, ZBAR_ISBN13: self = .ean13
        case ZBAR_EAN8: self = .ean8
        case ZBAR_UPCA: self = .upcA
        case ZBAR_UPCE: self = .upcE
        case ZBAR_CODE128: self = .code128
        case ZBAR_CODE39: self = .code39
        case ZBAR_CODABAR: self = .codabar
        case ZBAR_QRCODE: self = .qr
        default: return nil
        }
    }

    /// One-dimensional codes whose reads need corroboration before we believe them.
    var isLinear: Bool { self != .qr }
}

/// One code found in an image.
public struct Barcode: Sendable, Equatable, Codable {
    public var symbology: Symbology
    public var text: String
    /// The 2- or 5-digit add-on next to an EAN-13 (a book's price code), when read.
    public var addOn: String?
    /// The ISBN-13, when the code is a book's EAN-13.
    public var isbn: String?

    public init(symbology: Symbology, text: String, addOn: String? = nil) {
        self.symbology = symbology
        self.text = text
        self.addOn = addOn
        if symbology == .ean13, let isbn = try? ISBN(text), isbn.isbn13 == text { self.isbn = text }
        if symbology == .code39 || symbology == .code128 { self.isbn = Self.labelISBN(text) }
    }

    /// An ISBN on an older library label (Code 39 or Code 128): "ISBN 0-441-01498-3", an ISBN-10 or an
    /// ISBN-13, taken as the book's ISBN (its 13 digits) only when it says "ISBN" or when, besides its
    /// check digit, its registration group and registrant are assigned ranges — so a library's own
    /// 10-digit copy number is not taken for a book (a random one passes the check digit 1 time in 11).
    static func labelISBN(_ text: String) -> String? {
        let trimmed = text.trimmingCharacters(in: .whitespaces)
        guard (10...24).contains(trimmed.count), let isbn = try? ISBN(trimmed) else { return nil }
        if trimmed.uppercased().hasPrefix("ISBN") { return isbn.isbn13 }
        let plain = trimmed.filter { $0 != "-" && $0 != " " }
        guard plain.count == 10 || plain.count == 13, isbn.parts != nil else { return nil }
        return isbn.isbn13
    }
}

/// Finds barcodes and QR codes in photos. A first pass reads the image as it is; when that finds
/// nothing, further passes try what helps phone photos (scaling, sharpening, local contrast,
/// thresholding, rotation, crops) until something is found or the time budget is spent.
///
/// Two decoders: zbar on every pass, and after zbar's first pass a ZXing-style EAN-13 reader on the
/// scan lines' grey profiles (`EANProfileReader`), which reads warped and creased codes zbar misses.
///
/// A misread is worse than no read: both verify check digits, and a linear code is believed only
/// when it is read on two or more scan lines or in two passes, and never when two different
/// values of one symbology compete.
public struct BarcodeReader: Sendable {
    public var budget: Duration
    public var symbologies: Set<Symbology>

    public init(budget: Duration = .milliseconds(700), symbologies: Set<Symbology> = Set(Symbology.allCases)) {
        self.budget = budget
        self.symbologies = symbologies
    }

    public struct Result: Sendable {
        public var barcodes: [Barcode]
        /// How many image variants were scanned.
        public var passes: Int
        public var width: Int
        public var height: Int
    }

    public func read(_ data: Data) throws(ImageError) -> Result {
        let gray = try Bitmap.decodeGray(data)
        return read(gray)
    }

    struct Read: Hashable {
        var symbology: Symbology
        var text: String
    }

    /// What the looks at an image said about one value: lines that read it (zbar's quality, the
    /// profile reader's rows) and which independent looks read it at all.
    struct Evidence {
        var quality = 0
        /// The looks that read it: the same pixels sharpened are one look with them (zbar misreads a
        /// blurred code's half alike on both); local contrast, a threshold, another scale, angle or crop
        /// draw the bars anew, and the profile reader decodes them another way.
        var looks: Set<Int> = []
        var addOn: String?
        var passes: Int { looks.count }
        /// The samplings of the bars among the looks: the working image's pixels, however their grey
        /// levels were prepared, are one.
        var samplings: Int { Set(looks.map { BarcodeReader.sameSampling.contains($0) ? 0 : $0 }).count }
    }

    /// The looks that prepare the working image's own pixels (sharpened, local contrast, thresholds).
    static let sameSampling: Set<Int> = [0, 11, 12, 13]

    /// One look at the image by zbar: every symbol found adds its lines, and the look, to its value.
    static func add(_ symbols: [ZBarScanner.Symbol], look: Int, to evidence: inout [Read: Evidence]) {
        for symbol in symbols {
            let read = Read(symbology: symbol.symbology, text: symbol.text)
            evidence[read, default: Evidence()].quality += symbol.quality
            evidence[read, default: Evidence()].looks.insert(look)
            if let a = symbol.addOn { evidence[read, default: Evidence()].addOn = a }
        }
    }

    /// The looks of the profile reader (EAN-13 scan lines, decoded another way than zbar's edges):
    /// at the working image's scale, and at another.
    static let profileLook = -1
    static let rescaledProfileLook = -2

    /// One look by the profile reader.
    static func addProfile(_ plane: GrayPlane, look: Int = profileLook, to evidence: inout [Read: Evidence]) {
        for (text, rows) in EANProfileReader.read(gray: plane.bytes, width: plane.width, height: plane.height) {
            evidence[Read(symbology: .ean13, text: text), default: Evidence()].quality += rows
            evidence[Read(symbology: .ean13, text: text), default: Evidence()].looks.insert(look)
        }
    }

    func read(_ original: Bitmap) -> Result {
        let started = ContinuousClock.now
        let scanner = ZBarScanner(symbologies: symbologies)
        var evidence: [Read: Evidence] = [:]
        var passes = 0

        // The working image: large photos are scaled down (bars stay several pixels wide).
        let longSide = max(original.width, original.height)
        let base: Bitmap = longSide > 1400 ? (original.scaled(1400 / Double(longSide)) ?? original) : original

        func scan(_ plane: GrayPlane?, look: Int) {
            guard let plane else { return }
            passes += 1
            Self.add(scanner.scan(plane), look: look, to: &evidence)
        }

        // ZXing-style reading of EAN-13 scan lines: what zbar's edges miss on warped or creased codes.
        func profileScan(_ plane: GrayPlane, look: Int) {
            guard symbologies.contains(.ean13) else { return }
            passes += 1
            Self.addProfile(plane, look: look, to: &evidence)
        }

        func settled() -> [Barcode]? {
            let accepted = Self.accept(evidence)
            return accepted.isEmpty ? nil : accepted
        }

        // Each preparation with its look: the working image and it sharpened are one (the same pixels
        // a little steeper: zbar misreads a blurred half alike in both); local contrast and thresholds
        // redraw the bars' edges, and each new scale, angle or crop samples them anew.
        let variants: [(look: Int, image: () -> Bitmap?)] = [
            (0, { base }),
            (0, { base.sharpened() }),
            (1, { longSide < 900 ? base.scaled(2) : base.scaled(0.6) }),
            (11, { base.contrastNormalized() }),
            (12, { base.binarized() }),
            (2, { base.scaled(longSide < 900 ? 1.5 : 0.8)?.sharpened() }),
            (3, { base.rotated(degrees: 45) }),
            (4, { base.rotated(degrees: -45) }),
            (5, { base.rotated(degrees: 20) }),
            (6, { base.rotated(degrees: -20) }),
            // Crops: the middle, then halves, enlarged (a small barcode in a big photo).
            (7, { base.cropped(x: base.width / 4, y: base.height / 4, width: base.width / 2, height: base.height / 2)?.scaled(1.6) }),
            (8, { base.cropped(x: 0, y: 0, width: base.width, height: base.height / 2)?.scaled(1.4) }),
            (9, { base.cropped(x: 0, y: base.height / 2, width: base.width, height: base.height / 2)?.scaled(1.4) }),
            (13, { base.contrastNormalized()?.binarized() }),
            (10, { base.scaled(0.45) }),
            // A second sampling of the preparations that help most, for a value one look alone read.
            (14, { base.contrastNormalized()?.scaled(longSide < 900 ? 1.3 : 0.75) }),
            (15, { base.scaled(longSide < 900 ? 1.25 : 0.7)?.sharpened() }),
        ]
        for (index, variant) in variants.enumerated() {
            if passes > 0, ContinuousClock.now - started > budget { break }
            // The working image's grey bytes serve both zbar's first pass and the profile reader.
            let plane = variant.image().flatMap(GrayPlane.init)
            scan(plane, look: variant.look)
            // The profile reader at the working scale and at the first other one: a warped code zbar
            // cannot read at all is still read in two looks.
            if index == 0 || index == 2, settled() == nil, let plane {
                profileScan(plane, look: index == 0 ? Self.profileLook : Self.rescaledProfileLook)
            }
            if let found = settled() {
                return Result(barcodes: found, passes: passes, width: original.width, height: original.height)
            }
        }
        // Every look taken (or the time spent) without two agreeing: nothing, rather than a value one
        // look read alone (a blurred UPC-A's left half misread on every line of one look is a valid EAN-13).
        return Result(barcodes: [], passes: passes, width: original.width, height: original.height)
    }

    /// One frame of a live camera: a single quick look, no retries (the next frame is the retry).
    /// zbar over the frame as it is (long side at most 1280), and when it finds nothing the profile
    /// reader's EAN-13 scan lines. The same rule of belief as a photo: a code read on one line only, or
    /// two codes that disagree, read as nothing. The client believes a value only when two frames
    /// agree (independent evidence: two exposures).
    public func readFrame(_ data: Data) throws(ImageError) -> Result {
        try readFrame(Bitmap.decodeGray(data))
    }

    func readFrame(_ original: Bitmap) -> Result {
        let longSide = max(original.width, original.height)
        let base = longSide > 1280 ? (original.scaled(1280 / Double(longSide)) ?? original) : original
        let scanner = ZBarScanner(symbologies: symbologies)
        var evidence: [Read: Evidence] = [:]
        var passes = 0
        // Three looks, cheapest first, until two agree: zbar at half size (a quarter of the pixels),
        // zbar at full size, the profile reader at full size (the same grey bytes as zbar's).
        let full = GrayPlane(base)
        let looks: [(inout [Read: Evidence]) -> Void] = [
            { e in base.scaled(0.5).flatMap(GrayPlane.init).map { Self.add(scanner.scan($0), look: 1, to: &e) } },
            { e in full.map { Self.add(scanner.scan($0), look: 0, to: &e) } },
            { e in if symbologies.contains(.ean13) { full.map { Self.addProfile($0, to: &e) } } },
        ]
        for look in looks {
            look(&evidence)
            passes += 1
            if !Self.accept(evidence).isEmpty { break }
        }
        return Result(barcodes: Self.accept(evidence), passes: passes, width: original.width, height: original.height)
    }

    /// A photo as a camera frame of `width` × `height` would show it: scaled to cover the frame and
    /// cut to it, as the JPEG a phone sends (what `make bench-scan` times the live path on).
    public static func frame(_ data: Data, width: Int, height: Int) throws(ImageError) -> Data {
        let gray = try Bitmap.decodeGray(data)
        let factor = max(Double(width) / Double(gray.width), Double(height) / Double(gray.height))
        guard let big = gray.scaled(factor),
              let cut = big.cropped(x: max(0, (big.width - width) / 2), y: max(0, (big.height - height) / 2), width: width, height: height),
              let jpeg = cut.jpeg(quality: 85) else { throw .undecodable("frame") }
        return jpeg
    }

    /// What the evidence lets us believe: QR codes (error-corrected) at once; linear codes read in two
    /// independent looks (another scale, angle or crop, or zbar and the profile reader) on two lines or
    /// more, and no rival: zbar reads a creased or blurred EAN wrongly on many adjacent lines of one
    /// image alike, so lines alone are not independent. A UPC-A is an EAN-13 whose first digit is 0,
    /// and the profile reader reads it as one: the two compete as one family, so a correct UPC-A beside
    /// a wrong 13-digit EAN read from the same bars reads as nothing instead of answering the EAN first.
    /// A rival of its family read in two looks too means nothing is believed; a rival of one look must
    /// be outweighed three to one in lines. The retail codes (EAN-13 and UPC-A, EAN-8, UPC-E) compete
    /// with each other too, where part of a UPC-A's bars read as a valid EAN-8: a value of another
    /// retail family read in two looks must be outweighed three to one.
    static func accept(_ evidence: [Read: Evidence]) -> [Barcode] {
        typealias Candidate = (key: String, evidence: Evidence, symbology: Symbology)
        var out: [Barcode] = []
        var candidates: [Family: [Candidate]] = [:]
        for (family, reads) in Dictionary(grouping: evidence, by: { Family($0.key.symbology) }) {
            if family == .qr {
                out += reads.map { Barcode(symbology: $0.key.symbology, text: $0.key.text) }
                continue
            }
            // One value however it was read: a UPC-A and the EAN-13 "0" + its digits are one read.
            var merged: [String: (evidence: Evidence, symbology: Symbology, symbologyQuality: Int)] = [:]
            for (read, e) in reads {
                let key = family == .ean && read.symbology == .upcA ? "0" + read.text : read.text
                var m = merged[key] ?? (Evidence(), read.symbology, -1)
                m.evidence.quality += e.quality
                m.evidence.looks.formUnion(e.looks)
                if let a = e.addOn { m.evidence.addOn = a }
                // Named as the decoder that saw it most (zbar names a UPC-A; the profile reader says EAN-13).
                if e.quality > m.symbologyQuality { (m.symbology, m.symbologyQuality) = (read.symbology, e.quality) }
                merged[key] = m
            }
            candidates[family] = merged.map { (key: $0.key, evidence: $0.value.evidence, symbology: $0.value.symbology) }
                .sorted { ($0.evidence.quality, $0.key) > ($1.evidence.quality, $1.key) }
        }
        for (family, sorted) in candidates {
            guard let best = sorted.first else { continue }
            let e = best.evidence
            let minimumLength = (best.symbology == .code39 || best.symbology == .codabar) ? 4 : 1
            guard e.passes >= 2, e.quality >= 2, best.key.count >= minimumLength else { continue }
            // A short shop code (8 digits, one check digit) needs two samplings of its bars (one image's
            // pixels prepared twice read a blurred UPC-E's same wrong digits) and no other value read at all.
            if family == .ean8 || family == .upcE, e.samplings < 2 || sorted.count > 1 { continue }
            // A rival of its family seen in two looks too: the bars say two things, and neither is believed.
            if let rival = sorted.dropFirst().first?.evidence, rival.passes >= 2 || e.quality < 3 * rival.quality { continue }
            // Another retail code seen in two looks and not outweighed three to one: which bars are
            // which is not clear (a product with a UPC-A and a small UPC-E keeps the UPC-A).
            if family.isRetail, candidates.contains(where: { other in
                other.key != family && other.key.isRetail && other.value.first.map { $0.evidence.passes >= 2 && e.quality < 3 * $0.evidence.quality } == true
            }) { continue }
            let text = best.symbology == .upcA && best.key.count == 13 ? String(best.key.dropFirst()) : best.key
            out.append(Barcode(symbology: best.symbology, text: text, addOn: e.addOn))
        }
        // Book codes first, then the rest in a stable order.
        let order = Symbology.allCases
        return out.sorted { (order.firstIndex(of: $0.symbology)!, $0.text) < (order.firstIndex(of: $1.symbology)!, $1.text) }
    }

    /// Codes that compete with each other: a value of one family excludes another of the same family.
    enum Family: Hashable {
        case ean, ean8, upcE, code128, code39, codabar, qr

        init(_ symbology: Symbology) {
            switch symbology {
            case .ean13, .upcA: self = .ean
            case .ean8: self = .ean8
            case .upcE: self = .upcE
            case .code128: self = .code128
            case .code39: self = .code39
            case .codabar: self = .codabar
            case .qr: self = .qr
            }
        }

        /// The shop and book codes, which one photo's bars can be misread as one another.
        var isRetail: Bool { self == .ean || self == .ean8 || self == .upcE }
    }
}

/// An 8-bit grey image as packed rows of bytes: what zbar and `EANProfileReader` read.
struct GrayPlane {
    var bytes: [UInt8]
    var width: Int
    var height: Int

    init?(_ pix: Bitmap) {
        guard let gray = pix.depth == 8 ? pix : pix.gray() else { return nil }
        (bytes, width, height) = (gray.packedGray(), gray.width, gray.height)
    }
}

/// A zbar image scanner configured for our symbologies. Not thread-safe: one per read.
final class ZBarScanner {
    struct Symbol {
        var symbology: Symbology
        var text: String
        var quality: Int
        var addOn: String?
    }

    private let scanner: OpaquePointer

    init(symbologies: Set<Symbology>) {
        zbar_set_verbosity(0)
        scanner = zbar_image_scanner_create()
        zbar_image_scanner_set_config(scanner, ZBAR_NONE, ZBAR_CFG_ENABLE, 0)
        var types: [zbar_symbol_type_t] = []
        for s in symbologies {
            switch s {
            case .ean13: types += [ZBAR_EAN13, ZBAR_EAN5, ZBAR_EAN2]
            case .ean8: types.append(ZBAR_EAN8)
            case .upcA: types.append(ZBAR_UPCA)
            case .upcE: types.append(ZBAR_UPCE)
            case .code128: types.append(ZBAR_CODE128)
            case .code39: types.append(ZBAR_CODE39)
            case .codabar: types.append(ZBAR_CODABAR)
            case .qr: types.append(ZBAR_QRCODE)
            }
        }
        for t in types { zbar_image_scanner_set_config(scanner, t, ZBAR_CFG_ENABLE, 1) }
        // QR payloads come back as raw bytes (zbar otherwise guesses Shift-JIS for UTF-8 text).
        zbar_image_scanner_set_config(scanner, ZBAR_QRCODE, ZBAR_CFG_BINARY, 1)
    }

    deinit { zbar_image_scanner_destroy(scanner) }

    func scan(_ plane: GrayPlane) -> [Symbol] {
        let width = plane.width, height = plane.height
        let bytes = plane.bytes
        guard !bytes.isEmpty, let image = zbar_image_create() else { return [] }
        defer { zbar_image_destroy(image) }
        zbar_image_set_format(image, 0x3030_3859)  // fourcc "Y800": 8-bit grey
        zbar_image_set_size(image, UInt32(width), UInt32(height))
        return bytes.withUnsafeBytes { raw -> [Symbol] in
            zbar_image_set_data(image, raw.baseAddress, UInt(raw.count), nil)
            guard zbar_scan_image(scanner, image) > 0 else { return [] }
            var found: [Symbol] = []
            var addOns: [String] = []
            var symbol = zbar_image_first_symbol(image)
            while let s = symbol {
                collect(s, into: &found, addOns: &addOns)
                symbol = zbar_symbol_next(s)
            }
            if addOns.count == 1, let i = found.firstIndex(where: { $0.symbology == .ean13 }) { found[i].addOn = addOns[0] }
            return found
        }
    }

    private func collect(_ s: OpaquePointer, into found: inout [Symbol], addOns: inout [String]) {
        let type = zbar_symbol_get_type(s)
        let length = Int(zbar_symbol_get_data_length(s))
        let bytes = zbar_symbol_get_data(s).map { UnsafeRawPointer($0).withMemoryRebound(to: UInt8.self, capacity: length) { Array(UnsafeBufferPointer(start: $0, count: length)) } } ?? []
        // UTF-8 when the bytes are UTF-8 (our QR codes and most others), else ISO 8859-1 (the QR default).
        let text = String(validating: bytes, as: UTF8.self) ?? String(bytes.map { Character(Unicode.Scalar($0)) })
        let quality = Int(zbar_symbol_get_quality(s))
        if type == ZBAR_COMPOSITE, let components = zbar_symbol_get_components(s) {
            var c = zbar_symbol_set_first_symbol(components)
            while let part = c {
                collect(part, into: &found, addOns: &addOns)
                c = zbar_symbol_next(part)
            }
            return
        }
        if type == ZBAR_EAN5 || type == ZBAR_EAN2 {
            addOns.append(text)
            return
        }
        guard let symbology = Symbology(zbar: type) else { return }
        // Spaces around a linear code's text carry no meaning on a label (Code 39 pads with them).
        let trimmed = symbology.isLinear ? text.trimmingCharacters(in: .whitespaces) : text
        guard !trimmed.isEmpty else { return }
        found.append(Symbol(symbology: symbology, text: trimmed, quality: max(1, quality), addOn: nil))
    }
}
