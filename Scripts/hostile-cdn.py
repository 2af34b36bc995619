#!/usr/bin/env python3
"""A CDN that misbehaves, for the updater's tests: serves a published set from ROOT over loopback
HTTP/1.1, except that every request whose path ends with HOSTILE gets MODE:

  chunked     200, Transfer-Encoding: chunked, bytes for ever
  close       200, no length, Connection: close, bytes for ever
  lie         200, Content-Length: 1000000000000, bytes for ever
  gzip        200, Content-Encoding: gzip, chunked: a gzip stream of zeros for ever (a few KiB on the
              wire per MiB decoded)
  trickle     200, the file's true Content-Length, one byte a second

Prints its port on the first line of standard output and serves until it is killed or its standard
input closes (so it never outlives the test that started it).

    Scripts/hostile-cdn.py ROOT HOSTILE MODE   (started by Tools/Tests/CasinoCacheTests/HostileCDNTests.swift)
"""

import http.server
import os
import socketserver
import sys
import threading
import time
import zlib

ROOT, HOSTILE, MODE = sys.argv[1], sys.argv[2], sys.argv[3]
BLOCK = b"\x00" * 65536


class Handler(http.server.BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"

    def log_message(self, *args):
        pass

    def do_GET(self):
        path = self.path.split("?", 1)[0]
        if path.endswith(HOSTILE):
            self.hostile(path)
            return
        relative = os.path.normpath(path.lstrip("/")).split("/", 1)[-1]  # drop the set's URL prefix
        file = os.path.join(ROOT, relative)
        if relative.startswith("..") or not os.path.isfile(file):
            self.send_error(404)
            return
        with open(file, "rb") as handle:
            body = handle.read()
        self.send_response(200)
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)

    def hostile(self, path):
        self.close_connection = True
        if MODE == "chunked":
            self.send_response(200)
            self.send_header("Transfer-Encoding", "chunked")
            self.end_headers()
            piece = b"%x\r\n" % len(BLOCK) + BLOCK + b"\r\n"
            while True:
                self.wfile.write(piece)
        elif MODE == "close":
            self.send_response(200)
            self.send_header("Connection", "close")
            self.end_headers()
            while True:
                self.wfile.write(BLOCK)
        elif MODE == "lie":
            self.send_response(200)
            self.send_header("Content-Length", "1000000000000")
            self.end_headers()
            while True:
                self.wfile.write(BLOCK)
        elif MODE == "gzip":
            self.send_response(200)
            self.send_header("Content-Encoding", "gzip")
            self.send_header("Transfer-Encoding", "chunked")
            self.end_headers()
            compressor = zlib.compressobj(9, zlib.DEFLATED, 16 + 15)
            megabyte = BLOCK * 16
            while True:
                piece = compressor.compress(megabyte) + compressor.flush(zlib.Z_SYNC_FLUSH)
                self.wfile.write(b"%x\r\n" % len(piece) + piece + b"\r\n")
        elif MODE == "trickle":
            file = os.path.join(ROOT, path.lstrip("/").split("/", 1)[-1])
            size = os.path.getsize(file) if os.path.isfile(file) else 1 << 20
            self.send_response(200)
            self.send_header("Content-Length", str(size))
            self.end_headers()
            for _ in range(size):
                self.wfile.write(b"\x00")
                self.wfile.flush()
                time.sleep(1)
        else:
            self.send_error(500, "unknown mode " + MODE)


class Server(socketserver.ThreadingMixIn, http.server.HTTPServer):
    daemon_threads = True

    def handle_error(self, request, client_address):
        pass  # the client hanging up on an endless body is the point


def main():
    server = Server(("127.0.0.1", 0), Handler)
    print(server.server_address[1], flush=True)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    sys.stdin.read()  # until the test closes it or is gone


if __name__ == "__main__":
    try:
        main()
    except (BrokenPipeError, KeyboardInterrupt):
        pass
