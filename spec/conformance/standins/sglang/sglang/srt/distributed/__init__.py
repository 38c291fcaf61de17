"""The tensor-parallel group of the stand-in: ranks are separate processes, as in SGLang, and
reach each other only through collectives.

Facts reproduced (read from SGLang's sources, not copied):
- Every TP rank runs its own Scheduler on the same inputs in the same order; decisions that
  differ between ranks deadlock or corrupt the next collective, so admission must agree.
- mem_cache/unified_radix_cache.py, UnifiedRadixCache._all_reduce_attn_groups(tensor, op): an
  all-reduce over the attention CP/TP groups, or the TP group when those are trivial; a no-op
  with one rank. The tree uses it (MIN over a 0/1 mask) to intersect the ranks' restorable
  prefix lengths (unified_cache_linker.py, UnifiedCacheLinkerWrapper._sync_restorable_prefix).

The stand-in has no torch: a collective reduces a list of ints element-wise ("min" or "max")
over a Unix socket rendezvous (rank 0 listens, the others connect). Environment:
STANDIN_TP_SIZE, STANDIN_TP_RANK, STANDIN_TP_RENDEZVOUS (a socket path), STANDIN_TP_TIMEOUT_S (a
collective that waits longer fails: ranks that stopped agreeing show up as an error, not a hang).
"""

import json
import os
import socket
import struct

_OPS = {"min": min, "max": max}


def _send(sock, value):
    data = json.dumps(value).encode("utf-8")
    sock.sendall(struct.pack("<I", len(data)) + data)


def _recv(sock):
    header = b""
    while len(header) < 4:
        chunk = sock.recv(4 - len(header))
        if not chunk:
            raise ConnectionError("a rank left the group")
        header += chunk
    (length,) = struct.unpack("<I", header)
    data = b""
    while len(data) < length:
        chunk = sock.recv(length - len(data))
        if not chunk:
            raise ConnectionError("a rank left the group")
        data += chunk
    return json.loads(data.decode("utf-8"))


class RankGroup:
    """One process's membership of the TP group."""

    def __init__(self, rank=0, size=1, rendezvous=None, timeout=60.0):
        self.rank, self.size = rank, size
        self.calls = 0
        self._peers = []
        if size == 1:
            return
        if rank == 0:
            listener = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
            listener.bind(rendezvous)
            listener.listen(size)
            listener.settimeout(timeout)
            peers = {}
            while len(peers) < size - 1:
                conn, _ = listener.accept()
                conn.settimeout(timeout)
                peers[_recv(conn)] = conn
            listener.close()
            self._peers = [peers[r] for r in sorted(peers)]
        else:
            conn = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
            conn.settimeout(timeout)
            deadline = timeout
            while True:
                try:
                    conn.connect(rendezvous)
                    break
                except (FileNotFoundError, ConnectionRefusedError):
                    import time

                    time.sleep(0.01)
                    deadline -= 0.01
                    if deadline <= 0:
                        raise
            _send(conn, rank)
            self._peers = [conn]

    def all_reduce(self, values, op):
        """values reduced element-wise over every rank (op "min" or "max"); every rank gets the result."""
        self.calls += 1
        values = list(values)
        if self.size == 1:
            return values
        reduce = _OPS[op]
        if self.rank == 0:
            parts = [values] + [_recv(p) for p in self._peers]
            if any(len(p) != len(values) for p in parts):
                raise RuntimeError("ranks reduced vectors of different lengths: " + repr([len(p) for p in parts]))
            result = [reduce(column) for column in zip(*parts)]
            for p in self._peers:
                _send(p, result)
            return result
        _send(self._peers[0], values)
        return _recv(self._peers[0])

    def close(self):
        for p in self._peers:
            p.close()
        self._peers = []


def group_from_env(environ=None):
    environ = os.environ if environ is None else environ
    size = int(environ.get("STANDIN_TP_SIZE", "1"))
    return RankGroup(int(environ.get("STANDIN_TP_RANK", "0")), size, environ.get("STANDIN_TP_RENDEZVOUS"), float(environ.get("STANDIN_TP_TIMEOUT_S", "60")))
