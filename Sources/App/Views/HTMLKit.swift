import Foundation
import Plot
import Vapor

/// Small helpers over Plot's components, so that pages read as HTML does. Plot escapes text but
/// writes attribute values as given, so every attribute goes through `H`, which escapes it; pages
/// never build HTML from strings.
enum H {
    static func escapeAttribute(_ value: String) -> String {
        var out = ""
        out.reserveCapacity(value.count)
        for ch in value {
            switch ch {
            case "&": out += "&amp;"
            case "\"": out += "&quot;"
            case "'": out += "&#39;"
            case "<": out += "&lt;"
            case ">": out += "&gt;"
            default: out.append(ch)
            }
        }
        return out
    }

    /// `<name attrs…>content</name>`; attributes whose value is nil are left out, "" renders bare.
    static func el(_ name: String, _ attrs: Attrs = [:], @ComponentBuilder _ content: @escaping () -> any Component = { EmptyComponent() }) -> any Component {
        var c: any Component = Element(name: name) { content() }
        for (key, value) in attrs.pairs {
            guard let value else { continue }
            c = value.isEmpty ? c.attribute(Attribute<Any>(name: key, value: nil, ignoreIfValueIsEmpty: false))
                : c.attribute(named: key, value: escapeAttribute(value))
        }
        return c
    }

    /// A void element: `<input …>`, `<img …>`.
    static func void(_ name: String, _ attrs: Attrs) -> any Component {
        let attributes: [Attribute<Any>] = attrs.pairs.compactMap { key, value in
            guard let value else { return nil }
            return Attribute<Any>(name: key, value: value.isEmpty ? nil : escapeAttribute(value), ignoreIfValueIsEmpty: false)
        }
        return Node<Any>.element(Element<Any>.selfClosed(named: name, attributes: attributes))
    }

    static func text(_ s: String) -> any Component { Text(s) }

    /// A labelled form field: every control has a `<label for>` (tested). A refusal about this field
    /// (`error`) is shown under it, tied to the control (`aria-invalid`, `aria-describedby`).
    static func field(_ label: String, name: String, type: String = "text", value: String? = nil, hint: String? = nil,
                      required: Bool = false, id customID: String? = nil, error: String? = nil, extra: Attrs = [:]) -> any Component {
        let id = customID ?? "f-" + name
        var attrs: [(String, String?)] = [("type", type), ("id", id), ("name", name), ("value", value)]
        if required { attrs.append(("required", "")) }
        attrs += described(id, hint: hint, error: error)
        attrs += extra.pairs
        return el("div", ["class": error == nil ? "field" : "field invalid"]) {
            el("label", ["for": id]) { Text(label) }
            void("input", Attrs(attrs))
            if let error { el("p", ["class": "field-error", "id": id + "-error"]) { Text(error) } }
            if let hint { el("p", ["class": "hint", "id": id + "-hint"]) { Text(hint) } }
        }
    }

    static func textarea(_ label: String, name: String, value: String?, rows: Int = 4, error: String? = nil) -> any Component {
        let id = "f-" + name
        return el("div", ["class": error == nil ? "field" : "field invalid"]) {
            el("label", ["for": id]) { Text(label) }
            el("textarea", Attrs([("id", id), ("name", name), ("rows", String(rows))] + described(id, hint: nil, error: error))) { Text(value ?? "") }
            if let error { el("p", ["class": "field-error", "id": id + "-error"]) { Text(error) } }
        }
    }

    private static func described(_ id: String, hint: String?, error: String?) -> [(String, String?)] {
        let ids = [error.map { _ in id + "-error" }, hint.map { _ in id + "-hint" }].compactMap { $0 }
        var attrs: [(String, String?)] = ids.isEmpty ? [] : [("aria-describedby", ids.joined(separator: " "))]
        if error != nil { attrs.append(("aria-invalid", "true")) }
        return attrs
    }

    /// A POST form carrying the CSRF token.
    static func form(_ action: String, csrf: String, attrs: Attrs = [:], @ComponentBuilder _ content: @escaping () -> any Component) -> any Component {
        var all: [(String, String?)] = [("method", "post"), ("action", action)]
        all += attrs.pairs
        return el("form", Attrs(all)) {
            void("input", ["type": "hidden", "name": CSRF.field, "value": csrf])
            content()
        }
    }

    static func button(_ title: String, kind: String = "primary", attrs: Attrs = [:]) -> any Component {
        var all: [(String, String?)] = [("type", "submit"), ("class", "button " + kind)]
        all += attrs.pairs
        return el("button", Attrs(all)) { Text(title) }
    }

    static func link(_ title: String, _ href: String, cls: String? = nil) -> any Component {
        el("a", ["href": href, "class": cls]) { Text(title) }
    }
}

/// Attributes in the order written; a nil value leaves the attribute out.
struct Attrs: ExpressibleByDictionaryLiteral {
    var pairs: [(String, String?)]
    init(dictionaryLiteral elements: (String, String?)...) { pairs = elements }
    init(_ pairs: [(String, String?)]) { self.pairs = pairs }
}
