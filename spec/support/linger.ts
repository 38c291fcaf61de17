/**
 * Mocha's global teardown: once the last spec has run, the suite's process must exit on its own.
 * A handle a spec left open (a timer, a socket, a child, a native poll) would keep it alive with
 * nothing printed, and CI would wait out its limit. Past LINGER_MS this names what is still open
 * and exits with the suite's code, or 1 when every spec passed (a leak is a defect).
 *
 * ORBITKV_SPEC_LINGER_TRACE=1 records where each timer and handle was made, and prints the
 * places of those still open.
 */
import { createHook } from 'node:async_hooks';

const LINGER_MS = Number(process.env['ORBITKV_SPEC_LINGER_MS'] ?? 20_000);
const TRACE = process.env['ORBITKV_SPEC_LINGER_TRACE'] === '1';
/** Live resources and where they were made (trace only). */
const made = new Map<number, { type: string; resource: object; stack: string }>();

if (TRACE) {
  createHook({
    init(id, type, _trigger, resource) {
      if (type === 'PROMISE' || type === 'TickObject' || type === 'Microtask') return;
      const limit = Error.stackTraceLimit;
      Error.stackTraceLimit = 60;
      const frames = new Error().stack!.split('\n').slice(2);
      Error.stackTraceLimit = limit;
      // The project's own frames say who made it; the first few say how.
      const own = frames.filter((f) => !f.includes('node_modules') && !f.includes('node:'));
      made.set(id, { type, resource, stack: [...frames.slice(0, 3), ...own.slice(0, 8)].join('\n') });
    },
    destroy(id) {
      made.delete(id);
    },
  }).enable();
}

const isOpen = (r: object): boolean => {
  const x = r as { hasRef?: () => boolean; _destroyed?: boolean };
  if (typeof x.hasRef === 'function') return x.hasRef() && x._destroyed !== true;
  return true;
};

export function mochaGlobalTeardown(): void {
  const ended = Date.now();
  const timer = setTimeout(() => {
    const open = process.getActiveResourcesInfo().filter((r) => r !== 'TTYWrap');
    process.stderr.write(`\nspec/support/linger.ts: the suite's process was still alive ${((Date.now() - ended) / 1000).toFixed(0)} s after its last spec; still open: ${open.join(', ') || '(nothing JavaScript can see: a native handle)'}${TRACE ? '' : ' (ORBITKV_SPEC_LINGER_TRACE=1 says where they were made)'}\n`);
    const kinds = new Set(open.map((r) => r.toUpperCase()));
    if (TRACE) for (const { type, resource, stack } of made.values()) if (type === 'Timeout' ? isOpen(resource) : kinds.has(type.toUpperCase())) process.stderr.write(`-- ${type}\n${stack}\n`);
    const code = typeof process.exitCode === 'number' && process.exitCode !== 0 ? process.exitCode : 1;
    // Mocha's own exit listener sets the code to the failure count (0 when every spec passed):
    // this one runs after it.
    process.on('exit', () => (process.exitCode = code));
    process.exit(code);
  }, LINGER_MS);
  timer.unref();
}
