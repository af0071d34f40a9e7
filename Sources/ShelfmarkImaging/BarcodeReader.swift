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

    struct Evidence {
        var quality = 0
        var passes = 0
        var addOn: String?
    }

    func read(_ original: Bitmap) -> Result {
        let started = ContinuousClock.now
        let scanner = ZBarScanner(symbologies: symbologies)
        var evidence: [Read: Evidence] = [:]
        var passes = 0

        // The working image: large photos are scaled down (bars stay several pixels wide).
        let longSide = max(original.width, original.height)
        let base: Bitmap = longSide > 1400 ? (original.scaled(1400 / Double(longSide)) ?? original) : original

        func scan(_ plane: GrayPlane?) {
            guard let plane else { return }
            passes += 1
            for symbol in scanner.scan(plane) {
                var e = evidence[Read(symbology: symbol.symbology, text: symbol.text), default: Evidence()]
                e.quality += symbol.quality
                e.passes += 1
                if let a = symbol.addOn { e.addOn = a }
                evidence[Read(symbology: symbol.symbology, text: symbol.text)] = e
            }
        }

        // ZXing-style reading of EAN-13 scan lines: what zbar's edges miss on warped or creased codes.
        func profileScan(_ plane: GrayPlane) {
            guard symbologies.contains(.ean13) else { return }
            passes += 1
            for (text, rows) in EANProfileReader.read(gray: plane.bytes, width: plane.width, height: plane.height) {
                evidence[Read(symbology: .ean13, text: text), default: Evidence()].quality += rows
            }
        }

        func settled() -> [Barcode]? {
            let accepted = Self.accept(evidence)
            return accepted.isEmpty ? nil : accepted
        }

        let variants: [() -> Bitmap?] = [
            { base },
            { base.sharpened() },
            { longSide < 900 ? base.scaled(2) : base.scaled(0.6) },
            { base.contrastNormalized() },
            { base.binarized() },
            { base.scaled(longSide < 900 ? 1.5 : 0.8)?.sharpened() },
            { base.rotated(degrees: 45) },
            { base.rotated(degrees: -45) },
            { base.rotated(degrees: 20) },
            { base.rotated(degrees: -20) },
            // Crops: the middle, then halves, enlarged (a small barcode in a big photo).
            { base.cropped(x: base.width / 4, y: base.height / 4, width: base.width / 2, height: base.height / 2)?.scaled(1.6) },
            { base.cropped(x: 0, y: 0, width: base.width, height: base.height / 2)?.scaled(1.4) },
            { base.cropped(x: 0, y: base.height / 2, width: base.width, height: base.height / 2)?.scaled(1.4) },
            { base.contrastNormalized()?.binarized() },
            { base.scaled(0.45) },
        ]
        for (index, variant) in variants.enumerated() {
            if passes > 0, ContinuousClock.now - started > budget { break }
            // The working image's grey bytes serve both zbar's first pass and the profile reader.
            let plane = variant().flatMap(GrayPlane.init)
            scan(plane)
            if index == 0, settled() == nil, let plane { profileScan(plane) }
            if let found = settled() {
                return Result(barcodes: found, passes: passes, width: original.width, height: original.height)
            }
        }
        return Result(barcodes: settled() ?? [], passes: passes, width: original.width, height: original.height)
    }

    /// What the evidence lets us believe: QR codes (error-corrected) at once; linear codes with
    /// corroboration and no competing value of the same symbology.
    static func accept(_ evidence: [Read: Evidence]) -> [Barcode] {
        var out: [Barcode] = []
        let bySymbology = Dictionary(grouping: evidence, by: { $0.key.symbology })
        for (symbology, reads) in bySymbology {
            if !symbology.isLinear {
                out += reads.map { Barcode(symbology: symbology, text: $0.key.text) }
                continue
            }
            let sorted = reads.sorted { $0.value.quality > $1.value.quality }
            guard let best = sorted.first else { continue }
            let corroborated = best.value.quality >= 2 || best.value.passes >= 2
            let minimumLength = (symbology == .code39 || symbology == .codabar) ? 4 : 1
            guard corroborated, best.key.text.count >= minimumLength else { continue }
            // A rival value of the same symbology: believe the best only when it clearly dominates.
            if sorted.count > 1, best.value.quality < 3 * sorted[1].value.quality { continue }
            out.append(Barcode(symbology: symbology, text: best.key.text, addOn: best.value.addOn))
        }
        // Book codes first, then the rest in a stable order.
        let order = Symbology.allCases
        return out.sorted { (order.firstIndex(of: $0.symbology)!, $0.text) < (order.firstIndex(of: $1.symbology)!, $1.text) }
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
