import { strict as assert } from 'node:assert';
import { Worker } from 'node:worker_threads';
import { EventRing, RECORD_INTS } from '../../engine/runtime/lifecycles/event-ring.js';
import { tsxEsmApi } from '../../engine/threads/module-worker.js';

const RING_URL = new URL('../../engine/runtime/lifecycles/event-ring.ts', import.meta.url).href;

/** Every worker a spec started: terminated after each spec, so one that failed leaves none running. */
const workers: Worker[] = [];

/**
 * A worker running `body` (an async function's body) with `EventRing` and `workerData` in scope
 * (tsx registered first: a worker does not inherit the TypeScript loader). Its intermediate messages
 * go to `onMessage`; resolves to what `body` returns.
 */
function inWorker(body: string, workerData: unknown, onMessage: (m: unknown) => void = () => undefined): Promise<unknown> {
  const code = `
    const { parentPort, workerData } = require('node:worker_threads');
    import(${JSON.stringify(tsxEsmApi())}).then(async ({ register }) => {
      register();
      const { EventRing } = await import(${JSON.stringify(RING_URL)});
      const result = await (async () => { ${body} })();
      parentPort.postMessage({ done: result });
    });`;
  const w = new Worker(code, { eval: true, workerData });
  workers.push(w);
  return new Promise((resolve, reject) => {
    w.on('message', (m: { done?: unknown }) => (m !== null && typeof m === 'object' && 'done' in m ? resolve(m.done) : onMessage(m)));
    w.once('error', reject);
    w.once('exit', (c) => c !== 0 && reject(new Error(`worker exited ${c}`)));
  });
}

const all = (ring: EventRing) => {
  const out: number[][] = [];
  ring.drain((a, b, c, d) => out.push([a, b, c, d]));
  return out;
};

describe('runtime/lifecycles/event-ring: a bounded SPSC ring of records in shared memory', function () {
  this.timeout(60_000);
  afterEach(async () => {
    await Promise.all(workers.splice(0).map((w) => w.terminate()));
  });

  it('hands records back in order, each whole; refuses a push when full and overwrites nothing', () => {
    const ring = new EventRing(EventRing.memory(4));
    assert.equal(ring.capacity, 4);
    for (let i = 0; i < 4; i++) assert.equal(ring.push(i, -i, 2 ** 31 - 1 - i, -(2 ** 31) + i), true);
    assert.equal(ring.push(9, 9, 9, 9), false);
    assert.equal(ring.waiting, 4);
    assert.deepEqual(all(ring), [0, 1, 2, 3].map((i) => [i, -i | 0, 2 ** 31 - 1 - i, -(2 ** 31) + i]));
    assert.equal(ring.waiting, 0);
    // Room again, and the slots are reused in order.
    for (let i = 10; i < 13; i++) ring.push(i, 0, 0, 0);
    let seen = 0;
    assert.equal(ring.drain(() => seen++, 2), 2);
    assert.equal(ring.waiting, 1);
    assert.deepEqual(all(ring), [[12, 0, 0, 0]]);
  });

  it('keeps working across the wrap of its 32-bit counters', () => {
    const memory = EventRing.memory(8);
    const control = new Int32Array(memory, 0, 2);
    control[0] = control[1] = 2 ** 31 - 3; // three pushes from the signed wrap
    const ring = new EventRing(memory);
    const got: number[] = [];
    for (let round = 0; round < 5; round++) {
      for (let i = 0; i < 6; i++) assert.equal(ring.push(round * 6 + i, 0, 0, 0), true);
      assert.equal(ring.waiting, 6);
      ring.drain((a) => got.push(a));
    }
    assert.deepEqual(got, Array.from({ length: 30 }, (_, i) => i));
    assert.ok(control[0]! < 0, `the head wrapped to ${control[0]}`);
    // Full is still full across the wrap.
    for (let i = 0; i < 8; i++) assert.equal(ring.push(i, 0, 0, 0), true);
    assert.equal(ring.push(8, 0, 0, 0), false);
  });

  it('refuses a capacity that is not a power of two from 2 to 2^20, and memory that is not a ring\'s', () => {
    for (const bad of [0, 1, 3, 6, 1.5, 2 ** 21, NaN]) assert.throws(() => EventRing.memory(bad), RangeError);
    assert.throws(() => new EventRing(new SharedArrayBuffer(16 + 3 * RECORD_INTS * 4)), RangeError);
    assert.equal(new EventRing(EventRing.memory(2 ** 20)).capacity, 2 ** 20);
  });

  it('carries 200,000 records from a worker to this thread in order, through a ring of 64, nothing lost or torn', async () => {
    const memory = EventRing.memory(64);
    const ring = new EventRing(memory);
    const N = 200_000;
    const producer = inWorker(
      `const ring = new EventRing(workerData.memory); let full = 0;
       for (let i = 0; i < workerData.n; i++) while (!ring.push(i, ~i, i * 7, i ^ 0x5a5a5a5a)) full++;
       return full;`,
      { memory, n: N },
    );
    let failed: unknown = null;
    producer.catch((e: unknown) => (failed = e ?? 'failed'));
    let next = 0;
    while (next < N && failed === null) {
      ring.drain((a, b, c, d) => {
        assert.equal(a, next);
        assert.deepEqual([b, c, d], [~next, (next * 7) | 0, next ^ 0x5a5a5a5a]);
        next++;
      });
      await new Promise((r) => setImmediate(r));
    }
    const full = (await producer) as number;
    assert.ok(full > 0, 'the producer met a full ring at least once (the bound held it)');
    assert.equal(ring.waiting, 0);
  });

  it('a consumer asleep in a worker is woken by a push: every burst is handled, and wake() notifies only a sleeper', async () => {
    const memory = EventRing.memory(16);
    const back = EventRing.memory(16);
    const ring = new EventRing(memory);
    const replies = new EventRing(back);
    const consumer = inWorker(
      `const ring = new EventRing(workerData.memory), back = new EventRing(workerData.back);
       let sum = 0, n = 0, stop = false;
       while (!stop) {
         ring.sleep(5000);
         ring.drain((a) => { if (a < 0) stop = true; else { sum += a; n++; back.push(n, 0, 0, 0); } });
       }
       return { sum, n };`,
      { memory, back },
    );
    let woken = 0;
    let handled = 0;
    let failed: unknown = null;
    consumer.catch((e: unknown) => (failed = e ?? 'failed'));
    for (let i = 1; i <= 50; i++) {
      assert.equal(ring.push(i, 0, 0, 0), true);
      if (ring.wake()) woken++;
      // Wait for the worker's reply, so it goes back to sleep before the next push.
      for (;;) {
        if (failed !== null) throw failed;
        let got = 0;
        replies.drain(() => got++);
        handled += got;
        if (handled === i) break;
        await new Promise((r) => setTimeout(r, 1));
      }
    }
    ring.push(-1, 0, 0, 0);
    ring.wake();
    assert.deepEqual(await consumer, { sum: (50 * 51) / 2, n: 50 });
    assert.ok(woken > 0, 'a push found the worker asleep and woke it');
    assert.equal(ring.wake(), false, 'no one sleeps now: no futex wake');
  });
  it('a thread that must not block listens: the producer tells it once per listen, and no record is left behind (20,000 in random bursts)', async () => {
    const memory = EventRing.memory(256);
    const ring = new EventRing(memory);
    const N = 20_000;
    let got = 0;
    let expected = 0;
    let messages = 0;
    const drainAll = () => {
      ring.drain((a) => {
        assert.equal(a, expected++);
        got++;
      });
    };
    const drainAndListen = () => {
      drainAll();
      while (!ring.listen()) drainAll();
    };
    assert.equal(ring.listen(), true);
    const producer = inWorker(
      `const ring = new EventRing(workerData.memory); let told = 0;
       for (let i = 0; i < workerData.n; ) {
         const burst = 1 + Math.floor(Math.random() * 40);
         for (let k = 0; k < burst && i < workerData.n; k++, i++) {
           while (!ring.push(i, 0, 0, 0)) Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, 1);
           if (ring.wake()) { told++; parentPort.postMessage(0); }
         }
         if (Math.random() < 0.3) Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, 1);
       }
       return told;`,
      { memory, n: N },
      () => {
        messages++;
        drainAndListen();
      },
    );
    const told = (await producer) as number;
    // The last message may still be on its way: wait for the count, within a bound.
    for (let i = 0; i < 200 && got < N; i++) await new Promise((r) => setTimeout(r, 10));
    assert.equal(got, N);
    assert.ok(told >= 1 && told < N, `told ${told} times for ${N} records`);
    assert.ok(messages <= told);
  });

  it('sleepAsync waits for a push while the worker\'s own timers keep running', async () => {
    const memory = EventRing.memory(16);
    const ring = new EventRing(memory);
    const seen: Array<{ a: number; ticks: number }> = [];
    let ready!: () => void;
    const started = new Promise<void>((r) => (ready = r));
    const consumer = inWorker(
      `const ring = new EventRing(workerData.memory); let ticks = 0, stop = false;
       const timer = setInterval(() => ticks++, 2);
       parentPort.postMessage('ready');
       while (!stop) {
         await ring.sleepAsync();
         ring.drain((a) => { if (a < 0) stop = true; else parentPort.postMessage({ a, ticks }); });
       }
       clearInterval(timer);
       return ticks;`,
      { memory },
      (m) => (m === 'ready' ? ready() : seen.push(m as { a: number; ticks: number })),
    );
    // The worker's start (its TypeScript loader) takes longer than the pushes: start when it waits.
    await started;
    for (let i = 0; i < 10; i++) {
      await new Promise((r) => setTimeout(r, 20));
      ring.push(i, 0, 0, 0);
      ring.wake();
    }
    await new Promise((r) => setTimeout(r, 20));
    ring.push(-1, 0, 0, 0);
    ring.wake();
    const ticks = (await consumer) as number;
    assert.deepEqual(seen.map((x) => x.a), Array.from({ length: 10 }, (_, i) => i));
    assert.ok(seen[9]!.ticks > seen[0]!.ticks, `the worker's interval ran while it waited (${seen[0]!.ticks} -> ${seen[9]!.ticks})`);
    assert.ok(ticks > 20, `ticks ${ticks}`);
  });
  it('a napping consumer is not "sleeping" (a producer with nothing urgent leaves it), and wake() ends its nap at once', async () => {
    const memory = EventRing.memory(16);
    const ring = new EventRing(memory);
    let ready!: () => void;
    const started = new Promise<void>((r) => (ready = r));
    const consumer = inWorker(
      `const ring = new EventRing(workerData.memory);
       const alive = setInterval(() => undefined, 1000); // Atomics.waitAsync alone keeps no thread alive
       parentPort.postMessage('ready');
       const t0 = performance.now();
       await ring.napAsync(10000);
       const woke = performance.now() - t0;
       clearInterval(alive);
       let got = -1;
       ring.drain((a) => (got = a));
       return { woke, got };`,
      { memory },
      (m) => m === 'ready' && ready(),
    );
    await started;
    await new Promise((r) => setTimeout(r, 50));
    assert.equal(ring.sleeping, false, 'napping is not sleeping');
    ring.push(7, 0, 0, 0);
    assert.equal(ring.wake(), true, 'an urgent wake takes the nap flag down');
    const { woke, got } = (await consumer) as { woke: number; got: number };
    assert.equal(got, 7);
    assert.ok(woke < 5000, `woken after ${woke.toFixed(0)} ms, not at the nap's end`);
  });
});
