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
        .target(
            name: "App",
            dependencies: [
                "ShelfmarkCore",
                "ShelfmarkLookup",
                "ShelfmarkImaging",
                .product(name: "Plot", package: "Plot"),
                .product(name: "Vapor", package: "vapor"),
                .product(name: "Fluent", package: "fluent"),
                .product(name: "FluentSQLiteDriver", package: "fluent-sqlite-driver"),
                .product(name: "FluentPostgresDriver", package: "fluent-postgres-driver"),
            ],
            swiftSettings: swiftSettings
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
                .product(name: "VaporTesting", package: "vapor"),
            ],
            swiftSettings: swiftSettings
        ),
    ]
)
