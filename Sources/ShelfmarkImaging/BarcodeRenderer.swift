import CImaging
import Foundation
import ShelfmarkCore

/// Draws barcodes (zint) and QR codes (libqrencode) as SVG and PNG, with quiet zones and, for
/// linear codes, the human-readable text underneath: EAN-13 for an ISBN, Code 128 for copy and
/// member barcodes, QR for shelves. What we draw, `BarcodeReader` reads (tested).
public enum BarcodeRenderer {
    public enum Failure: Error, Equatable, Sendable, CustomStringConvertible {
        case invalid(String)
        case tooLong(Int)

        public var description: String {
            switch self {
            case .invalid(let why): why
            case .tooLong(let n): "The text is \(n) characters; a code holds at most 200."
            }
        }
    }

    public enum Kind: Sendable {
        /// An ISBN as a book's EAN-13 (with the ISBN printed above, as on a cover).
        case isbn
        case code128
        case qr
    }

    public struct Output: Sendable {
        public var svg: String
        public var png: Data
    }

    /// Renders `text`; `scale` is pixels per module in the PNG.
    public static func render(_ kind: Kind, _ text: String, scale: Int = 3) throws(Failure) -> Output {
        guard text.count <= 200 else { throw .tooLong(text.count) }
        guard !text.isEmpty else { throw .invalid("There is nothing to encode.") }
        switch kind {
        case .isbn:
            guard let isbn = try? ISBN(text) else { throw .invalid("“\(text)” is not a valid ISBN.") }
            return try linear(symbology: BARCODE_ISBNX, data: isbn.isbn13, scale: scale)
        case .code128:
            guard text.unicodeScalars.allSatisfy({ $0.value >= 32 && $0.value < 127 }) else {
                throw .invalid("Code 128 labels hold printable ASCII only (letters, digits, punctuation).")
            }
            return try linear(symbology: BARCODE_CODE128, data: text, scale: scale)
        case .qr:
            return try qr(text, scale: max(2, scale * 2))
        }
    }

    /// A linear code's bars, for drawing it at any size (the label sheets' PDF): each bar's left edge and
    /// width in units of the narrowest bar, without quiet zones or text; `modules` is the whole width.
    public struct Bars: Sendable, Equatable {
        public var modules: Double
        public var bars: [(x: Double, width: Double)]

        public static func == (a: Bars, b: Bars) -> Bool {
            a.modules == b.modules && a.bars.elementsEqual(b.bars) { $0.x == $1.x && $0.width == $1.width }
        }
    }

    /// The Code 128 bars of `text` (printable ASCII, as copy barcodes and card IDs are).
    public static func code128Bars(_ text: String) throws(Failure) -> Bars {
        guard text.count <= 200 else { throw .tooLong(text.count) }
        guard !text.isEmpty else { throw .invalid("There is nothing to encode.") }
        guard text.unicodeScalars.allSatisfy({ $0.value >= 32 && $0.value < 127 }) else {
            throw .invalid("Code 128 labels hold printable ASCII only (letters, digits, punctuation).")
        }
        guard let symbol = ZBarcode_Create() else { throw .invalid("zint could not start") }
        defer { ZBarcode_Delete(symbol) }
        symbol.pointee.symbology = BARCODE_CODE128
        symbol.pointee.whitespace_width = 0
        symbol.pointee.show_hrt = 0
        symbol.pointee.scale = 0.5  // one unit a module
        let bytes = Array(text.utf8)
        guard ZBarcode_Encode(symbol, bytes, Int32(bytes.count)) < ZINT_ERROR,
              ZBarcode_Buffer_Vector(symbol, 0) < ZINT_ERROR, let vector = symbol.pointee.vector else {
            throw .invalid("“\(text)” cannot be drawn.")
        }
        var bars: [(x: Double, width: Double)] = []
        var rect = vector.pointee.rectangles
        while let r = rect {
            bars.append((Double(r.pointee.x), Double(r.pointee.width)))
            rect = r.pointee.next
        }
        let narrowest = bars.map(\.width).min() ?? 1
        return Bars(modules: Double(vector.pointee.width) / narrowest, bars: bars.sorted { $0.x < $1.x }.map { ($0.x / narrowest, $0.width / narrowest) })
    }

    /// A book EAN-13 with its 5-digit price add-on, as PNG (for tests of add-on reading).
    static func renderForTesting(addOnOf isbn: String, addOn: String) throws(Failure) -> Data {
        try linear(symbology: BARCODE_EANX, data: isbn.dropLast() + "+" + addOn, scale: 3).png
    }

    // MARK: - Linear codes (zint)

    private static func linear(symbology: Int32, data: String, scale: Int) throws(Failure) -> Output {
        func encoded() throws(Failure) -> UnsafeMutablePointer<zint_symbol> {
            guard let symbol = ZBarcode_Create() else { throw .invalid("zint could not start") }
            symbol.pointee.symbology = symbology
            symbol.pointee.whitespace_width = 0
            symbol.pointee.output_options |= BARCODE_QUIET_ZONES  // the standard's quiet zones
            symbol.pointee.height = 50
            symbol.pointee.scale = Float(scale) / 2  // zint's raster X-dimension is 2 × scale pixels
            let bytes = Array(data.utf8)
            let status = ZBarcode_Encode(symbol, bytes, Int32(bytes.count))
            if status >= ZINT_ERROR {
                let why = withUnsafeBytes(of: symbol.pointee.errtxt) { String(decoding: $0.prefix { $0 != 0 }, as: UTF8.self) }
                ZBarcode_Delete(symbol)
                throw .invalid("“\(data)” cannot be drawn: \(why)")
            }
            return symbol
        }
        let raster = try encoded()
        defer { ZBarcode_Delete(raster) }
        guard ZBarcode_Buffer(raster, 0) < ZINT_ERROR, let bitmap = raster.pointee.bitmap else { throw .invalid("zint could not draw “\(data)”") }
        let w = Int(raster.pointee.bitmap_width), h = Int(raster.pointee.bitmap_height)
        var gray = [UInt8](repeating: 255, count: w * h)
        for i in 0..<(w * h) {
            // RGB triplets; foreground black, background white (anti-aliased text in between).
            let r = Int(bitmap[i * 3]), g = Int(bitmap[i * 3 + 1]), b = Int(bitmap[i * 3 + 2])
            gray[i] = UInt8((r * 299 + g * 587 + b * 114) / 1000)
        }
        let png = PNG.gray(width: w, height: h, pixels: gray)

        let vectorSymbol = try encoded()
        defer { ZBarcode_Delete(vectorSymbol) }
        guard ZBarcode_Buffer_Vector(vectorSymbol, 0) < ZINT_ERROR, let vector = vectorSymbol.pointee.vector else {
            throw .invalid("zint could not draw “\(data)”")
        }
        return Output(svg: svg(vector.pointee, label: data), png: png)
    }

    private static func svg(_ v: zint_vector, label: String) -> String {
        func n(_ x: Float) -> String {
            let r = (x * 100).rounded() / 100
            return r == r.rounded() ? String(Int(r)) : String(r)
        }
        var out = """
            <svg xmlns="http://www.w3.org/2000/svg" width="\(n(v.width))" height="\(n(v.height))" viewBox="0 0 \(n(v.width)) \(n(v.height))" role="img" aria-label="\(escape(label))">
            <rect width="100%" height="100%" fill="#ffffff"/>
            <path fill="#000000" d="
            """
        var rect = v.rectangles
        while let r = rect {
            out += "M\(n(r.pointee.x)) \(n(r.pointee.y))h\(n(r.pointee.width))v\(n(r.pointee.height))h-\(n(r.pointee.width))Z"
            rect = r.pointee.next
        }
        out += "\"/>\n"
        var string = v.strings
        while let s = string {
            let text = String(decoding: UnsafeBufferPointer(start: s.pointee.text, count: Int(s.pointee.length)), as: UTF8.self)
            let anchor = s.pointee.halign == 1 ? "start" : (s.pointee.halign == 2 ? "end" : "middle")
            out += "<text x=\"\(n(s.pointee.x))\" y=\"\(n(s.pointee.y))\" text-anchor=\"\(anchor)\" font-family=\"OCR-B, Helvetica, Arial, sans-serif\" font-size=\"\(n(s.pointee.fsize))\" fill=\"#000000\">\(escape(text))</text>\n"
            string = s.pointee.next
        }
        return out + "</svg>\n"
    }

    // MARK: - QR (libqrencode)

    /// A run of dark modules in one row of a QR code: `length` modules from (`x`, `y`), counted from the
    /// top left without the quiet zone.
    public struct QRRun: Sendable, Equatable {
        public var x: Int
        public var y: Int
        public var length: Int
    }

    /// A QR code (error correction M) as its rows' runs of dark modules: what the SVG path, the PNG and
    /// a PDF's squares (sharp at any printer resolution) are all drawn from.
    public static func qrRuns(_ text: String) throws(Failure) -> (size: Int, runs: [QRRun]) {
        guard let code = QRcode_encodeString(text, 0, QR_ECLEVEL_M, QR_MODE_8, 1) else {
            throw .invalid("“\(text)” does not fit in a QR code.")
        }
        defer { QRcode_free(code) }
        let modules = Int(code.pointee.width)
        func dark(_ x: Int, _ y: Int) -> Bool { code.pointee.data[y * modules + x] & 1 == 1 }
        var runs: [QRRun] = []
        for y in 0..<modules {
            var x = 0
            while x < modules {
                guard dark(x, y) else { x += 1; continue }
                var run = 1
                while x + run < modules, dark(x + run, y) { run += 1 }
                runs.append(QRRun(x: x, y: y, length: run))
                x += run
            }
        }
        return (modules, runs)
    }

    private static func qr(_ text: String, scale: Int) throws(Failure) -> Output {
        let (modules, runs) = try qrRuns(text)
        let quiet = 4
        let size = modules + 2 * quiet
        let path = runs.map { "M\($0.x + quiet) \($0.y + quiet)h\($0.length)v1h-\($0.length)Z" }.joined()
        let svg = """
            <svg xmlns="http://www.w3.org/2000/svg" width="\(size * scale)" height="\(size * scale)" viewBox="0 0 \(size) \(size)" shape-rendering="crispEdges" role="img" aria-label="\(escape(text))">
            <rect width="100%" height="100%" fill="#ffffff"/>
            <path fill="#000000" d="\(path)"/>
            </svg>

            """
        let px = size * scale
        var gray = [UInt8](repeating: 255, count: px * px)
        for run in runs {
            for dy in 0..<scale {
                let row = ((run.y + quiet) * scale + dy) * px + (run.x + quiet) * scale
                for dx in 0..<(run.length * scale) { gray[row + dx] = 0 }
            }
        }
        return Output(svg: svg, png: PNG.gray(width: px, height: px, pixels: gray))
    }

    static func escape(_ s: String) -> String {
        s.replacingOccurrences(of: "&", with: "&amp;").replacingOccurrences(of: "<", with: "&lt;")
            .replacingOccurrences(of: ">", with: "&gt;").replacingOccurrences(of: "\"", with: "&quot;")
    }
}

/// A minimal PNG writer for 8-bit greyscale images (zlib does the compression).
enum PNG {
    static func gray(width: Int, height: Int, pixels: [UInt8]) -> Data {
        var raw = [UInt8]()
        raw.reserveCapacity((width + 1) * height)
        for y in 0..<height {
            raw.append(0)  // filter: none
            raw += pixels[(y * width)..<((y + 1) * width)]
        }
        var compressedLength = compressBound(uLong(raw.count))
        var compressed = [UInt8](repeating: 0, count: Int(compressedLength))
        _ = compress2(&compressed, &compressedLength, raw, uLong(raw.count), 9)
        compressed.removeSubrange(Int(compressedLength)...)

        var png = Data([0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A])
        func chunk(_ type: String, _ body: [UInt8]) {
            var length = UInt32(body.count).bigEndian
            png.append(Data(bytes: &length, count: 4))
            let typed = Array(type.utf8) + body
            png.append(contentsOf: typed)
            var crc = UInt32(crc32(0, typed, uInt(typed.count))).bigEndian
            png.append(Data(bytes: &crc, count: 4))
        }
        func be32(_ v: Int) -> [UInt8] { [UInt8(v >> 24 & 0xFF), UInt8(v >> 16 & 0xFF), UInt8(v >> 8 & 0xFF), UInt8(v & 0xFF)] }
        chunk("IHDR", be32(width) + be32(height) + [8, 0, 0, 0, 0])  // 8-bit, greyscale
        chunk("IDAT", compressed)
        chunk("IEND", [])
        return png
    }
}
