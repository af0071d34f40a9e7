import Foundation
import ShelfmarkCore
import Vapor

/// A feature's settings of a library: one group of the library's PATCH (`Feature.settings`). The API's
/// body stays one flat object; each group reads its own fields from it. A field that is absent keeps
/// its value; a present one is checked against its bounds and written onto the library by `apply`.
protocol LibrarySettings: Codable, Sendable, SchemaConstrained {
    func apply(to library: Library) throws
}

extension LibrarySettings {
    /// The group's fields, as the PATCH names them.
    static var fields: [String] { SchemaDerivation.keys(of: Self.self) }
}

/// Body of changing a library: its name and every feature's settings group, as one flat object; only
/// the fields present change. The groups are the features' (`Features.settings`), so a feature that
/// adds a setting adds it to its own group, and the API, its OpenAPI schema and the patch follow.
struct LibraryPatch: Content, SchemaConstrained {
    var name: String?
    var groups: [any LibrarySettings]

    init(name: String? = nil, _ groups: [any LibrarySettings] = []) {
        (self.name, self.groups) = (name, groups)
    }

    /// The group of type `G` this patch carries, if any.
    func group<G: LibrarySettings>(_ type: G.Type) -> G? {
        groups.lazy.compactMap { $0 as? G }.first
    }

    private enum CodingKeys: String, CodingKey { case name }

    init(from decoder: any Decoder) throws {
        name = try decoder.container(keyedBy: CodingKeys.self).decodeIfPresent(String.self, forKey: .name)
        groups = try Features.settings.map { try $0.init(from: decoder) }
    }

    func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encodeIfPresent(name, forKey: .name)
        for group in groups { try group.encode(to: encoder) }
    }

    static var schemaConstraints: [String: JSONValue] {
        let name = LibraryInput.schemaConstraints.filter { $0.key == "name" }
        return Features.settings.reduce(name) { fields, group in fields.merging(group.schemaConstraints) { $1 } }
    }

    /// Applies the name and every group to `library`, each field checked.
    func apply(to library: Library) throws {
        if let name { library.name = try Check.required(name, field: "name", max: 200) }
        for group in groups { try group.apply(to: library) }
    }
}

/// The library's time zone: loans are due at the end of their due day there, recurring runs follow it.
struct TimeZoneSettings: LibrarySettings {
    /// An IANA time zone name ("Europe/Dublin").
    var timeZone: String?

    static var schemaConstraints: [String: JSONValue] {
        ["timeZone": ["enum": .array(TimeZone.knownTimeZoneIdentifiers.sorted().map { .string($0) })]]
    }

    func apply(to library: Library) throws {
        if let name = try Check.optional(timeZone, field: "timeZone", max: 64) {
            guard TimeZone(identifier: name) != nil else { throw LibraryError.unknownTimeZone(name) }
            library.timeZone = name
        }
    }
}
