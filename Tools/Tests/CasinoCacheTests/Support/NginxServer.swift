import Foundation
import Testing

#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// A real CDN for the updater's tests: nginx serving a published set under `/ota/` on a loopback
/// port, started as a child with its own prefix (configuration, pid, logs, temp files) and stopped
/// by its PID. Not optional: without nginx the initializer throws, saying how to install it
/// (`.ci/run` and `make deps` do).
///
/// The access log has one line per request: `CONNECTION REQUESTS_ON_IT STATUS GZIP_SENT "REQUEST"`.
final class NginxServer {
    struct Unavailable: Error, CustomStringConvertible {
        var description: String
    }

    let prefix: URL
    let base: URL
    private let process = Process()

    /// Starts nginx over `root`; `directives` go into its `/ota/` location (`gzip on;`, …).
    init(serving root: URL, prefix: URL, directives: String = "") async throws {
        guard
            let nginx = ["/usr/sbin/nginx", "/usr/local/sbin/nginx", "/opt/homebrew/bin/nginx"]
                .first(where: FileManager.default.isExecutableFile(atPath:))
        else {
            throw Unavailable(
                description: "nginx is required to test the updater against a real CDN and is not installed: "
                    + "sudo apt-get install nginx-light (Debian; .ci/run installs it)")
        }
        self.prefix = prefix
        try FileManager.default.createDirectory(
            at: prefix.appendingPathComponent("temp"), withIntermediateDirectories: true)
        let port = try Self.freePort()
        base = try #require(URL(string: "http://127.0.0.1:\(port)"))
        let temp = prefix.appendingPathComponent("temp").path
        // Run as root (CI), nginx's workers read the temporary directory only as root.
        let user = getuid() == 0 ? "user root;" : ""
        let configuration = """
            \(user)
            worker_processes 1;
            pid \(prefix.path)/nginx.pid;
            error_log \(prefix.path)/error.log;
            events { worker_connections 64; }
            http {
                log_format requests '$connection $connection_requests $status $gzip_ratio "$request"';
                access_log \(prefix.path)/access.log requests;
                client_body_temp_path \(temp)/body;
                proxy_temp_path \(temp)/proxy;
                fastcgi_temp_path \(temp)/fastcgi;
                uwsgi_temp_path \(temp)/uwsgi;
                scgi_temp_path \(temp)/scgi;
                types { application/json json; }
                default_type application/octet-stream;
                keepalive_requests 1000;
                server {
                    listen 127.0.0.1:\(port);
                    location /ota/ {
                        alias \(root.path)/;
                        \(directives)
                    }
                    location /moved/ {
                        rewrite ^/moved/(.*)$ /ota/$1 permanent;
                    }
                }
            }
            """
        let file = prefix.appendingPathComponent("nginx.conf")
        try configuration.write(to: file, atomically: true, encoding: .utf8)
        process.executableURL = URL(fileURLWithPath: nginx)
        process.arguments = ["-p", prefix.path + "/", "-c", file.path, "-g", "daemon off;"]
        process.standardOutput = FileHandle.nullDevice
        process.standardError = FileHandle.nullDevice
        try process.run()
        try await waitUntilServing()
    }

    func stop() {
        guard process.isRunning else { return }
        process.terminate()
        process.waitUntilExit()
    }

    /// The access log's lines so far.
    func requests() -> [String] {
        let text = (try? String(contentsOf: prefix.appendingPathComponent("access.log"), encoding: .utf8)) ?? ""
        return text.split(separator: "\n").map(String.init)
    }

    private func waitUntilServing() async throws {
        let session = URLSession(configuration: .ephemeral)
        let probe = base.appendingPathComponent("ota/")
        for _ in 0..<100 {
            guard process.isRunning else { break }
            var request = URLRequest(url: probe)
            request.timeoutInterval = 1
            if (try? await session.data(for: request)) != nil { return }
            try await Task.sleep(for: .milliseconds(50))
        }
        let log = (try? String(contentsOf: prefix.appendingPathComponent("error.log"), encoding: .utf8)) ?? ""
        stop()
        throw Unavailable(description: "nginx did not start serving \(base): \(log.suffix(2000))")
    }

    /// A port nothing listens on now (the kernel's pick for a socket bound to port 0).
    private static func freePort() throws -> Int {
        let process = Process()
        let output = Pipe()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        process.arguments = [
            "python3", "-c",
            "import socket; s = socket.socket(); s.bind(('127.0.0.1', 0)); print(s.getsockname()[1])",
        ]
        process.standardOutput = output
        try process.run()
        let text = String(decoding: output.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        process.waitUntilExit()
        return try #require(Int(text.trimmingCharacters(in: .whitespacesAndNewlines)))
    }
}
