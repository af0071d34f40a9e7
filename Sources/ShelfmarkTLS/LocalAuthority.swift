import Crypto
import Foundation
import SwiftASN1
import X509

/// Shelfmark's own certificates, for HTTPS on a school's network without a domain name:
/// a small certificate authority made once per installation, and from it a server certificate for the
/// machine's host names and network addresses. A phone trusts the authority once (its SHA-256
/// fingerprint is printed and shown to compare); when the machine's address changes (a new lease from
/// the router) a new server certificate is issued from the same authority and the phone still trusts it.
///
/// Files, in the folder given (the data directory's `tls/`, readable by its owner only):
/// `ca.pem` + `ca-key.pem` (the authority, ten years), `server.pem` (server certificate then the
/// authority) + `server-key.pem` (397 days, the longest browsers accept; renewed 30 days before).
public struct LocalAuthority: Sendable {
    public struct Issued: Sendable {
        /// The server's certificate chain, PEM: the server certificate, then the authority's.
        public var chainPEM: String
        public var keyPEM: String
        /// The authority a phone installs, PEM and DER.
        public var authorityPEM: String
        public var authorityDER: [UInt8]
        /// SHA-256 of the authority's DER, as "AB:CD:…" (what a phone's settings show).
        public var fingerprint: String
        /// The names and addresses the server certificate is valid for.
        public var names: [String]
        public var addresses: [String]
        /// Whether this start made anything new (the authority, or a server certificate).
        public var madeAuthority: Bool
        public var madeServerCertificate: Bool
    }

    public enum Failure: Error, CustomStringConvertible, Sendable {
        case unreadable(file: String, reason: String)
        case cannotWrite(file: String, reason: String)

        public var description: String {
            switch self {
            case let .unreadable(file, reason): "The certificate file \(file) cannot be read (\(reason)). Move the tls folder aside and Shelfmark makes new ones."
            case let .cannotWrite(file, reason): "Cannot write \(file): \(reason)"
            }
        }
    }

    public let directory: URL
    public init(directory: URL) { self.directory = directory }

    static let authorityLifetime: TimeInterval = 10 * 365 * 86400
    static let serverLifetime: TimeInterval = 397 * 86400
    static let renewBefore: TimeInterval = 30 * 86400

    /// The authority (made when missing) and a server certificate covering `names` and `addresses`
    /// (made when missing, expiring within 30 days, or not covering them all).
    public func issue(names: [String], addresses: [String], now: Date = Date()) throws -> Issued {
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true, attributes: [.posixPermissions: 0o700])
        let caFile = directory.appendingPathComponent("ca.pem"), caKeyFile = directory.appendingPathComponent("ca-key.pem")
        let serverFile = directory.appendingPathComponent("server.pem"), serverKeyFile = directory.appendingPathComponent("server-key.pem")

        var madeAuthority = false
        let authority: Certificate, authorityKey: P256.Signing.PrivateKey
        if FileManager.default.fileExists(atPath: caFile.path) {
            authority = try Self.readCertificate(caFile)
            authorityKey = try Self.readKey(caKeyFile)
        } else {
            authorityKey = P256.Signing.PrivateKey()
            let name = try DistinguishedName {
                OrganizationName("Shelfmark")
                CommonName("Shelfmark on \(names.first ?? "this computer") \(now.formatted(.iso8601.year().month().day()))")
            }
            authority = try Certificate(
                version: .v3, serialNumber: .init(), publicKey: .init(authorityKey.publicKey),
                notValidBefore: now.addingTimeInterval(-3600), notValidAfter: now.addingTimeInterval(Self.authorityLifetime),
                issuer: name, subject: name, signatureAlgorithm: .ecdsaWithSHA256,
                extensions: try Certificate.Extensions {
                    Critical(BasicConstraints.isCertificateAuthority(maxPathLength: 0))
                    Critical(KeyUsage(keyCertSign: true, cRLSign: true))
                    SubjectKeyIdentifier(keyIdentifier: ArraySlice(Insecure.SHA1.hash(data: authorityKey.publicKey.x963Representation)))
                },
                issuerPrivateKey: .init(authorityKey))
            try Self.write(authorityKey.pemRepresentation, to: caKeyFile)
            try Self.write(try authority.serializeAsPEM().pemString, to: caFile)
            madeAuthority = true
        }

        let wanted = Set(names.map { $0.lowercased() }), wantedAddresses = Set(addresses)
        var madeServer = false
        var server: Certificate? = nil
        var serverKeyPEM = ""
        if !madeAuthority, FileManager.default.fileExists(atPath: serverFile.path), FileManager.default.fileExists(atPath: serverKeyFile.path),
           let existing = try? Self.readCertificate(serverFile), existing.issuer == authority.subject,
           existing.notValidAfter > now.addingTimeInterval(Self.renewBefore),
           let san = try? existing.extensions.subjectAlternativeNames {
            var haveNames = Set<String>(), haveAddresses = Set<String>()
            for entry in san {
                switch entry {
                case .dnsName(let n): haveNames.insert(n.lowercased())
                case .ipAddress(let bytes): if let a = Self.addressText(Array(bytes.bytes)) { haveAddresses.insert(a) }
                default: break
                }
            }
            if wanted.isSubset(of: haveNames), wantedAddresses.isSubset(of: haveAddresses) {
                server = existing
                serverKeyPEM = try String(contentsOf: serverKeyFile, encoding: .utf8)
            }
        }
        if server == nil {
            let key = P256.Signing.PrivateKey()
            var alternatives: [GeneralName] = names.map { .dnsName($0) }
            alternatives += addresses.compactMap { Self.addressBytes($0) }.map { .ipAddress(ASN1OctetString(contentBytes: ArraySlice($0))) }
            let made = try Certificate(
                version: .v3, serialNumber: .init(), publicKey: .init(key.publicKey),
                notValidBefore: now.addingTimeInterval(-3600), notValidAfter: now.addingTimeInterval(Self.serverLifetime),
                issuer: authority.subject,
                subject: try DistinguishedName { OrganizationName("Shelfmark"); CommonName(names.first ?? "localhost") },
                signatureAlgorithm: .ecdsaWithSHA256,
                extensions: try Certificate.Extensions {
                    Critical(BasicConstraints.notCertificateAuthority)
                    Critical(KeyUsage(digitalSignature: true))
                    try ExtendedKeyUsage([.serverAuth])
                    SubjectAlternativeNames(alternatives)
                    if let ski = try? authority.extensions.subjectKeyIdentifier {
                        AuthorityKeyIdentifier(keyIdentifier: ski.keyIdentifier)
                    }
                },
                issuerPrivateKey: .init(authorityKey))
            serverKeyPEM = key.pemRepresentation
            try Self.write(serverKeyPEM, to: serverKeyFile)
            try Self.write(try made.serializeAsPEM().pemString + "\n" + authority.serializeAsPEM().pemString + "\n", to: serverFile)
            server = made
            madeServer = true
        }
        var der = DER.Serializer()
        try der.serialize(authority)
        let chain = try String(contentsOf: serverFile, encoding: .utf8)
        return Issued(
            chainPEM: chain, keyPEM: serverKeyPEM, authorityPEM: try authority.serializeAsPEM().pemString, authorityDER: der.serializedBytes,
            fingerprint: Self.fingerprint(der.serializedBytes), names: names, addresses: addresses,
            madeAuthority: madeAuthority, madeServerCertificate: madeServer)
    }

    /// "AB:CD:…": SHA-256 of DER bytes, as browsers and phones show a certificate's fingerprint.
    public static func fingerprint(_ der: [UInt8]) -> String {
        SHA256.hash(data: der).map { String(format: "%02X", $0) }.joined(separator: ":")
    }

    /// The fingerprint of the first certificate in a PEM file (a certificate the user gave).
    public static func fingerprint(pem: String) throws -> String {
        let cert = try Certificate(pemEncoded: pem)
        var der = DER.Serializer()
        try der.serialize(cert)
        return fingerprint(der.serializedBytes)
    }

    static func readCertificate(_ file: URL) throws -> Certificate {
        do {
            let pem = try String(contentsOf: file, encoding: .utf8)
            // The first certificate of the file (server.pem holds the chain).
            guard let end = pem.range(of: "-----END CERTIFICATE-----") else { throw Failure.unreadable(file: file.path, reason: "no certificate in it") }
            return try Certificate(pemEncoded: String(pem[..<end.upperBound]))
        } catch let f as Failure { throw f } catch {
            throw Failure.unreadable(file: file.path, reason: "\(error)")
        }
    }

    static func readKey(_ file: URL) throws -> P256.Signing.PrivateKey {
        do { return try P256.Signing.PrivateKey(pemRepresentation: String(contentsOf: file, encoding: .utf8)) } catch {
            throw Failure.unreadable(file: file.path, reason: "\(error)")
        }
    }

    static func write(_ text: String, to file: URL) throws {
        do {
            try Data(text.utf8).write(to: file, options: .atomic)
            try FileManager.default.setAttributes([.posixPermissions: 0o600], ofItemAtPath: file.path)
        } catch {
            throw Failure.cannotWrite(file: file.path, reason: "\(error)")
        }
    }

    /// An IPv4 or IPv6 address as the 4 or 16 bytes a certificate holds.
    static func addressBytes(_ text: String) -> [UInt8]? {
        var v4 = in_addr()
        if inet_pton(AF_INET, text, &v4) == 1 { return withUnsafeBytes(of: &v4) { Array($0) } }
        var v6 = in6_addr()
        if inet_pton(AF_INET6, text, &v6) == 1 { return withUnsafeBytes(of: &v6) { Array($0) } }
        return nil
    }

    static func addressText(_ bytes: [UInt8]) -> String? {
        var buffer = [CChar](repeating: 0, count: 64)
        let family = bytes.count == 4 ? AF_INET : bytes.count == 16 ? AF_INET6 : -1
        guard family != -1 else { return nil }
        return bytes.withUnsafeBytes { raw in
            inet_ntop(family, raw.baseAddress, &buffer, socklen_t(buffer.count)) != nil ? String(decoding: buffer.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self) : nil
        }
    }
}
