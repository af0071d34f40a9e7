import Fluent
import Foundation
import Plot
import ShelfmarkCore

/// One page photo: the page with its markup layer in a zoomable viewer (pinch, double tap),
/// straightening by dragging the four corners over the original (placed at the page's edges when the
/// upload found them), markup with pen, pencil and highlighter in colours, straight lines by the ruler,
/// the eraser, undo and zoom, a quote from its text (OCR), share, download, delete.
struct PhotoPage: Sendable {
    var libraryID: UUID
    var photo: PhotoDTO
    var title: String

    static func make(photoID: UUID, library: LibraryContext, on db: any Database) async throws -> PhotoPage {
        let photo = try await PagePhotos.find(photoID, userID: library.user.id, library: library.libraryID, on: db)
        let title = try await Catalog.find(photo.titleID, library: library.libraryID, on: db)
        return PhotoPage(libraryID: library.libraryID, photo: photo.dto, title: title.title)
    }

    /// The markup as SVG over the page (the same drawing the editor makes), in the page's pixels.
    static func markupLayer(_ p: PhotoDTO) -> any Component {
        let w = Double(p.width), h = Double(p.height)
        return H.el(.svg, [.class: "markup", .viewBox: "0 0 \(p.width) \(p.height)", .ariaHidden: "true", .focusable: "false"]) {
            for stroke in p.markup.strokes {
                let points = stride(from: 0, to: stroke.points.count - 1, by: 2).map {
                    String(format: "%.1f,%.1f", stroke.points[$0] * w, stroke.points[$0 + 1] * h)
                }
                H.void(.polyline, [.points: points.joined(separator: " "), .stroke: stroke.color,
                                   .strokeWidth: String(format: "%.1f", stroke.width * w),
                                   .class: stroke.tool == "highlighter" ? "hl" : stroke.tool == "pencil" ? "pencil" : "pen"])
            }
        }
    }

    /// The pen's and pencil's colours, the first chosen at the start (the highlighter is yellow).
    static func colours(_ t: Strings) -> [(name: String, hex: String, label: String)] {
        [("red", "#d32f2f", t(.colourRed)), ("blue", "#1565c0", t(.colourBlue)), ("green", "#2e7d32", t(.colourGreen)),
         ("black", "#212121", t(.colourBlack))]
    }

    func render(_ page: PageContext) -> HTML {
        let t = page.t
        let (lib, p) = (libraryID, photo)
        let markupJSON = (try? String(decoding: JSONEncoder().encode(p.markup), as: UTF8.self)) ?? "{\"strokes\":[]}"
        let corners = (p.corners ?? [0.05, 0.05, 0.95, 0.05, 0.95, 0.95, 0.05, 0.95]).map { String(format: "%.4f", $0) }.joined(separator: ",")
        return Layout.page(page, title: t(.pagePhoto) + " · " + title) {
            H.el(.p, [:]) { H.link("‹ " + title, WebRoute.title(library: lib, title: p.titleId).path + "#photos") }
            H.el(.h1, [:]) { EscapedText(p.page.map { t.format(.pageOnly, $0) } ?? t(.pagePhoto)) }
            H.el(.div, [.class: "photo-view", .dataZoom: "", .role: "img", .ariaLabel: t(.pagePhoto) + " · " + title]) {
                H.el(.div, [.class: "zoom-inner"]) {
                    H.void(.img, [.src: p.image + "?v=\(Int(p.createdAt.timeIntervalSince1970))", .alt: "", .width: String(p.width),
                                  .height: String(p.height), .id: "page-image"])
                    Self.markupLayer(p)
                }
            }
            H.el(.p, [.class: "hint"]) { EscapedText(t(.zoomHint)) }
            H.el(.div, [.class: "actions"]) {
                H.form(WebRoute.photoQuote(library: lib, photo: p.id).path, csrf: page.csrf, attrs: [.class: "inline"]) {
                    H.button(t(.makeQuote), attrs: [.dataBusy: t(.readingText)])
                }
                H.el(.button, [.type: "button", .class: "button quiet", .dataShareFile: p.image, .dataShare: title, .hidden: ""]) { EscapedText(t(.share)) }
                H.el(.a, [.href: p.image, .download: "page.jpg", .class: "button quiet"]) { EscapedText(t(.download)) }
            }
            H.el(.details, [.class: "tool", .id: "crop"]) {
                H.el(.summary, [:]) { EscapedText(t(.straighten)) }
                H.el(.p, [.class: "hint"]) { EscapedText(t(.straightenHint)) }
                H.el(.div, [.class: "crop", .dataCrop: "f-corners"]) {
                    H.void(.img, [.src: p.original, .alt: t(.pagePhoto), .width: String(p.originalWidth), .height: String(p.originalHeight)])
                    H.el(.svg, [.class: "crop-lines", .viewBox: "0 0 1 1", .preserveAspectRatio: "none", .ariaHidden: "true"]) {
                        H.void(.polygon, [.points: "", .class: "quad"])
                    }
                    for (i, name) in [t(.cornerTopLeft), t(.cornerTopRight), t(.cornerBottomRight), t(.cornerBottomLeft)].enumerated() {
                        H.el(.button, [.type: "button", .class: "handle", .dataCorner: String(i), .ariaLabel: name]) { EmptyComponent() }
                    }
                }
                H.form(WebRoute.photoCorners(library: lib, photo: p.id).path, csrf: page.csrf, attrs: [.class: "inline-form"]) {
                    H.field(t(.cornersField), name: "corners", value: corners,
                            hint: t(.cornersHint), id: "f-corners", extra: [.pattern: "[0-9.,\\s]+", .autocomplete: "off"])
                    H.button(t(.straighten))
                }
                if p.corners != nil {
                    H.form(WebRoute.photoCorners(library: lib, photo: p.id).path, csrf: page.csrf, attrs: [.class: "inline"]) {
                        H.void(.input, [.type: "hidden", .name: "undo", .value: "1"])
                        H.button(t(.undoCrop), kind: "quiet")
                    }
                }
            }
            H.el(.details, [.class: "tool", .id: "markup"]) {
                H.el(.summary, [:]) { EscapedText(t(.markUp)) }
                H.el(.div, [.class: "markup-editor", .dataMarkup: "f-markup"]) {
                    H.el(.div, [.class: "chips", .role: "toolbar", .ariaLabel: t(.markUp)]) {
                        for (tool, label) in [("pen", t(.toolPen)), ("pencil", t(.toolPencil)), ("highlighter", t(.toolHighlighter)), ("eraser", t(.toolEraser))] {
                            H.el(.button, [.type: "button", .class: tool == "pen" ? "chip current" : "chip", .dataTool: tool,
                                           .ariaPressed: tool == "pen" ? "true" : "false"]) { EscapedText(label) }
                        }
                        H.el(.button, [.type: "button", .class: "chip", .dataRuler: "", .ariaPressed: "false"]) { EscapedText(t(.toolRuler)) }
                    }
                    H.el(.div, [.class: "chips", .role: "toolbar", .ariaLabel: t(.markupColour)]) {
                        for (i, colour) in Self.colours(t).enumerated() {
                            H.el(.button, [.type: "button", .class: "chip swatch " + colour.name + (i == 0 ? " current" : ""),
                                           .dataColour: colour.hex, .ariaPressed: i == 0 ? "true" : "false"]) { EscapedText(colour.label) }
                        }
                        H.el(.span, [.class: "spacer"]) { EmptyComponent() }
                        H.el(.button, [.type: "button", .class: "chip", .dataUndo: "", .disabled: ""]) { EscapedText(t(.markupUndo)) }
                        H.el(.button, [.type: "button", .class: "chip", .dataZoomStep: "-1", .ariaLabel: t(.zoomOut)]) { EscapedText("−") }
                        H.el(.button, [.type: "button", .class: "chip", .dataZoomStep: "1", .ariaLabel: t(.zoomIn)]) { EscapedText("+") }
                    }
                    H.el(.div, [.class: "markup-scroll"]) {
                        H.el(.div, [.class: "markup-canvas"]) {
                            H.void(.img, [.src: p.image, .alt: "", .width: String(p.width), .height: String(p.height)])
                            H.el(.canvas, [.width: String(p.width), .height: String(p.height), .ariaLabel: t(.markUp)]) { EmptyComponent() }
                        }
                    }
                }
                H.form(WebRoute.photoMarkup(library: lib, photo: p.id).path, csrf: page.csrf, attrs: [.class: "inline"]) {
                    H.void(.input, [.type: "hidden", .name: "markup", .id: "f-markup", .value: markupJSON])
                    H.button(t(.saveMarkup))
                }
            }
            H.form(WebRoute.photoDelete(library: lib, photo: p.id).path, csrf: page.csrf, attrs: [.class: "danger"]) {
                H.button(t(.deletePhoto), kind: "danger")
            }
        }
    }
}
