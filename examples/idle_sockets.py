#!/usr/bin/env python3
"""Measures what idle WebSockets cost a running `meeple serve --listen` (docs/performance.md,
"Idle WebSockets"): creates a game, opens N spectator sockets on it and leaves them quiet, then
reports the server's CPU time over ten seconds and its resident memory. Linux only (it reads
/proc), Python's standard library only.

    cargo build --release
    target/release/meeple serve --listen 127.0.0.1:8080 --max-connections 600 --max-per-address 600 &
    python3 examples/idle_sockets.py --server http://127.0.0.1:8080 --pid $! --sockets 500
"""

import argparse
import base64
import json
import os
import socket
import time
import urllib.parse
import urllib.request


def create_game(server):
    request = urllib.request.Request(f"{server}/games", data=b"{}", method="POST")
    with urllib.request.urlopen(request) as reply:
        return json.load(reply)["result"]["game"]


def open_socket(host, port, game):
    """A spectator's WebSocket, opened with a handshake of our own; the welcome is left unread
    past its first bytes."""
    sock = socket.create_connection((host, port))
    key = base64.b64encode(os.urandom(16)).decode()
    sock.sendall(
        f"GET /games/{game}/ws HTTP/1.1\r\nHost: {host}\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n"
        f"Sec-WebSocket-Key: {key}\r\nSec-WebSocket-Version: 13\r\n\r\n".encode()
    )
    head = sock.recv(65536)
    while b"\r\n\r\n" not in head:
        head += sock.recv(65536)
    if not head.startswith(b"HTTP/1.1 101"):
        raise SystemExit(f"the server refused a WebSocket: {head[:200]!r}")
    # A socket that cannot join its game is opened, then refused on it: its first message says
    # why (a reply holding an error) where a welcome would be.
    first = head.split(b"\r\n\r\n", 1)[1]
    while len(first) < 16:
        first += sock.recv(65536)
    if b'"error"' in first[:32]:
        raise SystemExit(f"the server refused a WebSocket: {first[:200]!r}")
    return sock


def cpu_seconds(pid):
    fields = open(f"/proc/{pid}/stat").read().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def resident_kib(pid):
    for line in open(f"/proc/{pid}/status"):
        if line.startswith("VmRSS:"):
            return int(line.split()[1])
    raise SystemExit("no VmRSS in /proc/PID/status")


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--server", default="http://127.0.0.1:8080")
    parser.add_argument("--pid", type=int, required=True, help="the server's process id")
    parser.add_argument("--sockets", type=int, default=500)
    args = parser.parse_args()
    url = urllib.parse.urlparse(args.server)
    game = create_game(args.server)
    before = resident_kib(args.pid)
    sockets = [open_socket(url.hostname, url.port, game) for _ in range(args.sockets)]
    time.sleep(3)  # past the 2 s after which a quiet socket's reads wait longer
    start = cpu_seconds(args.pid)
    time.sleep(10)
    used = (cpu_seconds(args.pid) - start) / 10
    after = resident_kib(args.pid)
    print(f"{len(sockets)} idle WebSockets: {used:.3f} of a core; resident memory "
          f"{before / 1024:.0f} MiB before, {after / 1024:.0f} MiB with them open")


if __name__ == "__main__":
    main()
