"""Scenarios of the generated vLLM connector in the stand-in vLLM against a real Manager.

    python3 vllm_scenarios.py NAME      (prints one JSON object: what the scenario observed)

Environment: PYTHONPATH with the stand-in vLLM and the unzipped wheels; the Manager's socket in
the package's socket variable; MANAGER_PID (the fault scenarios pause the Manager with SIGSTOP
to hold a lookup pending or a restore in flight, as a slow Manager would); PYTHONHASHSEED fixed
(vLLM's block hashes survive a process only then). The adapter package is found through the
engine's entry-point group, never by name. The engine's call order is the stand-in's; this file
only chooses requests, aborts, pauses and what to report.
"""

import importlib
import json
import logging
import os
import signal
import sys
import threading
import time
from importlib.metadata import entry_points

import vllm_driver as d

logging.basicConfig(level=logging.WARNING, format="%(levelname)s %(name)s: %(message)s")
(_EP,) = [e for e in entry_points(group="vllm.general_plugins") if not e.name.startswith("zz")]
PKG = _EP.value.split(".")[0]
DATA = importlib.import_module(PKG + "._data").DATA
CONNECTOR = DATA["template"]["connectors"][0]["className"]
os.environ.setdefault("VLLM_USE_V2_MODEL_RUNNER", "0")


def _pause():
    os.kill(int(os.environ["MANAGER_PID"]), signal.SIGSTOP)


def _resume():
    os.kill(int(os.environ["MANAGER_PID"]), signal.SIGCONT)


def _pause_before_restore(engine, resume_after):
    """The worker's next restore is sent to a paused Manager; it resumes after `resume_after` s."""
    client = d.half(engine, "worker")._client
    original = client.restore
    events = {}

    def restore(ticket, pages):
        client.restore = original
        _pause()
        events["paused"] = True
        def resume():
            events["resumed_at_step"] = len(engine.outputs)  # recorded first: no step before it saw the Manager running
            _resume()

        timer = threading.Timer(resume_after, resume)
        timer.daemon = True
        timer.start()
        events["timer"] = timer
        return original(ticket, pages)

    client.restore = restore
    return events


def _lookup_states(request_id, settle_s=3.0):
    """The Manager's own record of the request's lookups (an operator connection), once none is ready any more."""
    client = importlib.import_module(PKG + "._client")
    deadline = time.monotonic() + settle_s
    while True:
        with client.Connection(client.default_socket_path()) as conn:
            conn.request("operator", {})
            records = conn.request("requests", {"request": request_id})["records"]
        states = [r["state"] for r in records if r["request"] == request_id]
        if "ready" not in states or time.monotonic() >= deadline:
            return states
        time.sleep(0.05)


def _step_until(engine, condition, limit=5000):
    steps = 0
    while not condition() and steps < limit:
        engine.step()
        steps += 1
        time.sleep(d.PACE_S)
    if not condition():
        raise AssertionError("the engine never got there in %d steps" % limit)


def _observed(engine, **more):
    outputs, corrupt = d.completions(engine)
    worker = d.half(engine, "worker").counters
    invalid = [sorted(r.kv_connector_output.invalid_block_ids) for _s, r in engine.outputs if r.kv_connector_output and r.kv_connector_output.invalid_block_ids]
    loaded_async = sorted({rid for _s, r in engine.outputs if r.kv_connector_output for rid in (r.kv_connector_output.finished_recving or ())})
    return dict(outputs=outputs, corrupt=corrupt, answers=engine.scheduler.matched_answers, counters=worker, invalid=invalid, loaded_async=loaded_async,
                freed=engine.scheduler.freed, open_lookups=d.half(engine, "scheduler").open_lookups(),
                requires_kv_delivery=[_own(engine.scheduler.connector).requires_kv_delivery, _own(engine.model_runner.connector).requires_kv_delivery], **more)


def _own(connector):
    """The adapter's connector (itself, or its child inside MultiConnector)."""
    return next(c for c in getattr(connector, "_connectors", [connector]) if hasattr(c, "_adapter_half"))


def _digest_after_prefill(engine, request_id, blocks, into):
    def on_step(_n, _out):
        state = engine.model_runner.states.get(request_id)
        if state is not None and request_id not in into and len(state["digests"]) >= blocks * d.BLOCK_SIZE:
            into[request_id] = d.kv_digest(engine, request_id, blocks)
    return on_step


def cold():
    """A request on an empty cache: it saves its full blocks, nothing is restored."""
    engine = d.build(CONNECTOR)
    engine.add_request(d.request("cold", d.prompt("shared", 4)))
    digests = {}
    d.run(engine, on_step=_digest_after_prefill(engine, "cold", 4, digests))
    return _observed(engine, digests=digests)


def hot():
    """The same prompt in a fresh engine process: its blocks come from the Manager."""
    engine = d.build(CONNECTOR)
    engine.add_request(d.request("hot", d.prompt("shared", 4)))
    digests = {}
    d.run(engine, on_step=_digest_after_prefill(engine, "hot", 4, digests))
    return _observed(engine, digests=digests)


def pending():
    """A lookup the Manager has not answered yet (paused): the scheduler is told None and asks again."""
    engine = d.build(CONNECTOR)
    engine.add_request(d.request("slow", d.prompt("shared", 4)))
    _pause()
    try:
        engine.step()
        waiting = [r.request_id for r in engine.scheduler.waiting]
    finally:
        _resume()
    d.run(engine)
    return _observed(engine, waiting_while_paused=waiting)


def unselected():
    """A ready lookup whose request vLLM never allocates (the pool is short) and then aborts."""
    engine = d.build(CONNECTOR, num_blocks=6)
    engine.add_request(d.request("hog", d.prompt("hog", 3), max_tokens=200))
    _step_until(engine, lambda: any(r.request_id == "hog" for r in engine.scheduler.running))
    engine.add_request(d.request("starved", d.prompt("shared", 4)))
    _step_until(engine, lambda: any(a for a in engine.scheduler.matched_answers.get("starved", ())))
    for _ in range(3):
        engine.step()
    held = d.half(engine, "scheduler").open_lookups()
    running = [r.request_id for r in engine.scheduler.running]
    engine.abort_requests(["starved"])
    after_abort = d.half(engine, "scheduler").open_lookups()
    # Asked while this engine's connections are still open: closing them would release the leases anyway.
    states = _lookup_states("starved")
    engine.abort_requests(["hog"])
    d.run(engine)
    return _observed(engine, held_before_abort=held, open_after_abort=after_abort, running_before_abort=running, manager_states=states)


def abort_mid_load():
    """An asynchronous load whose restore the Manager holds (paused); the request is aborted meanwhile."""
    engine = d.build(CONNECTOR, extra={"load_mode": "async"})
    events = _pause_before_restore(engine, 1.5)
    engine.add_request(d.request("doomed", d.prompt("shared", 4)))
    _step_until(engine, lambda: events.get("paused"))
    engine.abort_requests(["doomed"])
    aborted_at = len(engine.outputs)
    # Engine steps keep coming while the Manager holds the restore (paced, as a serving engine's would).
    while not any(r == "doomed" for r, _b in engine.scheduler.freed) and len(engine.outputs) < aborted_at + 2000:
        engine.step()
        time.sleep(d.PACE_S)
    events["timer"].join()
    freed_at = [i for i, (s, r) in enumerate(engine.outputs) if r.kv_connector_output and "doomed" in (r.kv_connector_output.finished_recving or ())]
    engine.add_request(d.request("after", d.prompt("shared", 4)))
    d.run(engine)
    return _observed(engine, aborted_at_step=aborted_at, resumed_at_step=events.get("resumed_at_step"), finished_recving_at=freed_at)


def load_error():
    """A synchronous restore that does not land in time (Manager paused): its blocks are load errors, vLLM recomputes them."""
    engine = d.build(CONNECTOR, extra={"load_mode": "sync", "layer_timeout_s": 0.2})
    events = _pause_before_restore(engine, 1.0)
    engine.add_request(d.request("unlucky", d.prompt("shared", 4)))
    block_ids = {}

    def on_step(_n, _out):
        state = engine.model_runner.states.get("unlucky")
        if state is not None and "unlucky" not in block_ids:
            block_ids["unlucky"] = state["blocks"][:4]

    d.run(engine, on_step=on_step)
    events["timer"].join()
    return _observed(engine, blocks=block_ids)


def preemption():
    """Two requests outgrow the pool during decode: the one admitted later is preempted, then resumes from its saved blocks.

    Which of the two is admitted first is not fixed: a lookup whose reply has not arrived when
    the scheduler polls it answers None and its request waits a step (vLLM's contract), so the
    scenario reports the admission order and replays whichever was preempted."""
    engine = d.build(CONNECTOR, num_blocks=9, max_tokens_budget=512)
    engine.add_request(d.request("first", d.prompt("first", 3, tail=14), max_tokens=24))
    engine.add_request(d.request("second", d.prompt("second", 3, tail=14), max_tokens=24))
    preempted, admitted = [], []

    def on_step(_n, out):
        preempted.extend(sorted(out[0].preempted_req_ids))
        admitted.extend(r.req_id for r in out[0].scheduled_new_reqs if r.req_id not in admitted)

    d.run(engine, on_step=on_step)
    restored_before_replay = d.half(engine, "worker").counters["restored_blocks"]
    victim = preempted[0] if preempted else None
    if victim is not None:
        # Everything the preempted request computed, before and after its preemption, read back
        # from the Manager: the model's read check compares every restored byte with what that
        # prefix must hold.
        tokens = d.prompt(victim, 3, tail=14) + engine.scheduler.finished_outputs[victim]
        engine.add_request(d.request("replay", tokens, max_tokens=1))
        d.run(engine)
    return _observed(engine, preempted=preempted, admitted=admitted, restored_before_replay=restored_before_replay)


def multi():
    """MultiConnector with a native P/D receiver first: it is chosen, this cache's lookup is
    allocated with the real blocks and 0 external tokens (#46865): its leases go at once, and the
    blocks the receiver filled are saved (the spec then restores them in a fresh engine)."""
    engine = d.build_multi(CONNECTOR, native_prefix="pd-")
    engine.add_request(d.request("pd-1", d.prompt("shared", 4)))
    _step_until(engine, lambda: any(r.request_id == "pd-1" for r in engine.scheduler.running))
    states = _lookup_states("pd-1")
    engine.add_request(d.request("pd-2", d.prompt("native", 4)))
    d.run(engine)
    native = engine.scheduler.connector._connectors[0]
    return _observed(engine, manager_states_while_running=states, native_claimed=native.claimed,
                     multi_requires_kv_delivery=engine.scheduler.connector.requires_kv_delivery)


def alone(label, blocks, tail, max_tokens):
    """A reference run of one prompt on its own (no preemption, its own namespace of blocks)."""
    engine = d.build(CONNECTOR, num_blocks=32)
    engine.add_request(d.request(label, d.prompt(label, blocks, tail=tail), max_tokens=max_tokens))
    d.run(engine)
    return _observed(engine)


SCENARIOS = {f.__name__: f for f in (cold, hot, pending, unselected, abort_mid_load, load_error, preemption, multi)}

if __name__ == "__main__":
    name = sys.argv[1]
    if name == "alone":
        found = alone(sys.argv[2], int(sys.argv[3]), int(sys.argv[4]), int(sys.argv[5]))
    else:
        found = SCENARIOS[name]()
    sys.stdout.write(json.dumps(found, sort_keys=True, default=sorted) + "\n")
    sys.stdout.flush()
    os._exit(0)
