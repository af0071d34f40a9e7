import Foundation

/// An email address with an optional display name ("Seán Ó Briain <sean@example.ie>").
public struct MailAddress: Sendable, Equatable {
    public var name: String
    public var address: String

    public init(_ address: String, name: String = "") {
        self.address = address
        self.name = name
    }

    /// Whether `text` is an address a message can be sent to (`EmailAddress`, the one parser).
    public static func isValid(_ text: String) -> Bool { EmailAddress(parsing: text) != nil }
}

/// An address a message can be sent to, as every door takes it (the API, the forms, a class list, a
/// restore): one `@`, no spaces, quotes, angle brackets, line breaks or other control or format
/// characters (so it can break neither a header nor an SMTP command), at most 254 bytes, at most 64
/// before the `@`, a domain with a dot that neither starts nor ends with one.
public struct EmailAddress: Sendable, Hashable, CustomStringConvertible {
    public let text: String
    public static let maxLength = 254

    public init?(parsing text: String) {
        guard !text.isEmpty, text.utf8.count <= Self.maxLength else { return nil }
        let scalars = text.unicodeScalars
        guard scalars.allSatisfy({ s in
            switch s.properties.generalCategory {
            case .control, .format, .lineSeparator, .paragraphSeparator, .spaceSeparator, .unassigned, .surrogate, .privateUse: false
            default: s.value > 0x20 && !"<>()[]\\,;:\"".unicodeScalars.contains(s)
            }
        }), scalars.filter({ $0 == "@" }).count == 1, let at = text.firstIndex(of: "@") else { return nil }
        let local = text[..<at], domain = text[text.index(after: at)...]
        guard !local.isEmpty, local.utf8.count <= 64, domain.contains("."), !domain.hasPrefix("."), !domain.hasSuffix("."),
              !domain.contains("..") else { return nil }
        self.text = text
    }

    public var description: String { text }
}

/// A file sent with a message: its name as the recipient sees it, its media type and its bytes.
public struct MailAttachment: Sendable, Equatable, Codable {
    public var name: String
    public var type: String
    public var data: Data

    public init(name: String, type: String, data: Data) {
        (self.name, self.type, self.data) = (name, type, data)
    }
}

/// One email as RFC 5322 and MIME write it: UTF-8 text in quoted-printable, names and subject as
/// RFC 2047 encoded words when they are not plain ASCII, lines ending in CRLF and folded at 78
/// characters; with attachments, `multipart/mixed` with each file in base64. `bytes` is what goes
/// after SMTP's DATA (before dot-stuffing).
public struct MailMessage: Sendable, Equatable {
    public var from: MailAddress
    public var to: MailAddress
    public var replyTo: MailAddress?
    public var subject: String
    public var text: String
    public var language: String
    public var date: Date
    /// The part after `@` in the Message-ID (the sender's domain).
    public var id: String
    public var attachments: [MailAttachment]

    public init(from: MailAddress, to: MailAddress, replyTo: MailAddress? = nil, subject: String, text: String,
                language: String, date: Date, id: String, attachments: [MailAttachment] = []) {
        self.from = from
        self.to = to
        self.replyTo = replyTo
        self.subject = subject
        self.text = text
        self.language = language
        self.date = date
        self.id = id
        self.attachments = attachments
    }

    public var messageID: String {
        let domain = from.address.split(separator: "@").last.map(String.init) ?? "shelfmark.invalid"
        return "<\(id)@\(domain)>"
    }

    /// The whole message: headers, a blank line, the body; CRLF line ends.
    public var bytes: [UInt8] {
        var headers: [String] = []
        headers.append(Self.header("Date", Self.rfc5322Date(date)))
        headers.append(Self.header("From", Self.addressField(from)))
        headers.append(Self.header("To", Self.addressField(to)))
        if let replyTo { headers.append(Self.header("Reply-To", Self.addressField(replyTo))) }
        headers.append(Self.header("Subject", Self.encodedWords(subject, field: "Subject")))
        headers.append("Message-ID: \(messageID)")
        headers.append("Content-Language: \(language)")
        headers.append("Auto-Submitted: auto-generated")
        headers.append("MIME-Version: 1.0")
        let textPart = "Content-Type: text/plain; charset=UTF-8\r\nContent-Transfer-Encoding: quoted-printable\r\n\r\n" + Self.quotedPrintable(text)
        guard !attachments.isEmpty else {
            return Array((headers.joined(separator: "\r\n") + "\r\n" + textPart + "\r\n").utf8)
        }
        // "=_" never occurs in quoted-printable (a "=" is "=3D" there) nor in base64: the boundary cannot
        // appear in a part.
        let boundary = "=_shelfmark_" + id.filter { $0.isASCII && ($0.isLetter || $0.isNumber) }.prefix(40)
        headers.append("Content-Type: multipart/mixed;\r\n boundary=\"\(boundary)\"")
        var parts = [textPart]
        for file in attachments {
            parts.append("""
                Content-Type: \(Self.mediaType(file.type)); \(Self.fileParameter("name", file.name))\r
                Content-Disposition: attachment; \(Self.fileParameter("filename", file.name))\r
                Content-Transfer-Encoding: base64\r
                \r
                \(file.data.base64EncodedString(options: [.lineLength76Characters, .endLineWithCarriageReturn, .endLineWithLineFeed]))
                """)
        }
        let body = parts.map { "--\(boundary)\r\n" + $0 + "\r\n" }.joined() + "--\(boundary)--"
        return Array((headers.joined(separator: "\r\n") + "\r\n\r\n" + body + "\r\n").utf8)
    }

    /// A media type as a header carries it: `type/subtype` of token characters with its `name=value`
    /// parameters of token characters (`text/csv; charset=utf-8`), else an octet stream.
    static func mediaType(_ type: String) -> String {
        let token = CharacterSet(charactersIn: "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789!#$&^_.+-")
        func pair(_ text: Substring, _ separator: Character) -> Bool {
            let parts = text.trimmingCharacters(in: .whitespaces).split(separator: separator, omittingEmptySubsequences: false)
            return parts.count == 2 && parts.allSatisfy { !$0.isEmpty && $0.unicodeScalars.allSatisfy(token.contains) }
        }
        let pieces = type.split(separator: ";", omittingEmptySubsequences: false)
        guard let first = pieces.first, pair(first, "/"), pieces.dropFirst().allSatisfy({ pair($0, "=") }) else { return "application/octet-stream" }
        return pieces.map { $0.trimmingCharacters(in: .whitespaces) }.joined(separator: "; ")
    }

    /// A file name parameter: plain ASCII quoted (`filename="Loans 2026.csv"`); other names as RFC 2231
    /// UTF-8 (`filename*=UTF-8''Ausleihen%C3%BC.csv`). Line breaks and quotes never reach the header.
    static func fileParameter(_ parameter: String, _ name: String) -> String {
        let clean = String(name.filter { !$0.isNewline && $0 != "\"" && $0 != "\\" }.prefix(100))
        let plain = clean.unicodeScalars.allSatisfy { $0.value >= 0x20 && $0.value < 0x7F }
        if plain { return "\(parameter)=\"\(clean.isEmpty ? "file" : clean)\"" }
        let allowed = CharacterSet(charactersIn: "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789.-_")
        return "\(parameter)*=UTF-8''" + (clean.addingPercentEncoding(withAllowedCharacters: allowed) ?? "file")
    }

    // MARK: Headers

    static func header(_ name: String, _ value: String) -> String { "\(name): \(value)" }

    /// `name <address>`, the name quoted or encoded as it needs, each piece folded onto its own line when long.
    static func addressField(_ a: MailAddress) -> String {
        let name = a.name.filter { !$0.isNewline }
        guard !name.isEmpty else { return a.address }
        let isPlain = name.unicodeScalars.allSatisfy { $0.value >= 0x20 && $0.value < 0x7F }
        let shown: String
        if isPlain {
            shown = "\"" + name.replacingOccurrences(of: "\\", with: "\\\\").replacingOccurrences(of: "\"", with: "\\\"") + "\""
        } else {
            shown = encodedWords(name, field: "From")
        }
        return shown + (shown.utf8.count + a.address.utf8.count > 70 ? "\r\n " : " ") + "<\(a.address)>"
    }

    /// RFC 2047: plain ASCII text stays as it is (folded at spaces); other text becomes `=?UTF-8?B?…?=`
    /// words of at most 64 characters, each whole characters (never a UTF-8 sequence cut), one per line.
    public static func encodedWords(_ text: String, field: String) -> String {
        let clean = String(text.map { $0.isNewline ? " " : $0 })
        let printable = clean.unicodeScalars.allSatisfy { $0.value >= 0x20 && $0.value < 0x7F }
        if printable && !clean.contains("=?") { return fold(clean, first: field.count + 2) }
        var words: [String] = []
        var chunk: [UInt8] = []
        // At most 39 bytes a word: 52 characters of base64, a 64-character word, so even the first line
        // ("Reply-To: " and a word) stays within 78 characters (RFC 5322 2.1.1; a word at most 75, RFC 2047).
        for character in clean {
            let bytes = Array(String(character).utf8)
            if chunk.count + bytes.count > 39 {
                words.append("=?UTF-8?B?" + Data(chunk).base64EncodedString() + "?=")
                chunk = []
            }
            chunk += bytes
        }
        if !chunk.isEmpty { words.append("=?UTF-8?B?" + Data(chunk).base64EncodedString() + "?=") }
        return words.joined(separator: "\r\n ")
    }

    /// Folds an ASCII header value at spaces so no line passes 78 characters (where it can).
    static func fold(_ value: String, first: Int) -> String {
        var lines: [String] = []
        var line: String? = nil
        var limit = 78 - first
        for word in value.split(separator: " ", omittingEmptySubsequences: false) {
            guard let current = line else { line = String(word); continue }
            if current.count + 1 + word.count > limit, !current.isEmpty {
                lines.append(current)
                line = String(word)
                limit = 77
            } else {
                line = current + " " + word
            }
        }
        lines.append(line ?? "")
        return lines.joined(separator: "\r\n ")
    }

    static func rfc5322Date(_ date: Date) -> String {
        let f = DateFormatter()
        f.locale = Locale(identifier: "en_US_POSIX")
        f.timeZone = TimeZone(identifier: "UTC")
        f.dateFormat = "EEE, dd MMM yyyy HH:mm:ss '+0000'"
        return f.string(from: date)
    }

    // MARK: Body

    /// Quoted-printable (RFC 2045): bytes outside printable ASCII as `=XX`, lines at most 76 characters
    /// with soft breaks (`=`), trailing spaces encoded, every line break CRLF.
    public static func quotedPrintable(_ text: String) -> String {
        let normalised = text.replacingOccurrences(of: "\r\n", with: "\n").replacingOccurrences(of: "\r", with: "\n")
        var out: [String] = []
        for line in normalised.split(separator: "\n", omittingEmptySubsequences: false) {
            let bytes = Array(line.utf8)
            var encoded = ""
            var width = 0
            for (i, byte) in bytes.enumerated() {
                let isLast = i == bytes.count - 1
                let piece: String
                if (byte >= 33 && byte <= 126 && byte != 61) || (byte == 32 && !isLast) || (byte == 9 && !isLast) {
                    piece = String(UnicodeScalar(byte))
                } else {
                    piece = String(format: "=%02X", byte)
                }
                if width + piece.count > 75 {
                    encoded += "=\r\n"
                    width = 0
                }
                encoded += piece
                width += piece.count
            }
            out.append(encoded)
        }
        return out.joined(separator: "\r\n")
    }

    /// SMTP's DATA transparency (RFC 5321 4.5.2): a line starting with "." gets another.
    public static func dotStuffed(_ bytes: [UInt8]) -> [UInt8] {
        var out: [UInt8] = []
        out.reserveCapacity(bytes.count + 16)
        var lineStart = true
        for byte in bytes {
            if lineStart && byte == UInt8(ascii: ".") { out.append(byte) }
            out.append(byte)
            lineStart = byte == UInt8(ascii: "\n")
        }
        return out
    }
}
