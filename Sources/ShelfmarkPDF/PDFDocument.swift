import CPDF
import Foundation

/// A PDF made on the server, the one way the project makes PDFs: cairo draws onto a PDF surface,
/// pango lays out text (wrapping, any script; fonts found by fontconfig: Noto for Latin, Irish and
/// Chinese). Pages are A4 or US Letter, measured in points (1/72 inch) from the top left.
/// pango and fontconfig are not safe to use from several threads at once: documents are made one at
/// a time (`PDFDocument.make` holds a lock), on a caller's background thread.
public final class PDFDocument {
    public struct PageSize: Sendable, Equatable {
        public var width: Double
        public var height: Double
        public static let a4 = PageSize(width: 595.28, height: 841.89)
        public static let letter = PageSize(width: 612, height: 792)
    }

    public enum Failure: Error, Equatable {
        case cairo(String)
    }

    /// A text's look: size in points, bold or not, grey or black.
    public struct Style: Sendable {
        public var size: Double
        public var bold: Bool
        public var grey: Bool
        public init(size: Double = 11, bold: Bool = false, grey: Bool = false) {
            (self.size, self.bold, self.grey) = (size, bold, grey)
        }
        public static let body = Style()
        public static let heading = Style(size: 16, bold: true)
        public static let small = Style(size: 9, grey: true)
    }

    private static let lock = NSLock()

    private final class Sink {
        var bytes: [UInt8] = []
    }

    public let size: PageSize
    private let sink = Sink()
    private let surface: OpaquePointer
    private let cr: OpaquePointer
    private var pageStarted = false

    private init(size: PageSize, title: String) throws {
        self.size = size
        let box = Unmanaged.passUnretained(sink).toOpaque()
        guard let surface = cairo_pdf_surface_create_for_stream({ closure, data, length in
            guard let closure, let data else { return CAIRO_STATUS_WRITE_ERROR }
            let sink = Unmanaged<Sink>.fromOpaque(closure).takeUnretainedValue()
            sink.bytes.append(contentsOf: UnsafeBufferPointer(start: data, count: Int(length)))
            return CAIRO_STATUS_SUCCESS
        }, box, size.width, size.height) else { throw Failure.cairo("no surface") }
        self.surface = surface
        cairo_pdf_surface_set_metadata(surface, CAIRO_PDF_METADATA_TITLE, title)
        cairo_pdf_surface_set_metadata(surface, CAIRO_PDF_METADATA_CREATOR, "Shelfmark")
        guard let cr = cairo_create(surface) else { throw Failure.cairo("no context") }
        self.cr = cr
    }

    deinit {
        cairo_destroy(cr)
        cairo_surface_destroy(surface)
    }

    /// Makes a document: `draw` adds its pages; the answer is the PDF's bytes.
    public static func make(size: PageSize = .a4, title: String, _ draw: (PDFDocument) throws -> Void) throws -> [UInt8] {
        lock.lock()
        defer { lock.unlock() }
        let document = try PDFDocument(size: size, title: title)
        try draw(document)
        cairo_surface_finish(document.surface)
        let status = cairo_surface_status(document.surface)
        guard status == CAIRO_STATUS_SUCCESS else { throw Failure.cairo(String(cString: cairo_status_to_string(status))) }
        return document.sink.bytes
    }

    /// Ends the page being drawn (if any) and starts a new one.
    public func newPage() {
        if pageStarted { cairo_show_page(cr) }
        pageStarted = true
    }

    /// Draws `text` at (x, y) wrapped to `width`, in `style` and `language` (pango picks the fonts and
    /// the line breaks of that language); answers the height it took.
    @discardableResult
    public func text(_ text: String, x: Double, y: Double, width: Double, style: Style = .body, language: String = "en") -> Double {
        if !pageStarted { newPage() }
        return laidOut(text, width: width, style: style, language: language) { layout in
            let grey = style.grey ? 0.35 : 0
            cairo_set_source_rgb(cr, grey, grey, grey)
            cairo_move_to(cr, x, y)
            pango_cairo_show_layout(cr, layout)
        }
    }

    /// The height `text` would take at `width` (to decide whether it still fits on the page).
    public func height(of text: String, width: Double, style: Style = .body, language: String = "en") -> Double {
        laidOut(text, width: width, style: style, language: language) { _ in }
    }

    /// `text` laid out by pango at `width` in `style` and `language`, handed to `use`; answers its height.
    private func laidOut(_ text: String, width: Double, style: Style, language: String, _ use: (OpaquePointer) -> Void) -> Double {
        guard let layout = pango_cairo_create_layout(cr) else { return 0 }
        defer { g_object_unref(UnsafeMutableRawPointer(layout)) }
        let font = pango_font_description_from_string("Noto Sans, Noto Sans CJK SC, sans-serif \(style.bold ? "Bold" : "") \(style.size)")
        defer { pango_font_description_free(font) }
        pango_layout_set_font_description(layout, font)
        pango_layout_set_width(layout, Int32(width * Double(PANGO_SCALE)))
        pango_layout_set_wrap(layout, PANGO_WRAP_WORD_CHAR)
        let attributes = pango_attr_list_new()
        pango_attr_list_insert(attributes, pango_attr_language_new(pango_language_from_string(language)))
        pango_layout_set_attributes(layout, attributes)
        pango_attr_list_unref(attributes)
        pango_layout_set_text(layout, text, -1)
        use(layout)
        var logical = PangoRectangle()
        pango_layout_get_extents(layout, nil, &logical)
        return Double(logical.height) / Double(PANGO_SCALE)
    }

    /// A thin horizontal line.
    public func rule(x: Double, y: Double, width: Double) {
        if !pageStarted { newPage() }
        cairo_set_source_rgb(cr, 0.7, 0.7, 0.7)
        cairo_set_line_width(cr, 0.5)
        cairo_move_to(cr, x, y)
        cairo_line_to(cr, x + width, y)
        cairo_stroke(cr)
    }
}
