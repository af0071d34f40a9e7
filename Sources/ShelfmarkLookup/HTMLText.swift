/// Providers send descriptions as HTML fragments (Google Books) or Markdown-ish text (Open
/// Library). The catalog stores plain text with paragraphs separated by blank lines.
public enum HTMLText {
    public static func plain(_ html: String) -> String {
        var out = ""
        var tag = ""
        var inTag = false
        var entity = ""
        var inEntity = false
        for ch in html {
            if inTag {
                if ch == ">" {
                    inTag = false
                    let name = tag.lowercased().split(whereSeparator: { $0 == " " || $0 == "/" }).first.map(String.init) ?? ""
                    if name == "br" { out.append("\n") }
                    if ["p", "div", "li", "h1", "h2", "h3", "h4", "blockquote"].contains(name) && !out.hasSuffix("\n\n") {
                        out.append(out.hasSuffix("\n") ? "\n" : "\n\n")
                    }
                } else {
                    tag.append(ch)
                }
                continue
            }
            if inEntity {
                if ch == ";" {
                    inEntity = false
                    out.append(decode(entity) ?? "&\(entity);")
                } else if ch.isLetter || ch.isNumber || ch == "#", entity.count < 10 {
                    entity.append(ch)
                } else {
                    inEntity = false
                    out.append("&\(entity)")
                    out.append(ch)
                }
                continue
            }
            switch ch {
            case "<": inTag = true; tag = ""
            case "&": inEntity = true; entity = ""
            default: out.append(ch)
            }
        }
        if inEntity { out.append("&\(entity)") }
        if inTag { out.append("<" + tag) }  // a lone "<" was text, not a tag
        // Collapse runs of spaces and more than one blank line.
        var lines: [String] = []
        for line in out.split(separator: "\n", omittingEmptySubsequences: false) {
            let collapsed = line.split(whereSeparator: { $0 == " " || $0 == "\t" }).joined(separator: " ")
            if collapsed.isEmpty, lines.last?.isEmpty ?? true { continue }
            lines.append(collapsed)
        }
        while lines.last?.isEmpty == true { lines.removeLast() }
        return lines.joined(separator: "\n")
    }

    private static func decode(_ entity: String) -> String? {
        switch entity {
        case "amp": return "&"
        case "lt": return "<"
        case "gt": return ">"
        case "quot": return "\""
        case "apos", "#39": return "'"
        case "nbsp": return " "
        case "mdash": return "—"
        case "ndash": return "–"
        case "hellip": return "…"
        case "rsquo": return "’"
        case "lsquo": return "‘"
        case "rdquo": return "”"
        case "ldquo": return "“"
        default:
            if entity.hasPrefix("#x") || entity.hasPrefix("#X"), let v = UInt32(entity.dropFirst(2), radix: 16), let u = Unicode.Scalar(v) {
                return String(Character(u))
            }
            if entity.hasPrefix("#"), let v = UInt32(entity.dropFirst()), let u = Unicode.Scalar(v) {
                return String(Character(u))
            }
            return nil
        }
    }
}
