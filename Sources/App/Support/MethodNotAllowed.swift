import Foundation
import Vapor

/// A path that exists with other methods answers 405 with `Allow` (not 404): for the API, the web
/// pages and methods Vapor has never heard of (TRACE, PROPFIND …).
enum MethodNotAllowed {
    /// The methods routes accept at `path`; empty when no route has this path.
    static func allowed(at path: String, routes: Routes) -> [HTTPMethod] {
        let parts = path.split(separator: "/").map(String.init)
        var methods: [HTTPMethod] = []
        for route in routes.all where matches(route.path, parts) && !methods.contains(route.method) {
            methods.append(route.method)
        }
        if methods.contains(.GET), !methods.contains(.HEAD) { methods.append(.HEAD) }
        return methods
    }

    private static func matches(_ pattern: [PathComponent], _ parts: [String]) -> Bool {
        for (i, component) in pattern.enumerated() {
            switch component {
            case .catchall: return parts.count >= i
            // A parameter named as an id (`:titleID`) is a UUID: a segment that is not one cannot be it.
            // The others (a calendar feed's token, an icon's name) are any segment.
            case .parameter(let name) where name.hasSuffix("ID"):
                if i >= parts.count || UUID(uuidString: parts[i]) == nil { return false }
            case .anything, .parameter: if i >= parts.count || parts[i].isEmpty { return false }
            case .constant(let s): if i >= parts.count || parts[i] != s { return false }
            }
        }
        return pattern.count == parts.count
    }
}
