import CPDF
import CSVG
import Foundation

/// The installable app's icons, drawn from the project's own SVG when the server starts:
/// librsvg renders the SVG into a cairo image, written as PNG. A maskable icon (Android's adaptive
/// icons cut it to a circle or a squircle) has the drawing in the middle 80 % on the icon's own
/// background colour, so nothing that matters is cut off.
public enum IconRenderer {
    public enum Failure: Error, CustomStringConvertible {
        case unreadableSVG(String)
        case cannotDraw

        public var description: String {
            switch self {
            case .unreadableSVG(let reason): "The icon SVG cannot be read: \(reason)"
            case .cannotDraw: "The icon could not be drawn."
            }
        }
    }

    /// A `size`×`size` PNG of the SVG. `maskable`: drawn at 80 % on `background` (RGB 0–1).
    public static func png(svg: Data, size: Int, maskable: Bool = false, background: (Double, Double, Double) = (1, 1, 1)) throws -> Data {
        var error: UnsafeMutablePointer<GError>?
        let handle: UnsafeMutablePointer<RsvgHandle>? = svg.withUnsafeBytes { raw in
            rsvg_handle_new_from_data(raw.baseAddress?.assumingMemoryBound(to: UInt8.self), gsize(raw.count), &error)
        }
        guard let handle else {
            let reason = error.map { String(cString: $0.pointee.message) } ?? "unknown"
            if error != nil { g_error_free(error) }
            throw Failure.unreadableSVG(reason)
        }
        defer { g_object_unref(UnsafeMutableRawPointer(handle)) }
        guard let surface = cairo_image_surface_create(CAIRO_FORMAT_ARGB32, Int32(size), Int32(size)) else { throw Failure.cannotDraw }
        defer { cairo_surface_destroy(surface) }
        guard let cr = cairo_create(surface) else { throw Failure.cannotDraw }
        defer { cairo_destroy(cr) }
        var inset = 0.0
        if maskable {
            cairo_set_source_rgb(cr, background.0, background.1, background.2)
            cairo_paint(cr)
            inset = Double(size) * 0.1
        }
        var viewport = RsvgRectangle(x: inset, y: inset, width: Double(size) - 2 * inset, height: Double(size) - 2 * inset)
        guard rsvg_handle_render_document(handle, cr, &viewport, &error) != 0 else {
            if error != nil { g_error_free(error) }
            throw Failure.cannotDraw
        }
        cairo_surface_flush(surface)
        final class Sink { var data = Data() }
        let sink = Sink()
        let status = cairo_surface_write_to_png_stream(surface, { closure, bytes, length in
            guard let closure, let bytes else { return CAIRO_STATUS_WRITE_ERROR }
            Unmanaged<Sink>.fromOpaque(closure).takeUnretainedValue().data.append(bytes, count: Int(length))
            return CAIRO_STATUS_SUCCESS
        }, Unmanaged.passUnretained(sink).toOpaque())
        guard status == CAIRO_STATUS_SUCCESS else { throw Failure.cannotDraw }
        return sink.data
    }
}
