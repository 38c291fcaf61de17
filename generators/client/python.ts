/**
 * The Python client every adapter package ships as `<package>/_client.py`: stdlib only, no
 * import-time side effects. Its wire constants are interpolated from `engine/runtime/protocol`
 * and the page layout from `engine/runtime/pages`, so the two ends cannot drift. Every product
 * name it prints or reads (the socket variable, the socket folder, the serve command) comes from
 * the package's `_data.DATA["manager"]`, which the generator fills from the registry's product
 * (runtime/server/socket-path.ts `managerEndpoint`), never from this text.
 */
import { HEADER_BYTES, LOOKUP_HEAD_BYTES, LOOKUP_REPLY_BYTES, LOOKUP_STATES, MAGIC, MAX_HASH_BYTES, MAX_NAME_BYTES, OPCODE, PROTOCOL_VERSION, RELEASE_BYTES } from '../../engine/runtime/protocol/index.js';

const opcodes = Object.entries(OPCODE)
  .map(([name, value]) => `    ${JSON.stringify(name)}: ${value},`)
  .join('\n');

export const CLIENT_PY = String.raw`"""The Manager client: one connection per process and role, over the Manager's Unix socket.

Generated from the Manager's protocol definition; do not edit. Standard library only. Importing
this module opens nothing; connect() connects.

Wire: frames of a 24-byte little-endian header (magic, protocol version, opcode, request id as
two u32, payload length, reserved zero) and a UTF-8 JSON payload, except LOOKUP: a fixed
little-endian request (encode_lookup) answered by a fixed struct (decode_lookup_result), and
RELEASE: the ticket as 8 bytes (encode_release), answered only if refused. Bulk bytes never cross the
socket: the pages are a memfd this process creates, seals (F_SEAL_SHRINK | F_SEAL_GROW |
F_SEAL_SEAL: nobody can truncate it under the Manager's mapping) and deposits on the Manager's fd
socket over SCM_RIGHTS; both sides map it.

Never blocking the scheduler: replies are read by whichever call comes next (a selector pumped
on each call, no reader thread), so lookup() returns a Ticket at once and Ticket.poll() reads
what has arrived without waiting: None while the lookup is pending (never a miss). Only calls
named wait (wait, wait_layer, and the handshake and registration inside connect and
register_pages) wait, each with a timeout. Threads may share a client: one reads at a time, the
others see its results. Bounded: at most MAX_OUTSTANDING requests wait for replies, a reply is
at most the Manager's maxPayload.

A lost connection fails every request in flight (ConnectionLost; a pending ticket becomes
cancelled, reason connection-lost) and the next call reconnects: handshake again with the same
profile, the same memfd registered again. Reconnect attempts back off (RETRY_FIRST doubling to
RETRY_MAX seconds, a refused handshake included); a call inside the back-off window raises
ManagerNotReachable at once, or ManagerRefused again when the last attempt was refused. A call
that never waits (lookup, save, restore) does not wait for the WELCOME either: it sends HELLO, and
until a later call finds the WELCOME arrived each raises ManagerNotReachable (handshaking) at once;
no WELCOME within connect_timeout is a lost connection (backed off).
"""

import errno
import json
import mmap
import os
import re
import select
import selectors
import socket
import struct
import threading
import time
from collections.abc import Mapping

try:
    from . import _data as _package_data
except ImportError:  # a standalone copy (benchmarks): pass socket_path
    _package_data = None

MAGIC = ${MAGIC}
PROTOCOL_VERSION = ${PROTOCOL_VERSION}
HEADER_BYTES = ${HEADER_BYTES}
OPCODE = {
${opcodes}
}
_HEADER = struct.Struct("<IHHIIII")
_CHANNEL = struct.Struct("<II")
assert _HEADER.size == HEADER_BYTES

MAX_OUTSTANDING = 4096
MAX_REPLY = 16 << 20
RETRY_FIRST = 0.05
RETRY_MAX = 5.0
CONNECT_TIMEOUT = 5.0
# Seconds past a lookup's deadline_ms that a ticket waits for the Manager's answer before it
# settles timed-out on its own (reason no-reply): a stalled Manager never leaves it pending.
LOOKUP_GRACE = 1.0
FLAG_PENDING, FLAG_LANDED, FLAG_FAILED = 0, 1, 2
_STATES = {"ready": "ready", "miss": "miss", "timedOut": "timed-out", "cancelled": "cancelled"}

# The binary LOOKUP (engine/runtime/protocol/lookup-binary.ts): deadlineMs, blockSize (u32),
# rank, worldSize, count, model/layout/request byte lengths (u16), chain bytes (u32), the names,
# then the hashes joined by newlines. The reply: state, flags (u8), zero (u16), ticket (2 x u32),
# boundary, matched, DRAM hits, SSD hits (u32), grant (16 bytes).
LOOKUP_STATES = ${JSON.stringify(LOOKUP_STATES)}
MAX_NAME_BYTES = ${MAX_NAME_BYTES}
MAX_HASH_BYTES = ${MAX_HASH_BYTES}
_LOOKUP_HEAD = struct.Struct("<IIHHHHHHI")
_LOOKUP_REPLY = struct.Struct("<BBH6I16s")
assert _LOOKUP_HEAD.size == ${LOOKUP_HEAD_BYTES} and _LOOKUP_REPLY.size == ${LOOKUP_REPLY_BYTES}
# The binary RELEASE (engine/runtime/protocol/release-binary.ts): the ticket as two u32, low first.
_RELEASE = struct.Struct("<II")
assert _RELEASE.size == ${RELEASE_BYTES}
_HASH_CHAIN = re.compile(r"[0-9A-Za-z_:+/=-]{1,%d}(?:\n[0-9A-Za-z_:+/=-]{1,%d})*" % (MAX_HASH_BYTES, MAX_HASH_BYTES))


def _manager_data():
    data = _package_data.DATA if _package_data is not None else {}
    return data.get("manager") or None


class ManagerError(RuntimeError):
    """Base of the client's errors: code and message as the Manager (or the client) gave them."""

    def __init__(self, message, code=None, body=None):
        super().__init__(message)
        self.code = code
        self.body = body or {}


class ManagerNotReachable(ManagerError):
    """No Manager answers on the socket: names it and how to start one."""

    def __init__(self, socket_path, reason, role=None):
        # Why, as a word a caller can test: "handshaking" while a reconnect's WELCOME, or its pages'
        # re-registration, is due (the next call may find it done), else "unreachable".
        self.why = "handshaking" if str(reason).startswith("handshaking") else "unreachable"
        manager = _manager_data() or {}
        product = manager.get("product", "the")
        text = product + " Manager not reachable"
        if role is not None:
            text += " for the " + str(role) + " half"
        text += " at " + str(socket_path) + " (" + str(reason) + ")."
        if manager:
            text += " Start it with '" + manager["serve"] + "', or point " + manager["socketEnv"] + " to the socket it listens on."
        super().__init__(text, "not-reachable")
        self.socket_path = socket_path
        self.reason = reason


class ConnectionLost(ManagerNotReachable):
    """The connection dropped while a request waited for its reply (the next call reconnects)."""


class ManagerRefused(ManagerError):
    """The Manager refused the handshake or a request: carries its diagnostic code, message and reason."""

    def __init__(self, body):
        body = body if isinstance(body, dict) else {"message": str(body)}
        super().__init__("%s: %s" % (body.get("code"), body.get("message")), body.get("code"), body)
        self.reason = body.get("reason")
        self.hint = body.get("hint")


class ProtocolError(ManagerError):
    """The byte stream from the Manager is not a frame stream (the connection is closed)."""


class ClientBusy(ManagerError):
    """MAX_OUTSTANDING requests already wait for replies: read some (poll, wait) first."""


def default_socket_path(env=None, manager=None):
    """The socket under the one rule: <ENV>_MANAGER_SOCKET, else $XDG_RUNTIME_DIR/<folder>/manager.sock,
    else /tmp/<folder>-$UID/manager.sock (the same rule as the Manager's serve)."""
    manager = manager or _manager_data()
    if manager is None:
        raise ValueError("this copy of the client has no package data: pass socket_path")
    env = os.environ if env is None else env
    override = env.get(manager["socketEnv"])
    if override:
        return override
    runtime = env.get("XDG_RUNTIME_DIR")
    if runtime:
        return os.path.join(runtime, manager["folder"], "manager.sock")
    return os.path.join("/tmp", "%s-%d" % (manager["folder"], os.getuid()), "manager.sock")


def encode_frame(opcode, request_id, payload=b"", version=PROTOCOL_VERSION):
    return _HEADER.pack(MAGIC, version, opcode, request_id & 0xFFFFFFFF, request_id >> 32, len(payload), 0) + payload


def encode_lookup(namespace, hashes, request, rank=0, world_size=1, deadline_ms=1000):
    """A binary LOOKUP payload; ValueError for a field the layout cannot carry (nothing is sent)."""
    model, layout = namespace["model"], namespace["layout"]
    # Called at every scheduler step: strings (the common case) are encoded without a str() copy.
    model = (model if type(model) is str else str(model)).encode("utf-8")
    layout = (layout if type(layout) is str else str(layout)).encode("utf-8")
    name = (request if type(request) is str else str(request)).encode("utf-8")
    if not (0 < len(model) <= MAX_NAME_BYTES and 0 < len(layout) <= MAX_NAME_BYTES and 0 < len(name) <= MAX_NAME_BYTES):
        raise ValueError("model, layout and request must each be 1..%d bytes of UTF-8" % MAX_NAME_BYTES)
    chain = hashes if type(hashes) is list else list(hashes)
    count = len(chain)
    # The chain travels joined by newlines: one join, one match, one encode for all its hashes
    # (join refuses a hash that is not a str; those are converted, as before, by str()).
    try:
        joined = "\n".join(chain)
    except TypeError:
        joined = "\n".join(str(h) for h in chain)
    if count > 0xFFFF:
        raise ValueError("at most 65535 block hashes, got %d" % count)
    if count and (_HASH_CHAIN.fullmatch(joined) is None or joined.count("\n") != count - 1):
        raise ValueError("a block hash is 1..%d characters of [0-9A-Za-z_:+/=-]" % MAX_HASH_BYTES)
    block_size, rank, world_size, deadline_ms = int(namespace["blockSize"]), int(rank), int(world_size), int(deadline_ms)
    if not (0 < block_size <= 0xFFFFFFFF and 0 < world_size <= 4096 and 0 <= rank < world_size and 0 <= deadline_ms <= 600000):
        raise ValueError("blockSize, rank, worldSize or deadline_ms out of range")
    data = joined.encode("ascii")
    return b"".join((_LOOKUP_HEAD.pack(deadline_ms, block_size, rank, world_size, count, len(model), len(layout), len(name), len(data)), model, layout, name, data))


def encode_release(ticket):
    """A binary RELEASE payload: the ticket id as two little-endian u32, low first."""
    ticket = int(ticket)
    if not 0 <= ticket < (1 << 53):
        raise ValueError("a ticket id is 0..2^53-1, got %d" % ticket)
    return _RELEASE.pack(ticket & 0xFFFFFFFF, ticket >> 32)


def decode_lookup_result(payload):
    """A LOOKUP_BINARY_RESULT as the body a JSON LOOKUP_RESULT has."""
    if len(payload) != _LOOKUP_REPLY.size:
        raise ProtocolError("a binary lookup reply is %d bytes, got %d" % (_LOOKUP_REPLY.size, len(payload)), "protocol")
    state, flags, _zero, lo, hi, boundary, matched, dram, ssd, grant = _LOOKUP_REPLY.unpack(payload)
    if state >= len(LOOKUP_STATES):
        raise ProtocolError("the binary lookup reply has state code %d" % state, "protocol")
    body = {"ticket": (hi << 32) | lo, "state": LOOKUP_STATES[state], "boundary": boundary if flags & 1 else None, "matched": matched, "tiers": {"dram": dram, "ssd": ssd}}
    if flags & 2:
        body["grant"] = grant.hex()
    return body


def _decode_json(payload, what):
    """A reply's JSON body ({} when empty); bytes that are not UTF-8 JSON are a ProtocolError."""
    if not payload:
        return {}
    try:
        return json.loads(payload.decode("utf-8"))
    except (ValueError, UnicodeError) as error:
        raise ProtocolError("the Manager sent a %s that is not UTF-8 JSON (%s)" % (what, error), "protocol") from None


def _json(body):
    return json.dumps(body, separators=(",", ":"), ensure_ascii=False, allow_nan=False).encode("utf-8")


# -- the handshake profile -------------------------------------------------------------------

def _plain(value, depth=0):
    """A JSON value the Manager's checks read the same way as the live value (scalars, sizes, truthiness)."""
    if value is None or isinstance(value, (bool, int, str)):
        return value
    if isinstance(value, float):
        return value if value == value and value not in (float("inf"), float("-inf")) else str(value)
    if isinstance(value, bytes):
        return value.decode("utf-8", "replace")
    if depth >= 4:
        return {"(object)": type(value).__name__}
    if isinstance(value, Mapping):
        return {str(k): _plain(v, depth + 1) for k, v in list(value.items())[:256]}
    if isinstance(value, (list, tuple, set, frozenset)):
        return [_plain(v, depth + 1) for v in list(value)[:4096]]
    return {"(object)": type(value).__name__}


def _leaves(predicate, out):
    for key in ("all", "any"):
        if key in predicate:
            for part in predicate[key]:
                _leaves(part, out)
            return
    if "not" in predicate:
        _leaves(predicate["not"], out)
        return
    out.append(predicate)


def wire_profile(profile):
    """The handshake profile: what the package's rejection checks read of the live profile, as JSON.

    A live profile holds engine objects (vllm_config, server_args); the Manager runs the same
    checks over JSON. Only the facts a rejection reads travel: each config path's value placed at
    the path it resolves through (the adapter's fallback root included), and only the environment
    variables a rejection names (the rest of the environment, secrets included, stays here).
    Without package data (a standalone copy) the profile is sent as given.
    """
    if _package_data is None:
        return profile
    from . import rejections

    data = _package_data.DATA
    leaves = []
    for rejection in data.get("rejections", []):
        if rejection.get("engine") == profile.get("engine"):
            _leaves(rejection["when"], leaves)
    env_in = profile.get("env") or {}
    config_in = profile.get("config") or {}
    env, config = {}, {}
    fallback = (data.get("profile") or {}).get("fallbackRoot")
    for leaf in leaves:
        if "env" in leaf:
            if leaf["env"] in env_in and isinstance(env_in[leaf["env"]], str):
                env[leaf["env"]] = env_in[leaf["env"]]
            continue
        if "config" not in leaf:
            continue
        path = leaf["config"]
        value = rejections.resolve_config(config_in, path)
        if value is rejections._ABSENT:
            continue
        segments = path.split(".")
        root = config_in.get(segments[0]) if isinstance(config_in, Mapping) else None
        if fallback and segments[0] != fallback and root is None:
            segments = [fallback] + segments
        node = config
        for segment in segments[:-1]:
            child = node.get(segment)
            if child is None:
                child = node[segment] = {}
            if not isinstance(child, dict):
                break
            node = child
        else:
            last = segments[-1]
            plain = _plain(value)
            if isinstance(node.get(last), dict) and isinstance(plain, dict):
                node[last].update(plain)
            else:
                node[last] = plain
    return {"engine": profile.get("engine"), "version": profile.get("version"), "env": env, "config": config}


# -- pages --------------------------------------------------------------------------------------

class Registration:
    """Pages in a sealed memfd, mapped here and by the Manager.

    Layout (layer-major): page i of layer l at (l * pages + i) * page_bytes; then one flag byte per
    page per layer, flag (l, i) at layers * pages * page_bytes + l * pages + i. A block is one page
    across every layer (layers * page_bytes is the Manager's block size).
    """

    def __init__(self, page_bytes, pages, layers=1, seal=True, name="kv-pages"):
        if page_bytes <= 0 or pages <= 0 or layers <= 0:
            raise ValueError("page_bytes, pages and layers must be positive")
        self.page_bytes, self.pages, self.layers = page_bytes, pages, layers
        self.data_bytes = layers * pages * page_bytes
        self.size = self.data_bytes + layers * pages
        import fcntl

        self.fd = os.memfd_create(name, os.MFD_CLOEXEC | os.MFD_ALLOW_SEALING)
        try:
            os.ftruncate(self.fd, self.size)
            if seal:  # seal=False exists only to show the Manager refusing an unsealed memfd
                fcntl.fcntl(self.fd, fcntl.F_ADD_SEALS, fcntl.F_SEAL_SHRINK | fcntl.F_SEAL_GROW | fcntl.F_SEAL_SEAL)
            self.map = mmap.mmap(self.fd, self.size)
        except BaseException:
            os.close(self.fd)
            raise
        self.buffer = memoryview(self.map)

    def page(self, index, layer=0):
        """The bytes of page index in one layer (a writable memoryview)."""
        if not (0 <= index < self.pages and 0 <= layer < self.layers):
            raise IndexError("page %r of layer %r is outside %d pages x %d layers" % (index, layer, self.pages, self.layers))
        start = (layer * self.pages + index) * self.page_bytes
        return self.buffer[start:start + self.page_bytes]

    def flag(self, index, layer=0):
        return self.map[self.data_bytes + layer * self.pages + index]

    def clear_flags(self, pages):
        for layer in range(self.layers):
            base = self.data_bytes + layer * self.pages
            for index in pages:
                self.map[base + index] = FLAG_PENDING

    def close(self):
        try:
            self.buffer.release()
            self.map.close()
        except (BufferError, ValueError):
            pass  # a caller still holds a page view; the mapping goes with it
        try:
            os.close(self.fd)
        except OSError:
            pass


# -- replies, tickets, operations -------------------------------------------------------------

# The final replies a lookup may have; any other opcode answering one is a ProtocolError.
_LOOKUP_FINALS = frozenset((OPCODE["lookupBinaryResult"], OPCODE["lookupResult"], OPCODE["error"]))


class _Reply:
    __slots__ = ("opcode", "value", "error", "done", "notice", "on_notice", "lookup", "id")

    def __init__(self, lookup=False):
        self.id = None
        self.opcode = None
        self.value = None  # the body, decoded (and checked) when the frame was dispatched
        self.error = None
        self.done = False
        self.notice = None
        self.on_notice = None
        self.lookup = lookup

    def body(self):
        if self.error is not None:
            raise self.error
        if self.opcode in (OPCODE["error"], OPCODE["refused"]):
            raise ManagerRefused(self.value)
        return self.value


class LookupResult:
    """A lookup that left pending: state is ready, miss, timed-out or cancelled."""

    __slots__ = ("state", "boundary", "tiers", "matched", "ticket", "reason", "grant")

    def __init__(self, state, boundary, tiers, matched=0, ticket=None, reason=None, grant=None):
        self.state, self.boundary, self.tiers, self.matched, self.ticket, self.reason, self.grant = state, boundary, tiers, matched, ticket, reason, grant

    def __repr__(self):
        return "LookupResult(state=%r, boundary=%r, tiers=%r)" % (self.state, self.boundary, self.tiers)


class Ticket:
    """A lookup in flight. poll() never waits: None while pending, then its LookupResult.

    Without an answer by deadline_ms + LOOKUP_GRACE (a stalled Manager) it stops waiting: the
    Manager is sent a cancel and the ticket settles timed-out, reason no-reply.
    """

    def __init__(self, client, reply, request, generation, deadline_ms=1000):
        self._client, self._reply, self.request, self._generation = client, reply, request, generation
        self._result = None
        self.id = None
        self.cancel_requested = False
        self._expires = time.monotonic() + int(deadline_ms) / 1000.0 + LOOKUP_GRACE

    def poll(self):
        if self._result is None:
            self._client._pump(0.0)
            self._settle()
            if self._result is None and time.monotonic() > self._expires:
                self._expire()
        return self._result

    def _expire(self):
        client, reply = self._client, self._reply
        with client._state:
            if client._waiting.get(reply.id) is reply:
                del client._waiting[reply.id]
                if self._generation == client._generation:
                    client._abandon(reply.id)
        if reply.done:  # answered meanwhile (another thread dispatched it)
            self._settle()
            return
        if self.id is not None and self._generation == client._generation:
            try:
                client._notify(OPCODE["cancel"], _json({"ticket": self.id}))
            except ManagerError:
                pass
        self._result = LookupResult("timed-out", 0, {}, ticket=self.id, reason="no-reply")

    def wait(self, timeout):
        """The result, waiting up to timeout seconds; None if still pending then."""
        return _wait(self._client, self.poll, timeout)

    def _settle(self):
        reply = self._reply
        if self.id is None and reply.notice is not None:
            self.id = reply.notice.get("ticket")
        if not reply.done:
            return
        if isinstance(reply.error, ConnectionLost):
            self._result = LookupResult("cancelled", 0, {}, reason="connection-lost", ticket=self.id)
            return
        body = reply.body()
        self.id = body.get("ticket", self.id)
        state = _STATES.get(body.get("state"), body.get("state"))
        if self.cancel_requested and state == "ready":
            # Cancelled (or released) before the Manager named the ticket, and answered ready
            # before the cancel could go: its leases are given back as release() does.
            client = self._client
            if self.id is not None and self._generation == client._generation:
                try:
                    client._notify(OPCODE["releaseBinary"], encode_release(self.id))
                except (ManagerError, ValueError):
                    pass
            self._result = LookupResult("cancelled", 0, {}, ticket=self.id)
            return
        self._result = LookupResult(state, body.get("boundary") or 0, body.get("tiers") or {}, body.get("matched") or 0, self.id, grant=body.get("grant"))

    def share(self):
        """A ready ticket as JSON another process's client can restore ({"ticket", "grant"}): the
        vLLM scheduler looks up, its workers load. None unless ready."""
        result = self.poll()
        if result is None or result.state != "ready" or result.grant is None:
            return None
        return {"ticket": result.ticket, "grant": result.grant}


def _wait(client, poll, timeout):
    """poll() until it gives a result, pumping the connection; None once timeout seconds passed."""
    deadline = time.monotonic() + timeout
    result = poll()
    while result is None:
        left = deadline - time.monotonic()
        if left <= 0:
            return None
        client._pump(min(left, 0.05))
        result = poll()
    return result


class Operation:
    """A save (or any request answered once its I/O has settled): poll() never waits."""

    def __init__(self, client, reply):
        self._client, self._reply = client, reply
        self._result = None

    def poll(self):
        if self._result is None:
            self._client._pump(0.0)
            if self._reply.done:
                self._result = self._reply.body()
        return self._result

    def done(self):
        return self.poll() is not None

    def wait(self, timeout):
        """The result, waiting up to timeout seconds; None if still pending then."""
        return _wait(self._client, self.poll, timeout)


class Restore(Operation):
    """A restore into registered pages: per-layer completion read from the shared flags."""

    def __init__(self, client, reply, registration, pages, ticket):
        super().__init__(client, reply)
        self._registration, self.pages, self.ticket = registration, list(pages), ticket

    def _layer_settled(self, layer):
        reg = self._registration
        base = reg.data_bytes + layer * reg.pages
        flags = reg.map
        return all(flags[base + p] != FLAG_PENDING for p in self.pages)

    def wait_layer(self, layer, timeout):
        """True once every page of the restore has landed (or failed) in layer; False on timeout."""
        if not 0 <= layer < self._registration.layers:
            raise IndexError("layer %r of %d" % (layer, self._registration.layers))
        deadline = time.monotonic() + timeout
        pause = 20e-6
        while True:
            if self._layer_settled(layer) or self.done():
                return True
            left = deadline - time.monotonic()
            if left <= 0:
                return False
            self._client._pump(0.0)
            time.sleep(min(pause, left))
            pause = min(pause * 2, 1e-3)

    def failed_pages(self):
        """The pages (indices in the registration) of failed_blocks()."""
        return [self.pages[i] for i in self.failed_blocks()]

    def failed_blocks(self):
        """Positions (in pages) of the blocks that will not land: flagged failed, or not restored once done."""
        reg = self._registration
        failed = set()
        for i, p in enumerate(self.pages):
            for layer in range(reg.layers):
                if reg.flag(p, layer) == FLAG_FAILED:
                    failed.add(i)
        result = self.poll()
        if result is not None:
            for i, outcome in enumerate(result.get("blocks", [])):
                if outcome != "restored":
                    failed.add(i)
            for i in range(len(result.get("blocks", [])), len(self.pages)):
                failed.add(i)
        return sorted(failed)


# -- the client ----------------------------------------------------------------------------------

class Client:
    """One connection to the Manager (see the module docstring). Use connect()."""

    def __init__(self, profile, role, socket_path=None, name=None, connect_timeout=CONNECT_TIMEOUT):
        self.profile = wire_profile(profile)
        self.role = role
        self.socket_path = socket_path or default_socket_path()
        self.name = name or "%s-%d" % (role, os.getpid())
        self.connect_timeout = connect_timeout
        self.welcome = None
        self.registration = None
        self._state = threading.Lock()
        self._send_lock = threading.Lock()
        self._read_lock = threading.Lock()
        self._sock = None
        self._selector = None
        self._buf = bytearray()
        self._next_id = 1
        self._waiting = {}
        # Requests sent after dispatch, not during it (a cancel a LOOKUP_PENDING made possible, or
        # one that met MAX_OUTSTANDING): (name, body), this connection's only.
        self._deferred = []
        # Lookups this client stopped waiting for (no reply by deadline_ms + LOOKUP_GRACE): request
        # id -> None, this connection's only, the oldest forgotten past MAX_OUTSTANDING. A late
        # answer to one is not dropped: a ready one is released, a pending one cancelled.
        self._abandoned = {}
        self._generation = 0
        self._retry_at = 0.0
        self._retry = 0.0
        self._refusal = None  # the body of the handshake refusal that set the back-off
        self._max_reply = MAX_REPLY
        self._closed = False
        self._connect_lock = threading.Lock()
        self._hello = None  # (HELLO's reply, deadline) while a handshake is under way
        # After WELCOME on a reconnect, the pages registered before go again (the fd deposit, then
        # REGISTER_PAGES): part of the handshake, never waited for by a call that does not wait.
        self._rereg = None
        self._register_timeout = 10.0
        self._reconnect()

    # connection -----------------------------------------------------------------------------

    def _reconnect(self, wait=True):
        # One thread reconnects; the others find the connection made (or the back-off set).
        with self._connect_lock:
            if self._sock is None or self._hello is not None or self._rereg is not None:
                if not self._reconnect_locked(wait):
                    what = "HELLO sent, no WELCOME yet" if self._hello is not None else "re-registering the pages"
                    raise ManagerNotReachable(self.socket_path, "handshaking (%s)" % what, self.role)

    def _reconnect_locked(self, wait):
        """Connects and handshakes; True once welcomed. wait=False (a call that never waits: lookup,
        save, restore) sends HELLO and returns False until a later call finds WELCOME arrived."""
        if self._sock is None:
            # Outside the try: a call inside the back-off window does not extend it.
            now = time.monotonic()
            if now < self._retry_at:
                if self._refusal is not None:
                    # Refused at the last handshake: the same verdict again, until the next attempt.
                    raise ManagerRefused(self._refusal)
                raise ManagerNotReachable(self.socket_path, "reconnecting: next attempt in %.2f s" % (self._retry_at - now), self.role)
            self._refusal = None
        try:
            if self._sock is None:
                self._open()
            if self._hello is not None:
                reply, deadline = self._hello
                while not reply.done:
                    left = deadline - time.monotonic()
                    if left <= 0:
                        raise ManagerNotReachable(self.socket_path, "no reply to hello within %.1f s" % self.connect_timeout, self.role)
                    if not wait:
                        self._pump(0.0)
                        if not reply.done:
                            return False
                        break
                    self._pump(min(left, 0.05))
                self._welcomed(reply)
            if self._rereg is not None and not self._reregistered(wait):
                return False
            self._retry = 0.0
            return True
        except ManagerRefused as error:
            self._drop()
            self._retry = min(max(self._retry * 2, RETRY_FIRST), RETRY_MAX)
            self._retry_at = time.monotonic() + self._retry
            self._refusal = error.body
            raise
        except (OSError, ManagerNotReachable, ProtocolError) as error:
            self._drop()
            self._retry = min(max(self._retry * 2, RETRY_FIRST), RETRY_MAX)
            self._retry_at = time.monotonic() + self._retry
            if isinstance(error, ManagerNotReachable):
                raise
            number = getattr(error, "errno", None)
            reason = "%s: %s" % (errno.errorcode.get(number, "E?"), os.strerror(number)) if number else "%s: %s" % (type(error).__name__, error)
            raise ManagerNotReachable(self.socket_path, reason, self.role) from error

    def _open(self):
        """Connects and sends HELLO; the WELCOME is settled by _reconnect_locked (now or in a later call)."""
        sock = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM | socket.SOCK_CLOEXEC)
        sock.settimeout(self.connect_timeout)
        try:
            sock.connect(self.socket_path)
        except OSError:
            sock.close()
            raise
        selector = selectors.DefaultSelector()
        selector.register(sock, selectors.EVENT_READ)
        with self._state:
            self._sock, self._selector = sock, selector
            self._buf = bytearray()
            self._abandoned = {}
            # Request ids are per connection (the Manager refuses ids past 2^53 - 1 with a frame fault).
            self._next_id = 1
            self._generation += 1
        reply = self._send("hello", {"protocol": PROTOCOL_VERSION, "profile": self.profile, "client": self.name}, reconnect=False)
        self._hello = (reply, time.monotonic() + self.connect_timeout)

    def _welcomed(self, reply):
        self._hello = None
        self.welcome = reply.body()
        # Replies (status, long block lists) may exceed the request bound; this caps what one frame may hold here.
        self._max_reply = MAX_REPLY
        if self.registration is not None:
            # Started here, finished by _reregistered (now, or by a later call): the Manager may
            # take seconds to map and populate a large registration.
            deadline = time.monotonic() + self._register_timeout
            self._rereg = {"channel": self._deposit_send(self.registration.fd, self._register_timeout), "reply": None, "deadline": deadline}

    def _reregistered(self, wait):
        """Moves the re-registration on (deposit answer, then REGISTER_PAGES's reply); True once done.
        wait=False never blocks: False while the Manager has not answered yet."""
        rereg, registration = self._rereg, self.registration
        while True:
            left = rereg["deadline"] - time.monotonic()
            if left <= 0:
                raise ManagerNotReachable(self.socket_path, "no reply to the page re-registration within %.1f s" % self._register_timeout, self.role)
            if rereg["reply"] is None:
                channel = rereg["channel"]
                if not select.select([channel], [], [], min(left, 0.05) if wait else 0)[0]:
                    if not wait:
                        return False
                    continue
                rereg["channel"] = None
                try:
                    self._deposit_answer(channel, left)
                finally:
                    channel.close()
                body = {"pageBytes": registration.page_bytes, "pages": registration.pages, "layers": registration.layers}
                rereg["reply"] = self._send("registerPages", body, reconnect=False)
            reply = rereg["reply"]
            if not reply.done:
                self._pump(min(left, 0.05) if wait else 0.0)
                if not reply.done:
                    if not wait:
                        return False
                    continue
            reply.body()  # an ERROR is ManagerRefused: the connection drops, with the back-off
            self._rereg = None
            return True

    def _drop(self):
        with self._state:
            sock, selector = self._sock, self._selector
            self._sock = self._selector = None
            waiting, self._waiting = self._waiting, {}
            self._deferred = []
            self._abandoned = {}
            self._hello = None
            rereg, self._rereg = self._rereg, None
        if rereg is not None and rereg["channel"] is not None:
            rereg["channel"].close()
        for reply in waiting.values():
            reply.error = ConnectionLost(self.socket_path, "the connection closed", self.role)
            reply.done = True
        if selector is not None:
            selector.close()
        if sock is not None:
            sock.close()

    def _lost(self):
        self._drop()
        # The first attempt after a loss is immediate: a restarted Manager is usually back.
        self._retry_at = 0.0

    @property
    def connected(self):
        return self._sock is not None and self._hello is None

    # requests -------------------------------------------------------------------------------

    def _send(self, name, body, reconnect=True, wait=False):
        return self._send_payload(OPCODE[name], _json(body), reconnect, wait=wait)

    def _send_payload(self, opcode, payload, reconnect=True, lookup=False, wait=False):
        if self._closed:
            raise ManagerError("the client is closed", "closed")
        if self._sock is None or self._hello is not None or self._rereg is not None:
            if reconnect:
                # A call that never waits (wait=False) never waits for WELCOME either: it raises
                # ManagerNotReachable (handshaking) until a later call finds the handshake done.
                self._reconnect(wait)
            elif self._sock is None:
                raise ConnectionLost(self.socket_path, "the connection closed", self.role)
        reply = _Reply(lookup)
        with self._state:
            if len(self._waiting) >= MAX_OUTSTANDING:
                raise ClientBusy("%d requests wait for replies" % len(self._waiting), "busy")
            request_id = reply.id = self._next_id
            self._next_id += 1
            self._waiting[request_id] = reply
            sock = self._sock
        self._write(sock, opcode, request_id, payload)
        return reply

    def _call(self, name, body, timeout, reconnect=True):
        """Sends one request and waits for its reply (handshake, registration, status)."""
        reply = self._send(name, body, reconnect, wait=True)
        deadline = time.monotonic() + timeout
        while not reply.done:
            left = deadline - time.monotonic()
            if left <= 0:
                raise ManagerNotReachable(self.socket_path, "no reply to %s within %.1f s" % (name, timeout), self.role)
            self._pump(min(left, 0.05))
        return reply.body()

    def _pump(self, timeout):
        """Reads what has arrived (waiting up to timeout for the first bytes) and settles replies."""
        if not self._read_lock.acquire(blocking=timeout > 0, timeout=timeout if timeout > 0 else -1):
            return
        try:
            sock, selector = self._sock, self._selector
            if sock is None:
                return
            if timeout > 0 and not selector.select(timeout):
                return
            fd = sock.fileno()
            while True:
                try:
                    # os.read, not sock.recv: a socket with a timeout polls for that long before
                    # any recv, MSG_DONTWAIT or not; its fd is non-blocking, so read returns at once.
                    chunk = os.read(fd, 1 << 16)
                except (BlockingIOError, InterruptedError):
                    break
                except OSError:
                    self._lost()
                    return
                if not chunk:
                    self._lost()
                    return
                self._buf += chunk
                try:
                    self._dispatch()
                except ProtocolError:
                    self._lost()
                    raise
                if len(chunk) < (1 << 16):
                    break
        finally:
            self._read_lock.release()
        if self._deferred:
            self._flush()

    def _flush(self):
        """Sends the requests queued during dispatch (or refused busy); one still busy stays queued."""
        while self._deferred:
            try:
                name, body = self._deferred.pop(0)
            except IndexError:
                return
            if name == "releaseBinary":
                try:
                    self._notify(OPCODE["releaseBinary"], encode_release(body))
                except (ManagerError, ValueError):
                    pass
                continue
            if not self._fire(name, body):
                return

    def _dispatch(self):
        buf = self._buf
        at = 0
        try:
            while len(buf) - at >= HEADER_BYTES:
                magic, _version, opcode, lo, hi, length, reserved = _HEADER.unpack_from(buf, at)
                if magic != MAGIC or reserved != 0 or length > self._max_reply:
                    raise ProtocolError("the Manager sent a frame with bad magic, a reserved word or %d bytes" % length, "protocol")
                if len(buf) - at < HEADER_BYTES + length:
                    break
                payload = bytes(buf[at + HEADER_BYTES:at + HEADER_BYTES + length])
                at += HEADER_BYTES + length
                request_id = (hi << 32) | lo
                if opcode == OPCODE["lookupPending"]:
                    reply = self._waiting.get(request_id)
                    if reply is None and request_id in self._abandoned:
                        # Named only after the client gave up on it: it is cancelled (sent after dispatch).
                        notice = _decode_json(payload, "LOOKUP_PENDING")
                        if isinstance(notice, dict) and notice.get("ticket") is not None:
                            self._deferred.append(("cancel", {"ticket": notice.get("ticket")}))
                        continue
                    if reply is not None:
                        notice = _decode_json(payload, "LOOKUP_PENDING")
                        if not isinstance(notice, dict):
                            raise ProtocolError("the Manager sent a LOOKUP_PENDING that is not an object", "protocol")
                        reply.notice = notice
                        if reply.on_notice is not None:
                            reply.on_notice(notice)
                    continue
                reply = self._waiting.get(request_id)
                if reply is None:
                    if request_id == 0 and opcode == OPCODE["error"]:
                        raise ProtocolError("the Manager closed the stream: " + payload.decode("utf-8", "replace"), "frame-fault")
                    if request_id in self._abandoned:
                        self._late(request_id, opcode, payload)
                    continue
                # Decoded here, before the reply leaves the waiting table: a malformed one is a
                # ProtocolError and its request is failed with the others when the connection drops.
                if reply.lookup and opcode not in _LOOKUP_FINALS:
                    raise ProtocolError("the Manager answered a lookup with opcode %d" % opcode, "protocol")
                if opcode == OPCODE["lookupBinaryResult"]:
                    value = decode_lookup_result(payload)
                else:
                    value = _decode_json(payload, "reply (opcode %d)" % opcode)
                    if reply.lookup and not isinstance(value, dict):
                        raise ProtocolError("the Manager answered a lookup with JSON that is not an object", "protocol")
                with self._state:
                    self._waiting.pop(request_id, None)
                reply.opcode, reply.value, reply.done = opcode, value, True
        finally:
            # Whatever handling a frame raised, the frames taken are trimmed: none is read twice,
            # and the ones after it are read by the next pump.
            del buf[:at]

    def _abandon(self, request_id):
        """Remembers a lookup the client gave up on (bounded: the oldest is forgotten first). Under _state."""
        abandoned = self._abandoned
        if len(abandoned) >= MAX_OUTSTANDING:
            del abandoned[next(iter(abandoned))]
        abandoned[request_id] = None

    def _late(self, request_id, opcode, payload):
        """The final answer to a lookup the client gave up on: a ready ticket's leases are given back
        (the binary RELEASE, sent after dispatch), so they do not stay until the lease expires."""
        self._abandoned.pop(request_id, None)
        if opcode == OPCODE["lookupBinaryResult"]:
            body = decode_lookup_result(payload)
        elif opcode == OPCODE["lookupResult"]:
            body = _decode_json(payload, "LOOKUP_RESULT")
        else:
            return
        if isinstance(body, dict) and body.get("state") == "ready" and body.get("ticket") is not None:
            self._deferred.append(("releaseBinary", body.get("ticket")))

    # the API ----------------------------------------------------------------------------------

    def register_pages(self, page_bytes, pages, layers=1, timeout=10.0):
        """Creates, seals and deposits a memfd of pages x layers pages; returns its Registration."""
        if self.registration is not None:
            raise ManagerError("this client registered its pages already", "pages-registered")
        block = self.welcome.get("blockBytes")
        if page_bytes * layers != block:
            raise ValueError("%d layers x %d-byte pages is not the Manager's %d-byte block" % (layers, page_bytes, block))
        registration = Registration(page_bytes, pages, layers)
        self._register_timeout = float(timeout)
        try:
            self._register(registration, timeout=timeout)
        except BaseException:
            registration.close()
            raise
        self.registration = registration
        return registration

    def _register(self, registration, reconnect=True, timeout=10.0):
        self._deposit(registration.fd, timeout)
        return self._call("registerPages", {"pageBytes": registration.page_bytes, "pages": registration.pages, "layers": registration.layers}, timeout, reconnect)

    def _deposit(self, fd, timeout):
        """Sends the memfd over SCM_RIGHTS on the fd socket the WELCOME named, and waits for its answer."""
        channel = self._deposit_send(fd, timeout)
        try:
            self._deposit_answer(channel, timeout)
        finally:
            channel.close()

    def _deposit_send(self, fd, timeout):
        """Connects to the fd socket and sends the memfd (neither waits on the Manager's loop); returns the channel."""
        info = self.welcome["fd"]
        channel = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM | socket.SOCK_CLOEXEC)
        channel.settimeout(timeout)
        try:
            channel.connect(info["socket"])
            payload = _json({"session": self.welcome["session"], "token": info["token"]})
            socket.send_fds(channel, [_CHANNEL.pack(len(payload), 1) + payload], [fd])
        except OSError as error:
            channel.close()
            raise ManagerNotReachable(info["socket"], "fd socket: %s" % error, self.role) from error
        return channel

    def _deposit_answer(self, channel, timeout):
        """The fd socket's answer to a deposit; ManagerRefused unless ok."""
        channel.settimeout(timeout)
        try:
            head = _recv_exact(channel, _CHANNEL.size)
            length, _fds = _CHANNEL.unpack(head)
            if length > 64 * 1024:
                raise ProtocolError("the fd socket answered %d bytes" % length, "protocol")
            answer = json.loads(_recv_exact(channel, length).decode("utf-8"))
        except OSError as error:
            raise ManagerNotReachable(self.welcome["fd"]["socket"], "fd socket: %s" % error, self.role) from error
        except ValueError as error:
            raise ProtocolError("the fd socket answered bytes that are not JSON", "protocol") from error
        if not isinstance(answer, dict) or not answer.get("ok"):
            raise ManagerRefused(answer)

    def lookup(self, namespace, hashes, request, rank=0, world_size=1, deadline_ms=1000):
        """Opens a lookup ticket and returns at once (poll it)."""
        reply = self._send_payload(OPCODE["lookupBinary"], encode_lookup(namespace, hashes, request, rank, world_size, deadline_ms), lookup=True)
        # Read after the send: a send may have reconnected first (a new session, a new generation).
        ticket = Ticket(self, reply, str(request), self._generation, deadline_ms)
        reply.on_notice = lambda notice: self._noticed(ticket, notice)
        return ticket

    def _noticed(self, ticket, notice):
        ticket.id = notice.get("ticket")
        if ticket.cancel_requested:
            # Queued, sent once dispatch is over (_pump): a send from inside dispatch could meet
            # MAX_OUTSTANDING, or a lost connection, halfway through the frames read.
            self._deferred.append(("cancel", {"ticket": ticket.id}))

    def _notify(self, opcode, payload):
        """A request answered only if refused (the binary RELEASE): nothing waits for it, so nothing
        is kept for it; an ERROR naming its id is dropped on arrival, as a reply nobody waits for is."""
        if self._closed:
            raise ManagerError("the client is closed", "closed")
        if self._sock is None:
            return
        with self._state:
            request_id = self._next_id
            self._next_id += 1
            sock = self._sock
        self._write(sock, opcode, request_id, payload)

    def _write(self, sock, opcode, request_id, payload):
        """Sends one frame; a socket that fails marks the connection lost (its waiters are told)."""
        try:
            with self._send_lock:
                sock.sendall(encode_frame(opcode, request_id, payload))
        except OSError:
            self._lost()

    def _fire(self, name, body):
        """A request whose reply nobody waits for (cancel): errors surface as nothing. One that meets
        MAX_OUTSTANDING is queued and sent by a later pump; returns False then."""
        try:
            self._send(name, body, reconnect=False)
        except ClientBusy:
            self._deferred.append((name, body))
            return False
        except ManagerError:
            pass
        return True

    def cancel(self, ticket):
        """Cancels a pending lookup (or the restore that consumes it); never waits."""
        target = ticket.ticket if isinstance(ticket, Restore) else ticket
        if isinstance(target, Ticket):
            if target._generation != self._generation:
                return
            if target._result is None:
                # Whatever answer comes now settles it cancelled: a LOOKUP_PENDING not read yet
                # queues the cancel, a ready answer is given back (_settle). Nothing is read here
                # first, so a Manager fast enough to have answered ready already cannot turn this
                # cancel into a ready ticket.
                target.cancel_requested = True
            if target.id is None:
                return
            self._fire("cancel", {"ticket": target.id})
            return
        self._fire("cancel", {"ticket": int(target)})

    def release(self, ticket):
        """Gives back a ready ticket's leases (the scheduler did not select it); never waits."""
        if isinstance(ticket, Ticket):
            result = ticket.poll()
            if ticket._generation != self._generation or result is None or ticket.id is None:
                if result is None:
                    ticket.cancel_requested = True
                return
            self._notify(OPCODE["releaseBinary"], encode_release(ticket.id))
            return
        self._notify(OPCODE["releaseBinary"], encode_release(ticket))

    def restore(self, ticket, pages):
        """Restores a ready ticket's first len(pages) blocks into pages; per-layer waits on the result.

        ticket is a Ticket of this client, or what Ticket.share() gave in another process
        ({"ticket", "grant"}: this process's pages, the other session's leases).
        """
        if self.registration is None:
            raise ManagerError("register pages before restoring", "no-pages")
        if isinstance(ticket, Mapping):
            pages = list(pages)
            self.registration.clear_flags(pages)
            reply = self._send("restore", {"ticket": int(ticket["ticket"]), "grant": str(ticket["grant"]), "pages": pages})
            return Restore(self, reply, self.registration, pages, int(ticket["ticket"]))
        result = ticket.poll() if isinstance(ticket, Ticket) else None
        if isinstance(ticket, Ticket) and (result is None or result.state != "ready"):
            raise ManagerError("the ticket is %s, not ready" % ("pending" if result is None else result.state), "ticket-not-ready")
        if isinstance(ticket, Ticket) and ticket._generation != self._generation:
            raise ManagerError("the ticket belongs to a connection that was lost; look up again", "stale-ticket")
        ticket_id = ticket.id if isinstance(ticket, Ticket) else int(ticket)
        pages = list(pages)
        # Cleared before asking: no flag left from an earlier restore reads as landed.
        self.registration.clear_flags(pages)
        reply = self._send("restore", {"ticket": ticket_id, "pages": pages})
        return Restore(self, reply, self.registration, pages, ticket)

    def save(self, namespace, hashes, pages, request=None):
        """Saves the blocks in pages under their hashes; poll() or wait() for {state, blocks}."""
        body = {"namespace": namespace, "hashes": [str(h) for h in hashes], "pages": list(pages)}
        if request is not None:
            body["request"] = str(request)
        return Operation(self, self._send("save", body))

    def status(self, timeout=5.0):
        return self._call("status", {}, timeout)

    def echo(self, body, timeout=5.0):
        return self._call("echo", body, timeout)

    def close(self):
        """Closes the connection and unmaps the pages (the Manager drains this session's I/O first)."""
        self._closed = True
        self._drop()
        if self.registration is not None:
            self.registration.close()
            self.registration = None

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.close()


def _writable(sock, timeout):
    with selectors.DefaultSelector() as selector:
        selector.register(sock, selectors.EVENT_WRITE)
        selector.select(timeout)


def _recv_exact(sock, count):
    data = bytearray()
    while len(data) < count:
        chunk = sock.recv(count - len(data))
        if not chunk:
            raise ConnectionResetError(errno.ECONNRESET, "the fd socket closed")
        data += chunk
    return bytes(data)


def connect(profile, role, socket_path=None, name=None, connect_timeout=CONNECT_TIMEOUT):
    """A connected, handshaken client; raises ManagerNotReachable or ManagerRefused."""
    return Client(profile, role, socket_path, name, connect_timeout)


class Connection:
    """The bare protocol core (benchmarks): one request at a time, no profile projection.

    One syscall per send and per read: the socket carries no Python-level timeout (CPython polls
    before every call on a socket that has one); a blocking wait is bounded by the kernel's
    SO_RCVTIMEO and SO_SNDTIMEO, a spinning one by its own deadline. Replies are read with
    recv_into a preallocated buffer (one read for a reply that arrived whole). spin=True waits
    for a reply by polling the non-blocking socket without sleeping, as a busy scheduler thread
    polls its tickets; spin=False sleeps in recv until the reply arrives.
    """

    _BUFFER = 1 << 16

    def __init__(self, path=None, timeout=30.0, spin=False):
        self._sock = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        self._sock.settimeout(timeout)
        try:
            self._sock.connect(path or default_socket_path())
        except OSError:
            self._sock.close()
            raise
        self._timeout = float(timeout)
        self._spin = bool(spin)
        if self._spin:
            self._sock.setblocking(False)
        else:
            self._sock.settimeout(None)
            whole = int(self._timeout)
            limit = struct.pack("@ll", whole, int((self._timeout - whole) * 1e6))
            self._sock.setsockopt(socket.SOL_SOCKET, socket.SO_RCVTIMEO, limit)
            self._sock.setsockopt(socket.SOL_SOCKET, socket.SO_SNDTIMEO, limit)
        self._next = 1
        self._buf = bytearray(self._BUFFER)
        self._have = 0
        self.session = None

    def close(self):
        self._sock.close()

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.close()

    def _late(self, what):
        return ConnectionLost("(socket)", "no %s within %.1f s" % (what, self._timeout))

    def _sendall(self, data):
        view = memoryview(data)
        deadline = None
        while view:
            try:
                sent = self._sock.send(view)
            except (BlockingIOError, InterruptedError):
                # Only a full socket buffer: wait until it drains (rare for frames this small).
                deadline = deadline or time.monotonic() + self._timeout
                left = deadline - time.monotonic()
                if left <= 0:
                    raise self._late("room to send") from None
                _writable(self._sock, left)
                continue
            view = view[sent:]

    def _fill(self):
        """Reads what has arrived into the buffer after the bytes it holds (at least one byte)."""
        with memoryview(self._buf) as whole:
            target = whole[self._have:]
            if not self._spin:
                try:
                    got = self._sock.recv_into(target)
                except (BlockingIOError, InterruptedError):
                    raise self._late("reply") from None
            else:
                deadline = time.monotonic() + self._timeout
                while True:
                    try:
                        got = self._sock.recv_into(target)
                        break
                    except (BlockingIOError, InterruptedError):
                        if time.monotonic() > deadline:
                            raise self._late("reply") from None
        if not got:
            raise ConnectionLost("(socket)", "the Manager closed the connection")
        self._have += got

    def _recv_frame(self):
        while True:
            if self._have >= HEADER_BYTES:
                magic, _version, opcode, lo, hi, length, reserved = _HEADER.unpack_from(self._buf, 0)
                if magic != MAGIC or reserved != 0 or length > MAX_REPLY:
                    raise ProtocolError("the Manager sent a frame with bad magic, a reserved word or %d bytes" % length, "protocol")
                end = HEADER_BYTES + length
                if self._have >= end:
                    payload = bytes(self._buf[HEADER_BYTES:end])
                    rest = self._have - end
                    if rest:
                        self._buf[:rest] = self._buf[end:self._have]
                    self._have = rest
                    return opcode, (hi << 32) | lo, payload
                if end > len(self._buf):
                    # A reply larger than the buffer (bounded by MAX_REPLY): the buffer grows to it.
                    self._buf.extend(bytes(end - len(self._buf)))
            self._fill()

    def send_raw(self, opcode, payload=b""):
        """Sends one frame without waiting; its reply is skipped by the next request_raw. Returns its id."""
        request_id = self._next
        self._next += 1
        self._sendall(encode_frame(opcode, request_id, payload))
        return request_id

    def request_raw(self, opcode, payload=b""):
        """Sends one frame and returns (opcode, payload bytes) of its final reply."""
        request_id = self.send_raw(opcode, payload)
        while True:
            reply_opcode, reply_id, reply = self._recv_frame()
            if reply_id == request_id and reply_opcode != OPCODE["lookupPending"]:
                return reply_opcode, reply

    def request(self, name, body):
        opcode, payload = self.request_raw(OPCODE[name], _json(body))
        value = _decode_json(payload, "reply (opcode %d)" % opcode)
        if opcode in (OPCODE["error"], OPCODE["refused"]):
            raise ManagerRefused(value)
        return value

    def lookup(self, namespace, hashes, request, rank=0, world_size=1, deadline_ms=1000):
        """A binary LOOKUP, waited for: the final reply's body ({ticket, state, boundary, ...})."""
        opcode, payload = self.request_raw(OPCODE["lookupBinary"], encode_lookup(namespace, hashes, request, rank, world_size, deadline_ms))
        if opcode == OPCODE["lookupBinaryResult"]:
            return decode_lookup_result(payload)
        raise ManagerRefused(_decode_json(payload, "reply (opcode %d)" % opcode))

    def release(self, ticket):
        """A binary RELEASE, not waited for (a release carried out has no reply; a refusal's ERROR is skipped by the next request_raw)."""
        return self.send_raw(OPCODE["releaseBinary"], encode_release(ticket))

    def hello(self, profile, client="python"):
        welcome = self.request("hello", {"protocol": PROTOCOL_VERSION, "profile": profile, "client": client})
        self.session = welcome["session"]
        return welcome

    def echo(self, body):
        return self.request("echo", body)
`;
