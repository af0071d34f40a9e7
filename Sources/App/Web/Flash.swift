import Crypto
import Foundation
import Vapor

/// A message shown once on the page a form redirects to ("Changes saved."), carried in a short-lived
/// cookie signed with a key derived from the session, so no link can make the app show a text of its
/// choosing as a success message, and a reload does not show it again (the page that shows it
/// clears it).
enum Flash {
    static let cookie = "shelfmark_flash"
    /// Marks a refusal (shown as an error); a control character, which no cleaned text holds.
    static let errorMark = "\u{7}"
    struct ShownKey: StorageKey { typealias Value = Bool }

    static func signature(_ payload: String, session: String) -> String {
        let key = SymmetricKey(data: SHA256.hash(data: Data(("shelfmark-flash:" + session).utf8)))
        let mac = HMAC<SHA256>.authenticationCode(for: Data(payload.utf8), using: key)
        return Credential.base64url(Data(mac))
    }

    static func decodeBase64url(_ text: Substring) -> Data? {
        var s = text.replacingOccurrences(of: "-", with: "+").replacingOccurrences(of: "_", with: "/")
        while s.count % 4 != 0 { s += "=" }
        return Data(base64Encoded: s)
    }

    /// The cookie's value for `message`, or nil without a session to sign it with.
    static func value(_ message: String, session: String?) -> String? {
        guard let session else { return nil }
        let payload = Credential.base64url(Data(String(message.prefix(500)).utf8))
        return payload + "." + signature(payload, session: session)
    }

    /// The message in a cookie value, when its signature is this session's.
    static func message(in value: String, session: String?) -> String? {
        guard let session else { return nil }
        let parts = value.split(separator: ".", maxSplits: 1)
        guard parts.count == 2, parts[0].count <= 800, CSRF.same(String(parts[1]), signature(String(parts[0]), session: session)),
              let data = decodeBase64url(parts[0]) else { return nil }
        return String(decoding: data, as: UTF8.self)
    }
}

extension Request {
    /// What a flash cookie is signed with: the staff session, else this browser's CSRF cookie (a
    /// public catalog's visitor or member has no staff session; the cookie is as secret and as theirs).
    var flashKey: String? { cookieSession ?? csrfToken }

    /// The flash message this request carries (and marks it shown, so the response clears it), and
    /// whether it says something was refused.
    var flashMessage: (text: String, isError: Bool)? {
        guard let raw = cookies[Flash.cookie]?.string, !raw.isEmpty else { return nil }
        storage[Flash.ShownKey.self] = true
        guard let text = Flash.message(in: raw, session: flashKey) else { return nil }
        return text.hasPrefix(Flash.errorMark) ? (String(text.dropFirst()), true) : (text, false)
    }
}
