/**
 * The engine stand-in: a Python process that imports the generated adapter package's
 * `_client.py` (the client every adapter ships) and does what a scenario tells it, one JSON
 * line per command on stdin, one JSON line per answer on stdout. It is the engine side of a
 * gate cell: its pages live in its own shared memory, its calls go through the generated client
 * exactly as an adapter's do, and it can be killed like an engine. It decides nothing itself;
 * the scenario (TypeScript) checks what it reports.
 */
export const AGENT_PY = String.raw`"""Engine stand-in for orbitkv gate run (written by the gate runner; not part of any package)."""

import hashlib
import importlib
import json
import os
import sys
import time

PACKAGE = sys.argv[1]
SOCKET_EVENTS = []


def _audit(event, args):
    if event in ("socket.__new__", "socket.connect") and len(SOCKET_EVENTS) < 1000:
        SOCKET_EVENTS.append(event)


sys.addaudithook(_audit)


def _answer(value=None, error=None):
    line = {"ok": error is None}
    if error is None:
        line["value"] = value
    else:
        line["error"] = error
    sys.stdout.write(json.dumps(line, separators=(",", ":"), default=str) + "\n")
    sys.stdout.flush()


def _error(exc):
    return {"type": type(exc).__name__, "message": str(exc), "code": getattr(exc, "code", None)}


class Engine:
    def __init__(self):
        self.client_module = None
        self.client = None
        self.reg = None
        self.page_bytes = 0
        self.tickets = {}
        self.restores = {}
        self.next = 1

    def _keep(self, table, value):
        handle = self.next
        self.next += 1
        table[handle] = value
        return handle

    def _page(self, index):
        return self.reg.page(index)

    def op_import(self, module=None):
        importlib.import_module(PACKAGE + "." + module if module else PACKAGE)
        return True

    def op_modules(self, prefixes):
        return sorted(m for m in sys.modules if any(m == p or m.startswith(p + ".") for p in prefixes))

    def op_sockets(self):
        return list(SOCKET_EVENTS)

    def op_call(self, module, function):
        return repr(getattr(importlib.import_module(PACKAGE + "." + module), function)())

    def op_connect(self, profile, role, socket_path, name=None):
        self.client_module = importlib.import_module(PACKAGE + "._client")
        self.client = self.client_module.connect(profile, role, socket_path=socket_path, name=name)
        return True

    def op_register(self, page_bytes, pages, layers=1):
        self.page_bytes = page_bytes
        self.reg = self.client.register_pages(page_bytes // layers, pages, layers)
        fd = getattr(self.reg, "fd", None)
        return {"path": getattr(self.reg, "path", None), "inode": os.fstat(fd).st_ino if fd is not None else None}

    def op_hold(self):
        """Keeps a mapping of the registered pages of its own, readable after the client closed them."""
        import mmap
        self.held = mmap.mmap(os.dup(self.reg.fd), self.reg.size)
        self.held_layout = (self.reg.pages, self.reg.page_bytes, self.reg.layers)
        return True

    def op_held_digest(self, pages):
        count, size, layers = self.held_layout
        out = []
        for p in pages:
            h = hashlib.sha256()
            for layer in range(layers):
                start = (layer * count + p) * size
                h.update(self.held[start:start + size])
            out.append(h.hexdigest())
        return out

    def _pages_of(self, page):
        layers = getattr(self.reg, "layers", 1)
        return [self.reg.page(page, layer) for layer in range(layers)] if layers > 1 else [self.reg.page(page)]

    def op_fill(self, pages, labels):
        for page, label in zip(pages, labels):
            data = (label + "|").encode("utf-8")
            views = self._pages_of(page)
            size = len(views[0])
            block = data * (size * len(views) // len(data) + 1)
            for i, view in enumerate(views):
                view[:] = block[i * size:(i + 1) * size]
        return True

    def op_digest(self, pages):
        out = []
        for p in pages:
            h = hashlib.sha256()
            for view in self._pages_of(p):
                h.update(bytes(view))
            out.append(h.hexdigest())
        return out

    def op_lookup(self, namespace, hashes, request, rank=0, world_size=1, deadline_ms=2000):
        # As an engine's scheduler does over its steps: a lookup refused while the client's
        # reconnect waits for WELCOME (it never blocks for it) is asked again at the next step.
        end = time.monotonic() + 5.0
        while True:
            try:
                ticket = self.client.lookup(namespace, hashes, request, rank=rank, world_size=world_size, deadline_ms=deadline_ms)
                return self._keep(self.tickets, ticket)
            except self.client_module.ManagerNotReachable as exc:
                if getattr(exc, "why", None) != "handshaking" or time.monotonic() > end:
                    raise
                time.sleep(0.005)

    def _result(self, result):
        if result is None:
            return None
        return {"state": result.state, "boundary": result.boundary, "tiers": result.tiers, "reason": getattr(result, "reason", None)}

    def op_poll(self, ticket):
        return self._result(self.tickets[ticket].poll())

    def op_wait(self, ticket, timeout):
        end = time.monotonic() + timeout
        while True:
            result = self.tickets[ticket].poll()
            if result is not None:
                return self._result(result)
            if time.monotonic() > end:
                return None
            time.sleep(0.005)

    def op_restore(self, ticket, pages):
        return self._keep(self.restores, self.client.restore(self.tickets[ticket], pages))

    def op_wait_layer(self, restore, layer, timeout):
        return bool(self.restores[restore].wait_layer(layer, timeout))

    def op_failed_blocks(self, restore):
        return sorted(self.restores[restore].failed_blocks())

    def op_save(self, namespace, hashes, pages):
        result = self.client.save(namespace, hashes, pages)
        wait = getattr(result, "wait", None)
        if callable(wait):
            result = wait(60.0)
        blocks = getattr(result, "blocks", None)
        if blocks is None and isinstance(result, dict):
            blocks = result.get("blocks")
        return {"blocks": list(blocks) if blocks is not None else None}

    def op_cancel(self, ticket):
        self.client.cancel(self.tickets[ticket])
        return True

    def op_release(self, ticket):
        self.client.release(self.tickets[ticket])
        return True

    def op_close(self):
        if self.client is not None:
            self.client.close()
        return True

    def op_exit(self):
        os._exit(0)


def main():
    engine = Engine()
    _answer({"pid": os.getpid(), "python": sys.version.split()[0]})
    for line in sys.stdin:
        line = line.strip()
        if not line:
            continue
        command = json.loads(line)
        handler = getattr(engine, "op_" + command["op"], None)
        if handler is None:
            _answer(error={"type": "UnknownOp", "message": command["op"], "code": None})
            continue
        try:
            _answer(handler(**command.get("args", {})))
        except BaseException as exc:  # the scenario judges every failure, SystemExit included
            _answer(error=_error(exc))


if __name__ == "__main__":
    main()
`;
