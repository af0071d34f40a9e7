import Foundation
import Plot
import Vapor

/// Small helpers over Plot's components, so that pages read as HTML does. Text is escaped by the
/// app's `EscapedText` (below); Plot writes attribute values as given, so every attribute goes through `H`,
/// which escapes it; pages never build HTML from strings.
enum H {
    /// An attribute value escaped: `&`, `"`, `'`, `<` and `>`.
    static func escapeAttribute(_ value: String) -> String { escape(value, quotes: true) }

    /// Text escaped for an element's content: `&`, `<` and `>`.
    static func escapeText(_ value: String) -> String { escape(value, quotes: false) }

    private static func escape(_ value: String, quotes: Bool) -> String {
        // Most values (class names, ids, paths, names) need nothing: checked on the bytes first.
        if !value.utf8.contains(where: { $0 == 0x26 || $0 == 0x3C || $0 == 0x3E || (quotes && ($0 == 0x22 || $0 == 0x27)) }) { return value }
        var out = ""
        out.reserveCapacity(value.utf8.count + 16)
        for ch in value.unicodeScalars {
            switch ch {
            case "&": out += "&amp;"
            case "<": out += "&lt;"
            case ">": out += "&gt;"
            case "\"" where quotes: out += "&quot;"
            case "'" where quotes: out += "&#39;"
            default: out.unicodeScalars.append(ch)
            }
        }
        return out
    }

    /// `<name attrs…>content</name>`; attributes whose value is nil are left out, "" renders bare.
    /// The element is written straight to text here (its content rendered once, its attribute values
    /// escaped by `escapeAttribute`) and handed to Plot as finished HTML: building it as Plot's nested
    /// element and attribute wrappers made rendering the larger part of a page's time (measured by
    /// `scripts/bench-pages.py`).
    static func el(_ tag: Tag, _ attrs: Attrs = [:], @ComponentBuilder _ content: @escaping () -> any Component = { EmptyComponent() }) -> any Component {
        var html = "<" + tag.rawValue
        append(attrs, to: &html)
        html += ">"
        render(content(), into: &html)
        html += "</" + tag.rawValue + ">"
        return RawHTML(html: html)
    }

    /// A void element: `<input …>`, `<img …>`.
    static func void(_ tag: Tag, _ attrs: Attrs) -> any Component {
        var html = "<" + tag.rawValue
        append(attrs, to: &html)
        html += "/>"
        return RawHTML(html: html)
    }

    /// Appends a component's HTML: the kinds `H` and `EscapedText` make (finished HTML, escaped text) and
    /// groups of them are joined directly; anything else is rendered by Plot.
    static func render(_ component: any Component, into html: inout String) {
        if let raw = component as? RawHTML { html += raw.html; return }
        if let text = component as? EscapedText { html += text.html; return }
        if let group = component as? ComponentGroup {
            for member in group.members { render(member, into: &html) }
            return
        }
        if component is EmptyComponent { return }
        html += component.render(indentedBy: nil)
    }

    /// ` name="escaped value"` for each attribute with a value, ` name` for an empty one.
    private static func append(_ attrs: Attrs, to html: inout String) {
        for (key, value) in attrs.pairs {
            guard let value else { continue }
            html += " " + key.rawValue
            if !value.isEmpty { html += "=\"" + escapeAttribute(value) + "\"" }
        }
    }

    static func text(_ s: String) -> any Component { EscapedText(s) }

    /// A labelled form field: every control has a `<label for>` (tested). A refusal about this field
    /// (`error`) is shown under it, tied to the control (`aria-invalid`, `aria-describedby`).
    static func field(_ label: String, name: String, type: String = "text", value: String? = nil, hint: String? = nil,
                      required: Bool = false, id customID: String? = nil, error: String? = nil, extra: Attrs = [:]) -> any Component {
        let id = customID ?? "f-" + name
        var attrs: [(Attr, String?)] = [(.type, type), (.id, id), (.name, name), (.value, value)]
        if required { attrs.append((.required, "")) }
        attrs += described(id, hint: hint, error: error)
        attrs += extra.pairs
        return el(.div, [.class: error == nil ? "field" : "field invalid"]) {
            el(.label, [.for: id]) { EscapedText(label) }
            void(.input, Attrs(attrs))
            if let error { el(.p, [.class: "field-error", .id: id + "-error"]) { EscapedText(error) } }
            if let hint { el(.p, [.class: "hint", .id: id + "-hint"]) { EscapedText(hint) } }
        }
    }

    static func textarea(_ label: String, name: String, value: String?, rows: Int = 4, error: String? = nil) -> any Component {
        let id = "f-" + name
        return el(.div, [.class: error == nil ? "field" : "field invalid"]) {
            el(.label, [.for: id]) { EscapedText(label) }
            el(.textarea, Attrs([(.id, id), (.name, name), (.rows, String(rows))] + described(id, hint: nil, error: error))) { EscapedText(value ?? "") }
            if let error { el(.p, [.class: "field-error", .id: id + "-error"]) { EscapedText(error) } }
        }
    }

    private static func described(_ id: String, hint: String?, error: String?) -> [(Attr, String?)] {
        let ids = [error.map { _ in id + "-error" }, hint.map { _ in id + "-hint" }].compactMap { $0 }
        var attrs: [(Attr, String?)] = ids.isEmpty ? [] : [(.ariaDescribedby, ids.joined(separator: " "))]
        if error != nil { attrs.append((.ariaInvalid, "true")) }
        return attrs
    }

    /// A POST form carrying the CSRF token.
    static func form(_ action: String, csrf: String, attrs: Attrs = [:], @ComponentBuilder _ content: @escaping () -> any Component) -> any Component {
        var all: [(Attr, String?)] = [(.method, "post"), (.action, action)]
        all += attrs.pairs
        return el(.form, Attrs(all)) {
            void(.input, [.type: "hidden", .name: CSRF.field, .value: csrf])
            content()
        }
    }

    static func button(_ title: String, kind: String = "primary", attrs: Attrs = [:]) -> any Component {
        var all: [(Attr, String?)] = [(.type, "submit"), (.class, "button " + kind)]
        all += attrs.pairs
        return el(.button, Attrs(all)) { EscapedText(title) }
    }

    static func link(_ title: String, _ href: String, cls: String? = nil) -> any Component {
        el(.a, [.href: href, .class: cls]) { EscapedText(title) }
    }
}

/// Finished HTML made by `H` (its text and attributes already escaped).
struct RawHTML: Component {
    let html: String
    var body: any Component { Node<Any>.raw(html) }
}

/// Text in a page, escaped. The app's views use it instead of Plot's `Text` (a name of its own, so
/// neither shadows the other): Plot's escaping builds a string per character and was a large part
/// of a list page's time (`scripts/bench-pages.py`).
struct EscapedText: Component {
    let html: String
    init(_ string: String) { html = H.escapeText(string) }
    var body: any Component { Node<Any>.raw(html) }
}

/// Attributes in the order written; a nil value leaves the attribute out.
struct Attrs: ExpressibleByDictionaryLiteral {
    var pairs: [(Attr, String?)]
    init(dictionaryLiteral elements: (Attr, String?)...) { pairs = elements }
    init(_ pairs: [(Attr, String?)]) { self.pairs = pairs }
}

/// The elements pages use: a misspelt element does not compile. Add a case to use another.
enum Tag: String, Sendable {
    case a, article, button, dd, details, div, dl, dt, fieldset, footer, form, h1, h2, h3, header, img, input, label, legend, li, main
    case nav, ol, option, p, path, progress, section, select, small, span, strong, summary, svg, table, tbody, td, textarea, th, thead
    case datalist, time, tr, ul, video, pre, code
    // SVG charts
    case figure, figcaption, tfoot, title, line, rect, circle, text, polyline, polygon, canvas, blockquote, meter
}

/// The attributes pages use: a misspelt attribute does not compile. Add a case to use another.
enum Attr: String, Sendable {
    case formaction
    case autofocus, list
    case datetime
    case accept, action, alt, autocapitalize, autocomplete, capture, checked, `class`, d, disabled, enctype, fill, focusable
    case `for`, height, hidden, href, id, inputmode, lang, loading, max, method, min, minlength, muted, name, `open`, pattern
    case placeholder, playsinline, rel, required, role, rows, selected, src, step, target, title, type, value, viewBox, width
    // ARIA and the data attributes app.js reads
    case ariaCurrent = "aria-current"
    case ariaDescribedby = "aria-describedby"
    case ariaHidden = "aria-hidden"
    case ariaInvalid = "aria-invalid"
    case ariaLabel = "aria-label"
    case ariaLive = "aria-live"
    case ariaPressed = "aria-pressed"
    case dataAutosubmit = "data-autosubmit"
    case dataOffline = "data-offline"
    case dataTexts = "data-texts"
    case dataUser = "data-user"
    case dataLabel = "data-label"
    case dataBusy = "data-busy"
    case dataHideWithJs = "data-hide-with-js"
    case dataLiveSearch = "data-live-search"
    case dataRefresh = "data-refresh"
    case dataScanStart = "data-scan-start"
    case dataScanStop = "data-scan-stop"
    case dataReload = "data-reload"
    case dataListBeside = "data-list-beside"
    case dataMemberLoans = "data-member-loans"
    case dataListKind = "data-list-kind"
    case dataNfcWrite = "data-nfc-write"
    case dataNfcCode = "data-nfc-code"
    case dataNfcRead = "data-nfc-read"
    case dataNfcHold = "data-nfc-hold"
    case dataNfcWritten = "data-nfc-written"
    case dataNfcFailed = "data-nfc-failed"
    case dataNfcStatus = "data-nfc-status"
    case dataScanInsecure = "data-scan-insecure"
    case dataScanStatus = "data-scan-status"
    case dataNothing = "data-nothing"
    case dataScanTarget = "data-scan-target"
    case dataScanner = "data-scanner"
    case dataShare = "data-share"
    case dataShareText = "data-share-text"
    case dataShareUrl = "data-share-url"
    case dataPrint = "data-print"
    case dataScanFor = "data-scan-for"
    case dataScanKind = "data-scan-kind"
    case dataSuggestMembers = "data-suggest-members"
    case dataVoice = "data-voice"
    case dataVoiceLang = "data-voice-lang"
    case dataListening = "data-listening"
    case maxlength, scope, download, points, stroke, preserveAspectRatio, readonly, tabindex
    case strokeWidth = "stroke-width"
    case dataZoom = "data-zoom"
    case dataCrop = "data-crop"
    case dataCorner = "data-corner"
    case dataMarkup = "data-markup"
    case dataTool = "data-tool"
    case dataRuler = "data-ruler"
    case dataColour = "data-colour"
    case dataUndo = "data-undo"
    case dataZoomStep = "data-zoom-step"
    case dataShareFile = "data-share-file"
    // SVG
    case x, y, x1, y1, x2, y2, rx, cx, cy, r, transform
    case strokeDasharray = "stroke-dasharray"
    case textAnchor = "text-anchor"
    case ariaLabelledby = "aria-labelledby"
}
