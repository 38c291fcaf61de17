/**
 * The protocol core of the Python client the adapter packages will ship (`<package>/_client.py`
 * once an adapter template includes it): stdlib only, no import-time side effects. Its wire
 * constants are interpolated from `engine/runtime/protocol`, so the two ends cannot drift.
 */
import { HEADER_BYTES, MAGIC, OPCODE, PROTOCOL_VERSION } from '../../engine/runtime/protocol/index.js';

const opcodes = Object.entries(OPCODE)
  .map(([name, value]) => `    ${JSON.stringify(name)}: ${value},`)
  .join('\n');

export const CLIENT_PY = String.raw`"""OrbitKV Manager client: the protocol core (framing, handshake, requests, shared-memory pages).

Generated from the Manager's protocol definition; do not edit. Standard library only. Importing
this module opens nothing; a Connection connects when it is created.

Frames are a 24-byte little-endian header (magic, protocol version, opcode, request id as two
u32, payload length, reserved zero) and a UTF-8 JSON payload. Bulk bytes never cross the socket:
the engine's pages live in an owner-only file under /dev/shm (PageFile) that both sides use.
"""

import json
import mmap
import os
import socket
import struct

MAGIC = ${MAGIC}
PROTOCOL_VERSION = ${PROTOCOL_VERSION}
HEADER_BYTES = ${HEADER_BYTES}
OPCODE = {
${opcodes}
}
_HEADER = struct.Struct("<IHHIIII")
assert _HEADER.size == HEADER_BYTES


class ManagerRefused(Exception):
    """The Manager refused the handshake or a request: carries its diagnostic code and message."""

    def __init__(self, body):
        super().__init__("%s: %s" % (body.get("code"), body.get("message")))
        self.code = body.get("code")
        self.body = body


def default_socket_path(env=None):
    env = os.environ if env is None else env
    runtime = env.get("XDG_RUNTIME_DIR")
    if runtime:
        return os.path.join(runtime, "orbitkv", "manager.sock")
    return os.path.join("/tmp", "orbitkv-%d" % os.getuid(), "manager.sock")


def encode_frame(opcode, request_id, payload=b"", version=PROTOCOL_VERSION):
    return _HEADER.pack(MAGIC, version, opcode, request_id & 0xFFFFFFFF, request_id >> 32, len(payload), 0) + payload


class Connection:
    """One connection to the Manager; requests are answered in order of their ids."""

    def __init__(self, path=None, timeout=30.0):
        self._sock = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        self._sock.settimeout(timeout)
        self._sock.connect(path or default_socket_path())
        self._next = 1
        self._buf = bytearray()
        self.session = None

    def close(self):
        self._sock.close()

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.close()

    def _recv_frame(self):
        while True:
            if len(self._buf) >= HEADER_BYTES:
                magic, version, opcode, lo, hi, length, reserved = _HEADER.unpack_from(self._buf)
                if magic != MAGIC or reserved != 0:
                    raise ConnectionError("the Manager sent a frame with bad magic")
                if len(self._buf) >= HEADER_BYTES + length:
                    payload = bytes(self._buf[HEADER_BYTES:HEADER_BYTES + length])
                    del self._buf[:HEADER_BYTES + length]
                    return opcode, (hi << 32) | lo, payload
            chunk = self._sock.recv(1 << 16)
            if not chunk:
                raise ConnectionError("the Manager closed the connection")
            self._buf += chunk

    def request_raw(self, opcode, payload=b""):
        """Sends one frame and returns (opcode, payload bytes) of its reply."""
        request_id = self._next
        self._next += 1
        self._sock.sendall(encode_frame(opcode, request_id, payload))
        while True:
            reply_opcode, reply_id, reply = self._recv_frame()
            if reply_id == request_id:
                return reply_opcode, reply

    def request(self, name, body):
        opcode, payload = self.request_raw(OPCODE[name], json.dumps(body, separators=(",", ":")).encode("utf-8"))
        value = json.loads(payload.decode("utf-8")) if payload else {}
        if opcode in (OPCODE["error"], OPCODE["refused"]):
            raise ManagerRefused(value)
        return value

    def hello(self, profile, client="python"):
        welcome = self.request("hello", {"protocol": PROTOCOL_VERSION, "profile": profile, "client": client})
        self.session = welcome["session"]
        return welcome

    def register_pages(self, pages):
        return self.request("registerPages", {"path": pages.path, "pageBytes": pages.page_bytes, "pages": pages.pages, "flagsOffset": pages.flags_offset})

    def lookup(self, namespace, hashes, request, rank=0, world_size=1, deadline_ms=1000):
        return self.request("lookup", {"namespace": namespace, "hashes": list(hashes), "request": request, "rank": rank, "worldSize": world_size, "deadlineMs": deadline_ms})

    def save(self, namespace, hashes, pages):
        return self.request("save", {"namespace": namespace, "hashes": list(hashes), "pages": list(pages)})

    def restore(self, ticket, pages):
        return self.request("restore", {"ticket": ticket, "pages": list(pages)})

    def release(self, ticket):
        return self.request("release", {"ticket": ticket})

    def cancel(self, ticket):
        return self.request("cancel", {"ticket": ticket})

    def echo(self, body):
        return self.request("echo", body)


class PageFile:
    """Pages in an owner-only (0600) file under /dev/shm, mapped here and opened by the Manager.

    Layout: pages x page_bytes of page data, then one completion-flag byte per page (the Manager
    sets it to 1 when a restore's bytes have landed in that page).
    """

    def __init__(self, pages, page_bytes, path=None):
        self.pages = pages
        self.page_bytes = page_bytes
        self.flags_offset = pages * page_bytes
        self.path = path or "/dev/shm/orbitkv-pages-%d-%s" % (os.getpid(), os.urandom(6).hex())
        fd = os.open(self.path, os.O_RDWR | os.O_CREAT | os.O_EXCL | os.O_NOFOLLOW, 0o600)
        try:
            os.ftruncate(fd, self.flags_offset + pages)
            self.map = mmap.mmap(fd, self.flags_offset + pages)
        finally:
            os.close(fd)

    def page(self, index):
        start = index * self.page_bytes
        return memoryview(self.map)[start:start + self.page_bytes]

    def flag(self, index):
        return self.map[self.flags_offset + index]

    def close(self, unlink=True):
        self.map.close()
        if unlink:
            try:
                os.unlink(self.path)
            except FileNotFoundError:
                pass
`;
