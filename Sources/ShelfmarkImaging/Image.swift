import CImaging
import Foundation

/// Why an upload is not an image we can read. Each case says what was wrong, for a 4xx answer.
public enum ImageError: Error, Equatable, Sendable, CustomStringConvertible {
    case empty
    case tooLarge(bytes: Int, limit: Int)
    case notAnImage
    case truncated(String)
    case tooManyPixels(width: Int, height: Int)
    case undecodable(String)

    public var description: String {
        switch self {
        case .empty: "The image is empty: send the bytes of a JPEG or PNG photo."
        case .tooLarge(let bytes, let limit): "The image is \(bytes / 1_000_000) MB; the limit is \(limit / 1_000_000) MB."
        case .notAnImage: "This is not an image: send a JPEG, PNG, GIF, WebP, BMP or TIFF file."
        case .truncated(let format): "The \(format) file is cut short (the upload was incomplete): send the whole file."
        case .tooManyPixels(let w, let h): "The image is \(w)×\(h) pixels; the limit is 50 megapixels."
        case .undecodable(let format): "The \(format) file could not be decoded: it is damaged."
        }
    }
}

/// An owned leptonica image. Leptonica's own transforms do the pixel work (C speed).
final class Bitmap: @unchecked Sendable {
    private(set) var pointer: UnsafeMutablePointer<PIX>

    init(_ pointer: UnsafeMutablePointer<PIX>) { self.pointer = pointer }

    /// Wraps a result that may be NULL.
    convenience init?(_ pointer: UnsafeMutablePointer<PIX>?) {
        guard let pointer else { return nil }
        self.init(pointer)
    }

    deinit {
        var p: UnsafeMutablePointer<PIX>? = pointer
        pixDestroy(&p)
    }

    var width: Int { Int(pixGetWidth(pointer)) }
    var height: Int { Int(pixGetHeight(pointer)) }
    var depth: Int { Int(pixGetDepth(pointer)) }

    static let maxPixels = 50_000_000
    static let quiet: Void = { _ = setMsgSeverity(Int32(L_SEVERITY_NONE)) }()

    /// The magic numbers we accept and their names.
    static func format(of data: Data) -> String? {
        let b = [UInt8](data.prefix(12))
        if b.count >= 3, b[0] == 0xFF, b[1] == 0xD8, b[2] == 0xFF { return "JPEG" }
        if b.count >= 8, b[0..<8] == [0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A] { return "PNG" }
        if b.count >= 6, b[0..<4] == [0x47, 0x49, 0x46, 0x38] { return "GIF" }
        if b.count >= 12, b[0..<4] == [0x52, 0x49, 0x46, 0x46], b[8..<12] == [0x57, 0x45, 0x42, 0x50] { return "WebP" }
        if b.count >= 2, b[0] == 0x42, b[1] == 0x4D { return "BMP" }
        if b.count >= 4, (b[0..<4] == [0x49, 0x49, 0x2A, 0x00] || b[0..<4] == [0x4D, 0x4D, 0x00, 0x2A]) { return "TIFF" }
        return nil
    }

    /// Decodes a photo into 8-bit grey, refusing what is not a whole image of a sane size.
    static func decodeGray(_ data: Data) throws(ImageError) -> Bitmap {
        let (pix, format) = try decode(data)
        guard let gray = pix.gray() else { throw .undecodable(format) }
        return gray
    }

    /// Decodes a photo as it is stored (any depth), refusing what is not a whole image of a sane size:
    /// the one door every photo comes in by (the scanner's grey, the page photos' colour).
    static func decode(_ data: Data) throws(ImageError) -> (Bitmap, format: String) {
        _ = quiet
        guard !data.isEmpty else { throw .empty }
        guard let format = format(of: data) else { throw .notAnImage }
        // Decoders fill a cut-short file with grey and say nothing; check the end markers ourselves.
        let tail = [UInt8](data.suffix(2048))
        switch format {
        case "JPEG":
            guard tail.indices.dropLast().contains(where: { tail[$0] == 0xFF && tail[$0 + 1] == 0xD9 }) else { throw .truncated(format) }
        case "PNG":
            guard tail.count >= 8, String(decoding: tail.suffix(64), as: UTF8.self).contains("IEND") else { throw .truncated(format) }
        default: break
        }
        var fmt: Int32 = 0, w: Int32 = 0, h: Int32 = 0, bps: Int32 = 0, spp: Int32 = 0, cmap: Int32 = 0
        let header = data.withUnsafeBytes { raw in
            pixReadHeaderMem(raw.bindMemory(to: UInt8.self).baseAddress, raw.count, &fmt, &w, &h, &bps, &spp, &cmap)
        }
        guard header == 0, w > 0, h > 0, w <= 30_000, h <= 30_000 else { throw .undecodable(format) }
        guard Int(w) * Int(h) <= maxPixels else { throw .tooManyPixels(width: Int(w), height: Int(h)) }
        let decoded = data.withUnsafeBytes { raw in pixReadMem(raw.bindMemory(to: UInt8.self).baseAddress, raw.count) }
        guard let pix = Bitmap(decoded) else { throw .undecodable(format) }
        return (pix, format)
    }

    /// 8-bit grey from any depth (RGB by luminance, colour maps removed).
    func gray() -> Bitmap? {
        switch depth {
        case 8 where pixGetColormap(pointer) == nil: return Bitmap(pixClone(pointer))
        case 32: return Bitmap(pixConvertRGBToLuminance(pointer))
        default: return Bitmap(pixConvertTo8(pointer, 0))
        }
    }

    func scaled(_ factor: Double) -> Bitmap? {
        Bitmap(pixScale(pointer, Float(factor), Float(factor)))
    }

    /// Rotated clockwise by any angle, on a canvas large enough that no corner is cut off.
    func rotated(degrees: Double) -> Bitmap? {
        let a = degrees * .pi / 180
        let w = Double(width), h = Double(height)
        let bw = Int32((abs(w * cos(a)) + abs(h * sin(a))).rounded(.up))
        let bh = Int32((abs(w * sin(a)) + abs(h * cos(a))).rounded(.up))
        return Bitmap(pixRotate(pointer, Float(a), Int32(L_ROTATE_AREA_MAP), Int32(L_BRING_IN_WHITE), bw, bh))
    }

    /// A quarter turn clockwise (exact, no resampling).
    func quarterTurned() -> Bitmap? { Bitmap(pixRotate90(pointer, 1)) }

    func sharpened() -> Bitmap? { Bitmap(pixUnsharpMaskingGray(pointer, 2, 0.6)) }

    /// Stretches local contrast (uneven light, glare).
    func contrastNormalized() -> Bitmap? {
        Bitmap(pixContrastNorm(nil, pointer, 32, 32, 40, 2, 2))
    }

    /// Black and white by local thresholds, back as 8-bit.
    func binarized() -> Bitmap? {
        var out: UnsafeMutablePointer<PIX>?
        guard pixOtsuAdaptiveThreshold(pointer, 64, 64, 0, 0, 0.1, nil, &out) == 0, let bw = Bitmap(out) else { return nil }
        return Bitmap(pixConvert1To8(nil, bw.pointer, 255, 0))
    }

    func cropped(x: Int, y: Int, width w: Int, height h: Int) -> Bitmap? {
        guard let box = boxCreate(Int32(x), Int32(y), Int32(w), Int32(h)) else { return nil }
        var b: UnsafeMutablePointer<BOX>? = box
        defer { boxDestroy(&b) }
        return Bitmap(pixClipRectangle(pointer, box, nil))
    }

    /// An 8-bit grey image from packed rows of bytes (the inverse of `packedGray`).
    static func fromGray(width: Int, height: Int, pixels: [UInt8]) -> Bitmap? {
        guard pixels.count == width * height, let pix = Bitmap(pixCreate(Int32(width), Int32(height), 8)) else { return nil }
        let stride = Int(pixGetWpl(pix.pointer)) * 4
        guard let words = pixGetData(pix.pointer) else { return nil }
        pixels.withUnsafeBytes { src in
            let dst = UnsafeMutableRawPointer(words)
            for y in 0..<height {
                (dst + y * stride).copyMemory(from: src.baseAddress! + y * width, byteCount: width)
            }
        }
        if 1.littleEndian == 1 { pixEndianByteSwap(pix.pointer) }
        return pix
    }

    /// White image with lines of black text in leptonica's built-in bitmap font (test fixtures).
    static func text(_ lines: [String], fontSize: Int32 = 8, width: Int = 1200) -> Bitmap? {
        guard let font = bmfCreate(nil, fontSize) else { return nil }
        var f: UnsafeMutablePointer<L_BMF>? = font
        defer { bmfDestroy(&f) }
        let lineHeight = Int(fontSize) * 8
        guard let pix = Bitmap(pixCreate(Int32(width), Int32(lineHeight * (lines.count + 1)), 8)) else { return nil }
        pixSetAll(pix.pointer)  // white
        for (i, line) in lines.enumerated() {
            pixSetTextline(pix.pointer, font, line, 0x0000_0000, 40, Int32(lineHeight * (i + 1)), nil, nil)
        }
        return pix
    }

    /// The pixels as packed rows of bytes (leptonica keeps 8-bit pixels in big-endian 32-bit words;
    /// a byte-swapped copy has them in order, then each row is one copy).
    func packedGray() -> [UInt8] {
        precondition(depth == 8)
        let w = width, h = height
        guard let copy = Bitmap(pixCopy(nil, pointer)) else { return [] }
        if 1.littleEndian == 1 { pixEndianByteSwap(copy.pointer) }
        let stride = Int(pixGetWpl(copy.pointer)) * 4
        guard let words = pixGetData(copy.pointer) else { return [] }
        var out = [UInt8](repeating: 0, count: w * h)
        out.withUnsafeMutableBytes { dst in
            let src = UnsafeRawPointer(words)
            for y in 0..<h {
                (dst.baseAddress! + y * w).copyMemory(from: src + y * stride, byteCount: w)
            }
        }
        return out
    }
}
