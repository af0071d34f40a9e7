/// Where to go after signing in (`next=`) or changing the language (`back=`): only a path on this
/// server. Browsers treat `//host`, `/\host` and paths with tabs or newlines (which they strip, so
/// `/\t/host` becomes `//host`) as other origins, so any of those, and anything not starting with a
/// single `/`, is refused.
public enum LocalPath {
    public static func validate(_ raw: String) -> String? {
        guard raw.hasPrefix("/"), raw.utf8.count <= 2_000 else { return nil }
        for scalar in raw.unicodeScalars {
            if scalar.value < 0x21 || scalar.value == 0x7F || scalar == "\\" { return nil }
            if (0x80...0x9F).contains(scalar.value) || scalar.properties.isWhitespace { return nil }
        }
        let second = raw.dropFirst().first
        if second == "/" { return nil }
        // An encoded slash or backslash at the start would be decoded by some proxies.
        let lowered = raw.lowercased()
        if lowered.hasPrefix("/%2f") || lowered.hasPrefix("/%5c") || lowered.hasPrefix("/%09") { return nil }
        return raw
    }
}
