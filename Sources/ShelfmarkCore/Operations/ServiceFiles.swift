import Foundation

/// What `shelfmark install` writes to run Shelfmark as a service: the systemd unit and the
/// configuration file, from the installation's choices. Text only: the command writes them.
public struct ServiceFiles: Sendable, Equatable {
    public var binary: String
    public var user: String
    public var dataDirectory: String
    public var publicDirectory: String
    public var hostname: String
    public var port: Int
    public var tls: Bool
    /// Plain HTTP beside HTTPS (redirects other machines to HTTPS); nil: none.
    public var httpPort: Int?
    public var publicURL: String?
    public var databaseURL: String?
    /// Folders the service may write besides its data directory (a backup folder on a mounted disk).
    public var writablePaths: [String]

    public static let unitPath = "/etc/systemd/system/shelfmark.service"
    public static let configDirectory = "/etc/shelfmark"
    public static let configPath = "/etc/shelfmark/shelfmark.env"

    public init(binary: String, user: String = "shelfmark", dataDirectory: String = "/var/lib/shelfmark",
                publicDirectory: String = "/usr/local/share/shelfmark/Public", hostname: String = "0.0.0.0", port: Int = 443, tls: Bool = true,
                httpPort: Int? = 80, publicURL: String? = nil, databaseURL: String? = nil, writablePaths: [String] = []) {
        (self.binary, self.user, self.dataDirectory, self.publicDirectory) = (binary, user, dataDirectory, publicDirectory)
        (self.hostname, self.port, self.tls, self.httpPort, self.publicURL, self.databaseURL) = (hostname, port, tls, httpPort, publicURL, databaseURL)
        self.writablePaths = writablePaths
    }

    /// Whether a port below 1024 is bound, so the service needs `CAP_NET_BIND_SERVICE`.
    public var bindsPrivilegedPort: Bool { port < 1024 || (httpPort.map { $0 < 1024 } ?? false) }

    /// The unit: starts after the network at boot, restarts on failure, runs as its own unprivileged
    /// user in systemd's sandbox (a read-only system, its data directory the one place it writes),
    /// and may bind ports below 1024 by that one capability.
    public var unit: String {
        var lines = [
            "# Written by `shelfmark install`; run it again to change it. Settings: \(Self.configPath).",
            "[Unit]",
            "Description=Shelfmark library",
            "Documentation=https://github.com/shelfmark/shelfmark",
            "After=network-online.target",
            "Wants=network-online.target",
            "",
            "[Service]",
            "Type=simple",
            "User=\(user)",
            "Group=\(user)",
            "EnvironmentFile=\(Self.configPath)",
            "WorkingDirectory=\(dataDirectory)",
            "ExecStart=\(binary) serve --hostname ${SHELFMARK_HOSTNAME} --port ${SHELFMARK_PORT}",
            "Restart=on-failure",
            "RestartSec=5",
            "TimeoutStopSec=30",
            "UMask=0077",
            "NoNewPrivileges=yes",
            "ProtectSystem=strict",
            "ProtectHome=yes",
            "PrivateTmp=yes",
            "PrivateDevices=yes",
            "ProtectKernelTunables=yes",
            "ProtectKernelModules=yes",
            "ProtectKernelLogs=yes",
            "ProtectControlGroups=yes",
            "ProtectClock=yes",
            "ProtectHostname=yes",
            "RestrictSUIDSGID=yes",
            "RestrictRealtime=yes",
            "RestrictNamespaces=yes",
            "LockPersonality=yes",
            "RestrictAddressFamilies=AF_INET AF_INET6 AF_UNIX AF_NETLINK",
            "SystemCallArchitectures=native",
            "ReadWritePaths=" + ([dataDirectory] + writablePaths).joined(separator: " "),
        ]
        if bindsPrivilegedPort {
            lines += ["AmbientCapabilities=CAP_NET_BIND_SERVICE", "CapabilityBoundingSet=CAP_NET_BIND_SERVICE"]
        } else {
            lines += ["CapabilityBoundingSet="]
        }
        lines += ["", "[Install]", "WantedBy=multi-user.target", ""]
        return lines.joined(separator: "\n")
    }

    /// The configuration file the unit reads (`KEY=value` lines; systemd's `EnvironmentFile`).
    public var config: String {
        var lines = [
            "# Shelfmark's settings as a service. Change them, then: systemctl restart shelfmark",
            "# The address and port the server listens on; HTTPS with Shelfmark's own certificate (or",
            "# SHELFMARK_TLS_CERT and SHELFMARK_TLS_KEY), plain HTTP on SHELFMARK_HTTP_PORT sending others to HTTPS.",
            "SHELFMARK_HOSTNAME=\(hostname)",
            "SHELFMARK_PORT=\(port)",
            "SHELFMARK_TLS=\(tls ? "true" : "false")",
            "SHELFMARK_HTTP_PORT=\(httpPort.map(String.init) ?? "")",
            "# The address people use (links in emails), e.g. https://library.school.example",
            "SHELFMARK_PUBLIC_URL=\(publicURL ?? "")",
            "# Where the data lives (the SQLite database, the certificate, the nightly backups).",
            "SHELFMARK_DATA_DIR=\(dataDirectory)",
            "SHELFMARK_PUBLIC_DIR=\(publicDirectory)",
            "# PostgreSQL instead of SQLite: postgres://user:password@host:5432/database",
            "DATABASE_URL=\(databaseURL ?? "")",
            "# /metrics for Prometheus: on (the administrator's API token), and/or the addresses that may",
            "# scrape without one, e.g. SHELFMARK_METRICS_ALLOW=10.0.0.5,192.168.1.0/24. Off when both are empty.",
            "SHELFMARK_METRICS=",
            "SHELFMARK_METRICS_ALLOW=",
            "# Logs as JSON, one object per line (json), for a log collector; text otherwise.",
            "SHELFMARK_LOG_FORMAT=text",
        ]
        lines.append("")
        return lines.joined(separator: "\n")
    }
}
