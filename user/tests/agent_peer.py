#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
# A misbehaving host for the agent tests: connects to the agent and does one
# wrong thing (wrong token, garbage, an oversized length, a stall), then
# prints what the agent answered (its ERROR text, or "closed").
# usage: agent_peer.py HOST PORT wrong-token|bad-magic|oversized|stall-header|silent|bad-start TOKEN
import hashlib, hmac, os, socket, struct, sys

MAGIC, VERSION = 0x4d525047, 1
HELLO, CHALLENGE, AUTH, READY, START, ERROR = 1, 2, 3, 4, 5, 12


def send(s, typ, payload=b"", length=None):
    n = len(payload) if length is None else length
    s.sendall(struct.pack("<IHHII", MAGIC, VERSION, typ, n, 0) + payload)


def recv_msg(s):
    hdr = b""
    while len(hdr) < 16:
        chunk = s.recv(16 - len(hdr))
        if not chunk:
            return None, b""
        hdr += chunk
    magic, ver, typ, n, _ = struct.unpack("<IHHII", hdr)
    body = b""
    while len(body) < n:
        chunk = s.recv(n - len(body))
        if not chunk:
            break
        body += chunk
    return typ, body


def answer(s):
    try:
        while True:
            typ, body = recv_msg(s)
            if typ is None:
                return "closed"
            if typ == ERROR:
                return "ERROR " + body.decode(errors="replace")
    except (ConnectionResetError, socket.timeout) as e:
        return "closed (%s)" % e


def authenticate(s, token):
    nonce_h = os.urandom(32)
    send(s, HELLO, nonce_h)
    typ, body = recv_msg(s)
    assert typ == CHALLENGE, typ
    nonce_a = body[:32]
    mac = hmac.new(token, b"gpuprobe-host\0" + nonce_a + nonce_h, hashlib.sha256).digest()
    send(s, AUTH, mac)
    typ, body = recv_msg(s)
    assert typ == READY, (typ, body)


def main():
    host, port, what, token = sys.argv[1], int(sys.argv[2]), sys.argv[3], sys.argv[4].encode()
    s = socket.create_connection((host, port))
    s.settimeout(30)
    if what == "wrong-token":
        send(s, HELLO, os.urandom(32))
        typ, body = recv_msg(s)
        send(s, AUTH, hmac.new(b"not-the-token", body, hashlib.sha256).digest())
    elif what == "bad-magic":
        s.sendall(b"GET / HTTP/1.0\r\n\r\n")
    elif what == "oversized":
        send(s, HELLO, b"", length=1 << 30)
    elif what == "stall-header":
        s.sendall(struct.pack("<IHH", MAGIC, VERSION, HELLO))   # 8 of 16 header bytes
    elif what == "silent":
        pass
    elif what == "bad-start":
        authenticate(s, token)
        send(s, START, b"source=tracefs\0--output=/etc/passwd\0")
    print(answer(s))


main()
