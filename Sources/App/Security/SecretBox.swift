import Crypto
import Foundation
import Glibc
import NIOConcurrencyHelpers
import Vapor

/// Secrets kept at rest (the SMTP password): sealed with AES-GCM under a 256-bit key kept in the data
/// directory (`secret.key`, readable by its owner only, made on first use). The database alone — a
/// backup of it, a stolen dump — does not give the password back. Several instances on one PostgreSQL
/// share the key file (`SHELFMARK_SECRET_KEY_FILE`). Stored text is `v1:` + base64(nonce, text, tag).
struct SecretBox: Sendable {
    let key: SymmetricKey

    enum Failure: Error, CustomStringConvertible {
        case keyFile(String)
        case sealed
        var description: String {
            switch self {
            case .keyFile(let why): "the secret key file: \(why)"
            case .sealed: "a sealed secret does not open with this installation's key (was secret.key replaced?)"
            }
        }
    }

    /// The key at `path`, made (32 random bytes, mode 0600) when the file does not exist yet.
    static func load(path: String) throws -> SecretBox {
        let fm = FileManager.default
        if !fm.fileExists(atPath: path) {
            let dir = (path as NSString).deletingLastPathComponent
            if !dir.isEmpty { try? fm.createDirectory(atPath: dir, withIntermediateDirectories: true, attributes: [.posixPermissions: 0o700]) }
            let bytes = SymmetricKey(size: .bits256).withUnsafeBytes { Data($0) }
            // O_EXCL: of two processes making it at once, one writes and both read the same key.
            let fd = Glibc.open(path, O_WRONLY | O_CREAT | O_EXCL, 0o600)
            if fd >= 0 {
                let written = bytes.withUnsafeBytes { Glibc.write(fd, $0.baseAddress, 32) }
                Glibc.close(fd)
                guard written == 32 else { throw Failure.keyFile("could not write \(path)") }
            }
        }
        guard let data = fm.contents(atPath: path), data.count == 32 else {
            throw Failure.keyFile("\(path) is not a 32-byte key")
        }
        return SecretBox(key: SymmetricKey(data: data))
    }

    func seal(_ text: String) throws -> String {
        let box = try AES.GCM.seal(Data(text.utf8), using: key)
        guard let combined = box.combined else { throw Failure.sealed }
        return "v1:" + combined.base64EncodedString()
    }

    func open(_ sealed: String) throws -> String {
        guard sealed.hasPrefix("v1:"), let data = Data(base64Encoded: String(sealed.dropFirst(3))),
              let box = try? AES.GCM.SealedBox(combined: data), let plain = try? AES.GCM.open(box, using: key) else {
            throw Failure.sealed
        }
        return String(decoding: plain, as: UTF8.self)
    }
}

extension Application {
    private struct SecretKeyPathKey: StorageKey { typealias Value = String }
    private struct SecretBoxKey: StorageKey { typealias Value = SecretBox }
    private static let secretLock = NIOLock()

    /// Where the secret key lives; nil: a key for this process alone (an in-memory database).
    var secretKeyPath: String? {
        get { storage[SecretKeyPathKey.self] }
        set { storage[SecretKeyPathKey.self] = newValue }
    }

    /// The installation's secret box, its key read (or made) on first use.
    func secretBox() throws -> SecretBox {
        try Self.secretLock.withLock {
            if let box = storage[SecretBoxKey.self] { return box }
            let box = try secretKeyPath.map(SecretBox.load(path:)) ?? SecretBox(key: SymmetricKey(size: .bits256))
            storage[SecretBoxKey.self] = box
            return box
        }
    }
}

extension StorageConfig {
    /// The secret key's file: next to the SQLite file, else `SHELFMARK_SECRET_KEY_FILE` or the data directory's.
    func secretKeyPath(_ env: [String: String] = ProcessInfo.processInfo.environment) -> String? {
        if let file = env["SHELFMARK_SECRET_KEY_FILE"], !file.isEmpty { return file }
        switch self {
        case .sqlite(let path): return Self.folder(ofFile: path) + "/secret.key"
        case .postgres: return (env["SHELFMARK_DATA_DIR"].flatMap { $0.isEmpty ? nil : $0 } ?? "data") + "/secret.key"
        case .memory: return nil
        }
    }
}
