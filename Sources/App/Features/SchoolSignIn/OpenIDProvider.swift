import AsyncHTTPClient
import Foundation
import JWTKit
import NIOConcurrencyHelpers
import NIOCore
import NIOFoundationEssentialsCompat
import NIOHTTP1
import ShelfmarkCore
import Vapor

/// The school's OpenID Connect provider as Shelfmark talks to it: its discovery document and published
/// keys (fetched, kept an hour; fetched again when a token names a key not seen yet), the code
/// exchanged for tokens (with the PKCE verifier), and the ID token checked — its signature by jwt-kit
/// against the provider's keys, then issuer, audience, expiry and nonce against what this sign-in sent.
struct OpenIDProvider: Sendable {
    static let googleIssuer = "https://accounts.google.com"
    /// Clock difference allowed between the provider and this server.
    static let leeway: TimeInterval = 60
    static let maxAnswerBytes = 1 << 20
    static let timeout: TimeAmount = .seconds(10)

    struct Discovery: Decodable, Sendable {
        var issuer: String
        var authorization_endpoint: String
        var token_endpoint: String
        var jwks_uri: String
        var token_endpoint_auth_methods_supported: [String]?
    }

    let settings: SchoolSignInSettings
    let discovery: Discovery
    let keys: JWTKeyCollection
    let client: HTTPClient

    // MARK: Where the provider is

    /// An issuer an administrator typed: `https://`, or `http://` only on this machine (a provider run
    /// beside Shelfmark for testing). No credentials, query or fragment in it.
    static func checkIssuer(_ raw: String) throws -> String {
        var text = raw.trimmingCharacters(in: .whitespaces)
        while text.hasSuffix("/") { text.removeLast() }
        guard let url = URLComponents(string: text), let scheme = url.scheme?.lowercased(), let host = url.host, !host.isEmpty,
              url.user == nil, url.password == nil, url.query == nil, url.fragment == nil else {
            throw SchoolSignInError.badIssuer
        }
        if scheme == "https" { return text }
        guard scheme == "http", isLoopback(host) else { throw SchoolSignInError.badIssuer }
        return text
    }

    static func isLoopback(_ host: String) -> Bool {
        ["localhost", "127.0.0.1", "::1", "[::1]"].contains(host.lowercased())
    }

    /// An endpoint the discovery document names: https, or http on this machine when the issuer is.
    static func checkEndpoint(_ raw: String, issuer: String) throws -> String {
        guard let url = URLComponents(string: raw), let scheme = url.scheme?.lowercased(), let host = url.host, !host.isEmpty,
              url.user == nil, url.password == nil else { throw SchoolSignInError.providerAnswer("endpoint") }
        if scheme == "https" { return raw }
        guard scheme == "http", isLoopback(host), issuer.lowercased().hasPrefix("http://") else { throw SchoolSignInError.providerAnswer("endpoint") }
        return raw
    }

    // MARK: Fetching (kept an hour per issuer)

    private final class Cache: Sendable {
        struct Entry { var provider: OpenIDProvider; var fetchedAt: Date }
        let entries = NIOLockedValueBox<[String: Entry]>([:])
    }
    private struct CacheKey: StorageKey { typealias Value = Cache }
    static let keptFor: TimeInterval = 3_600

    /// The provider of `settings`, from the cache or fetched; `refresh` fetches anew (a key not seen).
    static func load(_ settings: SchoolSignInSettings, app: Application, now: Date, refresh: Bool = false) async throws -> OpenIDProvider {
        guard let issuer = settings.issuer, settings.isConfigured else { throw SchoolSignInError.notConfigured }
        let cache = app.storage[CacheKey.self] ?? {
            let made = Cache()
            app.storage[CacheKey.self] = made
            return made
        }()
        let cacheKey = issuer + "\n" + (settings.clientID ?? "")
        if !refresh, let hit = cache.entries.withLockedValue({ $0[cacheKey] }), now.timeIntervalSince(hit.fetchedAt) < keptFor,
           hit.provider.settings == settings {
            return hit.provider
        }
        let client = HTTPClient.shared
        let discovery = try JSONDecoder().decode(Discovery.self, from: try await get(issuer + "/.well-known/openid-configuration", client: client))
        // The document must be the issuer's own (Entra's names its tenant by id where a domain was typed).
        let sameIssuer = discovery.issuer == issuer
            || (settings.preset == .microsoft && discovery.issuer.hasPrefix("https://login.microsoftonline.com/")
                && discovery.issuer.hasSuffix("/v2.0") && !discovery.issuer.contains("{"))
        guard sameIssuer else { throw SchoolSignInError.providerAnswer("issuer") }
        var checked = discovery
        checked.authorization_endpoint = try checkEndpoint(discovery.authorization_endpoint, issuer: issuer)
        checked.token_endpoint = try checkEndpoint(discovery.token_endpoint, issuer: issuer)
        checked.jwks_uri = try checkEndpoint(discovery.jwks_uri, issuer: issuer)
        let jwks = try await get(checked.jwks_uri, client: client)
        let keys = JWTKeyCollection()
        do {
            let set = try JSONDecoder().decode(JWKS.self, from: jwks)
            // Keys of a kind jwt-kit does not verify with (or without an id) are left out, not fatal.
            for key in set.keys { _ = try? await keys.add(jwk: key) }
        } catch {
            throw SchoolSignInError.providerAnswer("jwks")
        }
        let provider = OpenIDProvider(settings: settings, discovery: checked, keys: keys, client: client)
        cache.entries.withLockedValue { $0[cacheKey] = Cache.Entry(provider: provider, fetchedAt: now) }
        return provider
    }

    private static func get(_ url: String, client: HTTPClient) async throws -> Data {
        var request = HTTPClientRequest(url: url)
        request.headers.add(name: "Accept", value: "application/json")
        let response: HTTPClientResponse
        do {
            response = try await client.execute(request, timeout: timeout)
        } catch {
            throw SchoolSignInError.providerUnreachable
        }
        guard response.status == .ok else { throw SchoolSignInError.providerAnswer("status \(response.status.code)") }
        do {
            return Data(buffer: try await response.body.collect(upTo: maxAnswerBytes))
        } catch {
            throw SchoolSignInError.providerAnswer("too large")
        }
    }

    // MARK: The sign-in

    /// Where the browser goes to sign in: the authorization endpoint with the code flow's parameters.
    func authorizationURL(redirectURI: String, state: String, nonce: String, challenge: String) -> String {
        var parts = URLComponents(string: discovery.authorization_endpoint) ?? URLComponents()
        var items = parts.queryItems ?? []
        items += [URLQueryItem(name: "response_type", value: "code"), URLQueryItem(name: "client_id", value: settings.clientID),
                  URLQueryItem(name: "redirect_uri", value: redirectURI), URLQueryItem(name: "scope", value: "openid email profile"),
                  URLQueryItem(name: "state", value: state), URLQueryItem(name: "nonce", value: nonce),
                  URLQueryItem(name: "code_challenge", value: challenge), URLQueryItem(name: "code_challenge_method", value: "S256"),
                  URLQueryItem(name: "prompt", value: "select_account")]
        // Google shows the school's accounts first when told the domain.
        if settings.preset == .google, let domain = settings.domain { items.append(URLQueryItem(name: "hd", value: domain)) }
        parts.queryItems = items
        // `+` in a value must reach the provider as a plus, not a space.
        parts.percentEncodedQuery = parts.percentEncodedQuery?.replacingOccurrences(of: "+", with: "%2B")
        return parts.string ?? discovery.authorization_endpoint
    }

    /// The code and the PKCE verifier → the ID token (the provider answers a used or unknown code with
    /// `invalid_grant`).
    func exchange(code: String, verifier: String, redirectURI: String, secret: String) async throws -> String {
        var form = [("grant_type", "authorization_code"), ("code", code), ("redirect_uri", redirectURI), ("code_verifier", verifier)]
        var request = HTTPClientRequest(url: discovery.token_endpoint)
        request.method = .POST
        request.headers.add(name: "Content-Type", value: "application/x-www-form-urlencoded")
        request.headers.add(name: "Accept", value: "application/json")
        let clientID = settings.clientID ?? ""
        if discovery.token_endpoint_auth_methods_supported?.contains("client_secret_post") == true
            && discovery.token_endpoint_auth_methods_supported?.contains("client_secret_basic") != true {
            form += [("client_id", clientID), ("client_secret", secret)]
        } else {
            form.append(("client_id", clientID))
            let pair = Self.formEncode(clientID) + ":" + Self.formEncode(secret)
            request.headers.add(name: "Authorization", value: "Basic " + Data(pair.utf8).base64EncodedString())
        }
        request.body = .bytes(ByteBuffer(string: form.map { Self.formEncode($0.0) + "=" + Self.formEncode($0.1) }.joined(separator: "&")))
        let response: HTTPClientResponse
        do {
            response = try await client.execute(request, timeout: Self.timeout)
        } catch {
            throw SchoolSignInError.providerUnreachable
        }
        let body: Data
        do { body = Data(buffer: try await response.body.collect(upTo: Self.maxAnswerBytes)) } catch { throw SchoolSignInError.providerAnswer("too large") }
        struct Answer: Decodable { var id_token: String?; var error: String? }
        let answer = try? JSONDecoder().decode(Answer.self, from: body)
        if let error = answer?.error {
            throw error == "invalid_grant" ? SchoolSignInError.codeRefused : SchoolSignInError.providerAnswer(String(error.prefix(60)))
        }
        guard response.status == .ok, let token = answer?.id_token else { throw SchoolSignInError.providerAnswer("no id_token") }
        return token
    }

    /// `application/x-www-form-urlencoded` as RFC 6749 asks for client credentials too.
    static func formEncode(_ s: String) -> String {
        var allowed = CharacterSet.alphanumerics
        allowed.insert(charactersIn: "-._~")
        return s.addingPercentEncoding(withAllowedCharacters: allowed) ?? s
    }

    /// The ID token's signature checked against the provider's keys (fetched again once when it names
    /// a key not seen yet: the provider rolled its keys).
    func verifySignature(_ token: String, app: Application, now: Date) async throws -> IDToken {
        do {
            return try await keys.verify(token, as: IDToken.self)
        } catch let error as JWTError where error.errorType == .unknownKID {
            let fresh = try await Self.load(settings, app: app, now: now, refresh: true)
            do { return try await fresh.keys.verify(token, as: IDToken.self) } catch { throw SchoolSignInError.badToken("signature") }
        } catch {
            throw SchoolSignInError.badToken("signature")
        }
    }

    /// The claims of a token whose signature holds, against this sign-in: the issuer the provider's
    /// document names, this client among the audience (and as the authorized party when there are
    /// several), not expired or not yet valid (with a minute's leeway), and the nonce this sign-in sent.
    static func check(_ token: IDToken, issuer: String, clientID: String, nonce: String, now: Date) throws {
        guard token.iss == issuer else { throw SchoolSignInError.badToken("issuer") }
        guard token.aud.value.contains(clientID) else { throw SchoolSignInError.badToken("audience") }
        if token.aud.value.count > 1, token.azp != clientID { throw SchoolSignInError.badToken("audience") }
        guard token.exp.value.addingTimeInterval(leeway) > now else { throw SchoolSignInError.badToken("expired") }
        if let nbf = token.nbf, nbf.value > now.addingTimeInterval(leeway) { throw SchoolSignInError.badToken("not yet valid") }
        if let iat = token.iat, iat.value > now.addingTimeInterval(leeway) { throw SchoolSignInError.badToken("issued in the future") }
        guard let sent = token.nonce, sent == nonce else { throw SchoolSignInError.badToken("nonce") }
        guard !token.sub.isEmpty, token.sub.count <= 255 else { throw SchoolSignInError.badToken("subject") }
    }

    /// The person's e-mail address when the provider vouches for it: `email_verified` true, or, for
    /// Entra ID (whose tenant is the school's and which does not send the claim), the tenant's own
    /// address. At the school's domain when one is set (Google's `hd` must say it too).
    static func verifiedEmail(_ token: IDToken, settings: SchoolSignInSettings) -> String? {
        let raw: String?
        if token.emailVerified?.value == true {
            raw = token.email
        } else if settings.preset == .microsoft && token.emailVerified == nil {
            raw = token.email ?? token.preferredUsername
        } else {
            raw = nil
        }
        guard let raw, let address = EmailAddress(parsing: raw) else { return nil }
        let email = address.text.lowercased()
        if let domain = settings.domain {
            guard email.hasSuffix("@" + domain) else { return nil }
            if settings.preset == .google, token.hd?.lowercased() != domain { return nil }
        }
        return email
    }
}

/// An ID token's claims as Shelfmark reads them; every other claim with a text or number value is kept
/// by name (`other`), for the student number a school's provider sends under its own name.
struct IDToken: JWTPayload {
    var iss: String
    var sub: String
    var aud: AudienceClaim
    var exp: ExpirationClaim
    var iat: IssuedAtClaim?
    var nbf: NotBeforeClaim?
    var azp: String?
    var nonce: String?
    var email: String?
    var emailVerified: BoolClaim?
    var hd: String?
    var preferredUsername: String?
    var name: String?
    var givenName: String?
    var familyName: String?
    var other: [String: String] = [:]

    enum CodingKeys: String, CodingKey, CaseIterable {
        case iss, sub, aud, exp, iat, nbf, azp, nonce, email, hd, name
        case emailVerified = "email_verified", preferredUsername = "preferred_username", givenName = "given_name", familyName = "family_name"
    }

    struct AnyKey: CodingKey {
        var stringValue: String
        var intValue: Int? { nil }
        init(stringValue: String) { self.stringValue = stringValue }
        init?(intValue: Int) { nil }
    }

    init(iss: String, sub: String, aud: AudienceClaim, exp: ExpirationClaim, iat: IssuedAtClaim? = nil, nonce: String? = nil,
         email: String? = nil, emailVerified: BoolClaim? = nil, other: [String: String] = [:]) {
        (self.iss, self.sub, self.aud, self.exp, self.iat, self.nonce) = (iss, sub, aud, exp, iat, nonce)
        (self.email, self.emailVerified, self.other) = (email, emailVerified, other)
    }

    init(from decoder: any Decoder) throws {
        let c = try decoder.container(keyedBy: CodingKeys.self)
        iss = try c.decode(String.self, forKey: .iss)
        sub = try c.decode(String.self, forKey: .sub)
        aud = try c.decode(AudienceClaim.self, forKey: .aud)
        exp = try c.decode(ExpirationClaim.self, forKey: .exp)
        iat = try c.decodeIfPresent(IssuedAtClaim.self, forKey: .iat)
        nbf = try c.decodeIfPresent(NotBeforeClaim.self, forKey: .nbf)
        azp = try? c.decodeIfPresent(String.self, forKey: .azp)
        nonce = try? c.decodeIfPresent(String.self, forKey: .nonce)
        email = try? c.decodeIfPresent(String.self, forKey: .email)
        emailVerified = try? c.decodeIfPresent(BoolClaim.self, forKey: .emailVerified)
        hd = try? c.decodeIfPresent(String.self, forKey: .hd)
        preferredUsername = try? c.decodeIfPresent(String.self, forKey: .preferredUsername)
        name = try? c.decodeIfPresent(String.self, forKey: .name)
        givenName = try? c.decodeIfPresent(String.self, forKey: .givenName)
        familyName = try? c.decodeIfPresent(String.self, forKey: .familyName)
        let all = try decoder.container(keyedBy: AnyKey.self)
        let known = Set(CodingKeys.allCases.map(\.rawValue))
        for key in all.allKeys.prefix(200) where !known.contains(key.stringValue) {
            if let text = try? all.decode(String.self, forKey: key) {
                other[key.stringValue] = String(text.prefix(200))
            } else if let number = try? all.decode(Int64.self, forKey: key) {
                other[key.stringValue] = String(number)
            }
        }
    }

    func encode(to encoder: any Encoder) throws {
        var c = encoder.container(keyedBy: CodingKeys.self)
        try c.encode(iss, forKey: .iss)
        try c.encode(sub, forKey: .sub)
        try c.encode(aud, forKey: .aud)
        try c.encode(exp, forKey: .exp)
        try c.encodeIfPresent(iat, forKey: .iat)
        try c.encodeIfPresent(nbf, forKey: .nbf)
        try c.encodeIfPresent(azp, forKey: .azp)
        try c.encodeIfPresent(nonce, forKey: .nonce)
        try c.encodeIfPresent(email, forKey: .email)
        try c.encodeIfPresent(emailVerified, forKey: .emailVerified)
        try c.encodeIfPresent(hd, forKey: .hd)
        try c.encodeIfPresent(preferredUsername, forKey: .preferredUsername)
        var rest = encoder.container(keyedBy: AnyKey.self)
        for (key, value) in other { try rest.encode(value, forKey: AnyKey(stringValue: key)) }
    }

    /// The claims are checked against the sign-in that asked for the token (`OpenIDProvider.check`):
    /// jwt-kit checks the signature and the algorithm only.
    func verify(using _: some JWTAlgorithm) async throws {}
}
