import CPDF
import Foundation

/// A PDF made on the server, the one way the project makes PDFs: cairo draws onto a PDF surface,
/// pango lays out text (wrapping, any script; fonts found by fontconfig: Noto for Latin, Irish and
/// Chinese). Pages are A4 or US Letter, measured in points (1/72 inch) from the top left.
/// pango and fontconfig are not safe to use from several threads at once: documents are made one at
/// a time (`PDFDocument.make` holds a lock), on a caller's background thread.
/// The same drawing makes the on-screen preview of a page: `PDFDocument.preview` draws only that page
/// onto an image and answers a PNG, so what the screen shows is what the printer gets.
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

    /// A filled rectangle (a bar of a barcode, a module of a QR code), in points.
    public struct Rect: Sendable, Equatable {
        public var x: Double, y: Double, width: Double, height: Double
        public init(x: Double, y: Double, width: Double, height: Double) {
            (self.x, self.y, self.width, self.height) = (x, y, width, height)
        }
    }

    /// Points in a millimetre: the sheets are measured in millimetres, PDF pages in points.
    public static let pointsPerMM = 72 / 25.4

    private enum Output {
        case pdf
        /// One page (from 0) as an image of `scale` pixels a point.
        case png(page: Int, scale: Double)
    }

    /// A text's look: size in points, bold or not, grey or black; at most `maxLines` lines (the last
    /// one ends in "…" when the text is longer; 0: as many as it needs), centred, to the right (a
    /// column of numbers) or from the left.
    public struct Style: Sendable {
        public var size: Double
        public var bold: Bool
        public var grey: Bool
        public var maxLines: Int
        public var centred: Bool
        public var right: Bool
        public init(size: Double = 11, bold: Bool = false, grey: Bool = false, maxLines: Int = 0, centred: Bool = false, right: Bool = false) {
            (self.size, self.bold, self.grey, self.maxLines, self.centred, self.right) = (size, bold, grey, maxLines, centred, right)
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
    private let output: Output
    private let sink = Sink()
    private let surface: OpaquePointer
    private let cr: OpaquePointer
    /// The page being drawn, from 0 (-1 before the first).
    public private(set) var page = -1

    private static let write: cairo_write_func_t = { closure, data, length in
        guard let closure, let data else { return CAIRO_STATUS_WRITE_ERROR }
        let sink = Unmanaged<Sink>.fromOpaque(closure).takeUnretainedValue()
        sink.bytes.append(contentsOf: UnsafeBufferPointer(start: data, count: Int(length)))
        return CAIRO_STATUS_SUCCESS
    }

    private init(size: PageSize, title: String, output: Output) throws {
        self.size = size
        self.output = output
        switch output {
        case .pdf:
            guard let surface = cairo_pdf_surface_create_for_stream(Self.write, Unmanaged.passUnretained(sink).toOpaque(), size.width, size.height)
            else { throw Failure.cairo("no surface") }
            self.surface = surface
            cairo_pdf_surface_set_metadata(surface, CAIRO_PDF_METADATA_TITLE, title)
            cairo_pdf_surface_set_metadata(surface, CAIRO_PDF_METADATA_CREATOR, "Shelfmark")
        case .png(_, let scale):
            guard let surface = cairo_image_surface_create(CAIRO_FORMAT_RGB24, Int32((size.width * scale).rounded()), Int32((size.height * scale).rounded()))
            else { throw Failure.cairo("no surface") }
            self.surface = surface
        }
        guard let cr = cairo_create(surface) else { throw Failure.cairo("no context") }
        self.cr = cr
        if case .png(_, let scale) = output {
            cairo_set_source_rgb(cr, 1, 1, 1)
            cairo_paint(cr)
            cairo_scale(cr, scale, scale)
        }
    }

    deinit {
        cairo_destroy(cr)
        cairo_surface_destroy(surface)
    }

    /// Makes a document: `draw` adds its pages; the answer is the PDF's bytes.
    public static func make(size: PageSize = .a4, title: String, _ draw: (PDFDocument) throws -> Void) throws -> [UInt8] {
        try made(size: size, title: title, output: .pdf, draw)
    }

    /// Page `page` (from 0) of the document `draw` makes, as a PNG of `dpi` pixels an inch: the
    /// preview of what `make` prints. Only that page is drawn; a page past the end is blank.
    public static func preview(size: PageSize = .a4, page: Int, dpi: Double = 96, _ draw: (PDFDocument) throws -> Void) throws -> [UInt8] {
        try made(size: size, title: "", output: .png(page: page, scale: min(max(dpi, 18), 300) / 72), draw)
    }

    private static func made(size: PageSize, title: String, output: Output, _ draw: (PDFDocument) throws -> Void) throws -> [UInt8] {
        lock.lock()
        defer { lock.unlock() }
        let document = try PDFDocument(size: size, title: title, output: output)
        try draw(document)
        switch output {
        case .pdf:
            cairo_surface_finish(document.surface)
        case .png:
            cairo_surface_flush(document.surface)
            let status = cairo_surface_write_to_png_stream(document.surface, Self.write, Unmanaged.passUnretained(document.sink).toOpaque())
            guard status == CAIRO_STATUS_SUCCESS else { throw Failure.cairo(String(cString: cairo_status_to_string(status))) }
        }
        let status = cairo_surface_status(document.surface)
        guard status == CAIRO_STATUS_SUCCESS else { throw Failure.cairo(String(cString: cairo_status_to_string(status))) }
        return document.sink.bytes
    }

    /// Ends the page being drawn (if any) and starts a new one.
    public func newPage() {
        if page >= 0, case .pdf = output { cairo_show_page(cr) }
        page += 1
    }

    /// Whether what is drawn now shows: always in a PDF; in a preview, only on its page.
    public var drawing: Bool {
        switch output {
        case .pdf: true
        case .png(let target, _): page == target
        }
    }

    /// Whether this is the on-screen preview (which shows the edges of the labels; the PDF does not).
    public var isPreview: Bool {
        if case .png = output { return true }
        return false
    }

    /// Draws `text` at (x, y) wrapped to `width`, in `style` and `language` (pango picks the fonts and
    /// the line breaks of that language); answers the height it took.
    @discardableResult
    public func text(_ text: String, x: Double, y: Double, width: Double, style: Style = .body, language: String = "en") -> Double {
        if page < 0 { newPage() }
        // Off the previewed page the text is measured, not drawn: the pages break where they do in the PDF.
        guard drawing else { return height(of: text, width: width, style: style, language: language) }
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
        if style.maxLines > 0 {
            pango_layout_set_height(layout, -Int32(style.maxLines))
            pango_layout_set_ellipsize(layout, PANGO_ELLIPSIZE_END)
        }
        if style.centred { pango_layout_set_alignment(layout, PANGO_ALIGN_CENTER) }
        if style.right { pango_layout_set_alignment(layout, PANGO_ALIGN_RIGHT) }
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
        if page < 0 { newPage() }
        guard drawing else { return }
        cairo_set_source_rgb(cr, 0.7, 0.7, 0.7)
        cairo_set_line_width(cr, 0.5)
        cairo_move_to(cr, x, y)
        cairo_line_to(cr, x + width, y)
        cairo_stroke(cr)
    }

    /// Black rectangles: the bars of a barcode, the modules of a QR code.
    public func fill(_ rects: [Rect]) {
        if page < 0 { newPage() }
        guard drawing, !rects.isEmpty else { return }
        cairo_set_source_rgb(cr, 0, 0, 0)
        for r in rects { cairo_rectangle(cr, r.x, r.y, r.width, r.height) }
        cairo_fill(cr)
    }

    /// A thin grey outline with rounded corners (a label's or a card's edge, a line to cut along).
    public func outline(x: Double, y: Double, width: Double, height: Double, radius: Double = 0, grey: Double = 0.75) {
        if page < 0 { newPage() }
        guard drawing else { return }
        cairo_set_source_rgb(cr, grey, grey, grey)
        cairo_set_line_width(cr, 0.5)
        let r = min(radius, width / 2, height / 2)
        cairo_new_sub_path(cr)
        cairo_arc(cr, x + width - r, y + r, r, -.pi / 2, 0)
        cairo_arc(cr, x + width - r, y + height - r, r, 0, .pi / 2)
        cairo_arc(cr, x + r, y + height - r, r, .pi / 2, .pi)
        cairo_arc(cr, x + r, y + r, r, .pi, 3 * .pi / 2)
        cairo_close_path(cr)
        cairo_stroke(cr)
    }

    /// A picture (a cover) in the box (x, y, width, height), its pixels given as 32-bit words 0x00RRGGBB
    /// row by row; scaled to fit the box, centred, keeping its proportions.
    public func image(pixels: [UInt32], width: Int, height: Int, x: Double, y: Double, boxWidth: Double, boxHeight: Double) {
        if page < 0 { newPage() }
        guard drawing, width > 0, height > 0, pixels.count == width * height else { return }
        // A surface cairo owns (the PDF keeps a reference to it until the page is written), filled here.
        guard let picture = cairo_image_surface_create(CAIRO_FORMAT_RGB24, Int32(width), Int32(height)),
              cairo_surface_status(picture) == CAIRO_STATUS_SUCCESS, let data = cairo_image_surface_get_data(picture) else { return }
        defer { cairo_surface_destroy(picture) }
        let stride = Int(cairo_image_surface_get_stride(picture))
        pixels.withUnsafeBytes { source in
            for row in 0..<height {
                (data + row * stride).update(from: source.baseAddress!.assumingMemoryBound(to: UInt8.self) + row * width * 4, count: width * 4)
            }
        }
        cairo_surface_mark_dirty(picture)
        let scale = min(boxWidth / Double(width), boxHeight / Double(height))
        let (w, h) = (Double(width) * scale, Double(height) * scale)
        cairo_save(cr)
        cairo_translate(cr, x + (boxWidth - w) / 2, y + (boxHeight - h) / 2)
        cairo_scale(cr, scale, scale)
        cairo_set_source_surface(cr, picture, 0, 0)
        cairo_pattern_set_filter(cairo_get_source(cr), CAIRO_FILTER_GOOD)
        cairo_paint(cr)
        cairo_restore(cr)
    }
}
