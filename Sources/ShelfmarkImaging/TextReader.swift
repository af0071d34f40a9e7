import CImaging
import Foundation
import ShelfmarkCore

/// OCR with Tesseract (English model, Debian's tesseract-ocr-eng): the fallback when a photo has no
/// barcode. Answers the text and every ISBN in it (`ISBN.find`, which refuses phone numbers and
/// prices). Tesseract handles are expensive to start (the model loads) and not thread-safe: a small
/// pool keeps started ones for reuse, one per concurrent read.
public final class TextReader: @unchecked Sendable {
    public struct Result: Sendable, Equatable {
        public var text: String
        public var isbns: [ISBN]
    }

    public enum Failure: Error, CustomStringConvertible {
        case unavailable
        public var description: String { "Text recognition is not available: the Tesseract English model (tesseract-ocr-eng) is missing." }
    }

    public static let shared = TextReader()
    /// For photographed book pages: the reader's language with English (a German reader's book
    /// may be English), when its model is installed (Debian's tesseract-ocr-deu, -gle, -chi-sim).
    public static func pages(language code: String) -> TextReader {
        switch code.prefix(2) {
        case "de": pagesDE
        case "ga": pagesGA
        case "zh": pagesZH
        default: shared
        }
    }
    private static let pagesDE = TextReader(languages: ["deu", "eng"])
    private static let pagesGA = TextReader(languages: ["gle", "eng"])
    private static let pagesZH = TextReader(languages: ["chi_sim", "eng"])

    private let languages: String

    public init(languages: [String] = ["eng"]) {
        // Only the models Tesseract can find: a missing one would make every start fail.
        let folders = ["/usr/share/tesseract-ocr/5/tessdata", "/usr/share/tesseract-ocr/4.00/tessdata", "/usr/share/tessdata"]
        let present = languages.filter { lang in
            lang == "eng" || folders.contains { FileManager.default.fileExists(atPath: "\($0)/\(lang).traineddata") }
        }
        self.languages = (present.isEmpty ? ["eng"] : present).joined(separator: "+")
    }

    private let lock = NSLock()
    private var idle: [OpaquePointer] = []
    private let maxIdle = 2

    deinit {
        for handle in idle { TessBaseAPIDelete(handle) }
    }

    public func read(_ data: Data) throws -> Result {
        try read(try Bitmap.decodeGray(data))
    }

    func read(_ image: Bitmap) throws -> Result {
        let handle = try checkOut()
        defer { checkIn(handle) }
        // Tesseract likes text 20–40 px high: small photos are enlarged; large ones reduced to
        // 2,000 px on the long side, which keeps a phone photo's recognition well under a second.
        let longSide = max(image.width, image.height)
        let factor = longSide < 1000 ? min(3, 1600 / Double(longSide)) : (longSide > 2000 ? 2000 / Double(longSide) : 1)
        guard let prepared = (factor == 1 ? image : image.scaled(factor)) else { return Result(text: "", isbns: []) }
        TessBaseAPISetImage2(handle, prepared.pointer)
        guard let raw = TessBaseAPIGetUTF8Text(handle) else { return Result(text: "", isbns: []) }
        let text = String(cString: raw)
        TessDeleteText(raw)
        TessBaseAPIClear(handle)
        let cleaned = text.split(separator: "\n", omittingEmptySubsequences: true)
            .map { $0.trimmingCharacters(in: .whitespaces) }.filter { !$0.isEmpty }.joined(separator: "\n")
        return Result(text: cleaned, isbns: ISBN.find(in: cleaned))
    }

    private func checkOut() throws -> OpaquePointer {
        lock.lock()
        if let handle = idle.popLast() {
            lock.unlock()
            return handle
        }
        lock.unlock()
        guard let handle = TessBaseAPICreate() else { throw Failure.unavailable }
        guard TessBaseAPIInit3(handle, nil, languages) == 0 || TessBaseAPIInit3(handle, nil, "eng") == 0 else {
            TessBaseAPIDelete(handle)
            throw Failure.unavailable
        }
        TessBaseAPISetPageSegMode(handle, PSM_AUTO)
        _ = TessBaseAPISetVariable(handle, "debug_file", "/dev/null")
        return handle
    }

    private func checkIn(_ handle: OpaquePointer) {
        lock.lock()
        defer { lock.unlock() }
        if idle.count < maxIdle { idle.append(handle) } else { TessBaseAPIDelete(handle) }
    }
}
