// swift-tools-version:6.0
import PackageDescription

let swiftSettings: [SwiftSetting] = [
    .enableUpcomingFeature("ExistentialAny"),
]

let package = Package(
    name: "shelfmark",
    platforms: [.macOS(.v14)],
    products: [
        .executable(name: "shelfmark", targets: ["shelfmark"]),
    ],
    dependencies: [
        .package(url: "https://github.com/vapor/vapor.git", from: "4.122.3"),
        .package(url: "https://github.com/vapor/fluent.git", from: "4.13.0"),
        .package(url: "https://github.com/vapor/fluent-sqlite-driver.git", from: "4.9.0"),
        .package(url: "https://github.com/vapor/fluent-postgres-driver.git", from: "2.14.0"),
        .package(url: "https://github.com/swift-server/async-http-client.git", from: "1.37.0"),
        .package(url: "https://github.com/apple/swift-nio.git", from: "2.101.2"),
        .package(url: "https://github.com/JohnSundell/Plot.git", from: "0.14.0"),
        // Used by App directly (it imports them), so declared rather than reached through Vapor and Fluent.
        .package(url: "https://github.com/vapor/fluent-kit.git", from: "1.57.0"),
        .package(url: "https://github.com/vapor/sql-kit.git", from: "3.36.0"),
        .package(url: "https://github.com/vapor/sqlite-nio.git", from: "1.13.2"),
        .package(url: "https://github.com/vapor/postgres-nio.git", from: "1.33.2"),
        .package(url: "https://github.com/vapor/multipart-kit.git", from: "4.7.1"),
        .package(url: "https://github.com/apple/swift-crypto.git", from: "4.5.2"),
        .package(url: "https://github.com/apple/swift-nio-ssl.git", from: "2.37.6"),
        // Shelfmark's own certificates for HTTPS on a school's network (issue 27).
        .package(url: "https://github.com/apple/swift-certificates.git", from: "1.21.1"),
        .package(url: "https://github.com/apple/swift-asn1.git", from: "1.7.4"),
        // `/metrics` in Prometheus's text format.
        .package(url: "https://github.com/swift-server/swift-prometheus.git", from: "2.4.1"),
        // Zipped roster bundles (OneRoster) from a school's records.
        .package(url: "https://github.com/weichsel/ZIPFoundation.git", from: "0.9.20"),
        // ID tokens of a school's sign-in provider (OpenID Connect), checked against its published keys.
        .package(url: "https://github.com/vapor/jwt-kit.git", from: "5.8.0"),
    ],
    targets: [
        .target(
            name: "ShelfmarkCore",
            swiftSettings: swiftSettings
        ),
        .target(
            name: "ShelfmarkLookup",
            dependencies: [
                "ShelfmarkCore",
                .product(name: "AsyncHTTPClient", package: "async-http-client"),
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOHTTP1", package: "swift-nio"),
            ],
            swiftSettings: swiftSettings
        ),
        .target(
            name: "ShelfmarkMail",
            dependencies: [
                "ShelfmarkCore",
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOPosix", package: "swift-nio"),
                .product(name: "NIOSSL", package: "swift-nio-ssl"),
            ],
            swiftSettings: swiftSettings
        ),
        .target(
            name: "ShelfmarkTLS",
            dependencies: [
                "ShelfmarkCore",
                .product(name: "X509", package: "swift-certificates"),
                .product(name: "SwiftASN1", package: "swift-asn1"),
                .product(name: "Crypto", package: "swift-crypto"),
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOPosix", package: "swift-nio"),
            ],
            swiftSettings: swiftSettings
        ),
        .systemLibrary(
            name: "CPDF",
            path: "Sources/CPDF",
            pkgConfig: "pangocairo"
        ),
        .systemLibrary(
            name: "CSVG",
            path: "Sources/CSVG",
            pkgConfig: "librsvg-2.0"
        ),
        .target(
            name: "ShelfmarkPDF",
            dependencies: ["CPDF", "CSVG"],
            swiftSettings: swiftSettings
        ),
        .systemLibrary(
            name: "CImaging",
            path: "Sources/CImaging"
        ),
        .target(
            name: "ShelfmarkImaging",
            dependencies: ["CImaging", "ShelfmarkCore"],
            swiftSettings: swiftSettings
        ),
        .target(
            name: "ShelfmarkReplay",
            dependencies: [
                .product(name: "Vapor", package: "vapor"),
            ],
            resources: [.copy("Fixtures")],
            swiftSettings: swiftSettings
        ),
        .executableTarget(
            name: "shelfmark-replay",
            dependencies: ["ShelfmarkReplay"],
            swiftSettings: swiftSettings
        ),
        // The interface's translations, built into the binary by the C compiler (see translations.c).
        .target(name: "CTranslations"),
        .target(
            name: "App",
            dependencies: [
                "CTranslations",
                "ShelfmarkCore",
                "ShelfmarkLookup",
                "ShelfmarkImaging",
                "ShelfmarkMail",
                "ShelfmarkPDF",
                "ShelfmarkTLS",
                .product(name: "Plot", package: "Plot"),
                .product(name: "Vapor", package: "vapor"),
                .product(name: "Fluent", package: "fluent"),
                .product(name: "FluentSQLiteDriver", package: "fluent-sqlite-driver"),
                .product(name: "FluentPostgresDriver", package: "fluent-postgres-driver"),
                .product(name: "FluentKit", package: "fluent-kit"),
                .product(name: "FluentSQL", package: "fluent-kit"),
                .product(name: "SQLKit", package: "sql-kit"),
                .product(name: "SQLiteNIO", package: "sqlite-nio"),
                .product(name: "PostgresNIO", package: "postgres-nio"),
                .product(name: "MultipartKit", package: "multipart-kit"),
                .product(name: "Crypto", package: "swift-crypto"),
                .product(name: "AsyncHTTPClient", package: "async-http-client"),
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOPosix", package: "swift-nio"),
                .product(name: "NIOConcurrencyHelpers", package: "swift-nio"),
                .product(name: "NIOHTTP1", package: "swift-nio"),
                .product(name: "NIOFoundationCompat", package: "swift-nio"),
                .product(name: "Prometheus", package: "swift-prometheus"),
                .product(name: "ZIPFoundation", package: "ZIPFoundation"),
                .product(name: "JWTKit", package: "jwt-kit"),
                .product(name: "NIOFoundationEssentialsCompat", package: "swift-nio"),
                .product(name: "NIOSSL", package: "swift-nio-ssl"),
            ],
            // The interface's translations (gettext PO): CTranslations builds them into the binary.
            exclude: ["Localization/Translations"],
            swiftSettings: swiftSettings + [.enableUpcomingFeature("MemberImportVisibility")]
        ),
        .executableTarget(
            name: "shelfmark",
            dependencies: ["App"],
            swiftSettings: swiftSettings
        ),
        .testTarget(
            name: "ShelfmarkCoreTests",
            dependencies: ["ShelfmarkCore"],
            swiftSettings: swiftSettings
        ),
        .testTarget(
            name: "ShelfmarkImagingTests",
            dependencies: ["ShelfmarkImaging"],
            exclude: ["Fixtures"],
            swiftSettings: swiftSettings
        ),
        .testTarget(
            name: "ShelfmarkLookupTests",
            dependencies: ["ShelfmarkLookup", "ShelfmarkReplay"],
            swiftSettings: swiftSettings
        ),
        .testTarget(
            name: "AppTests",
            dependencies: [
                "App",
                "ShelfmarkReplay",
                "ShelfmarkImaging",
                "ShelfmarkMail",
                "ShelfmarkTLS",
                .product(name: "VaporTesting", package: "vapor"),
                .product(name: "ZIPFoundation", package: "ZIPFoundation"),
                .product(name: "JWTKit", package: "jwt-kit"),
            ],
            exclude: ["Fixtures"],
            swiftSettings: swiftSettings
        ),
    ]
)
