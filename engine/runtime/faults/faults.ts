/**
 * Fault injection for qualification gates (`orbitkv gate run`): named points inside the
 * Manager where a fault holds an operation back for a while, so a scenario can act (cancel,
 * kill an engine, restart) while that operation is provably in flight. Off unless `orbitkv
 * serve --faults SPEC` enabled it: with no plan every point is a resolved no-op, and `enable`
 * can be called once per process only. Each point is one call at its site.
 */

/** Where a fault can be injected, and what it does there. */
export const FAULT_POINTS = {
  /** An SSD read's completion is held back this many milliseconds before the tier sees it. */
  'ssd-read-hold-ms': 'holds each SSD tier read completion back',
  /** A restore window's copy into the engine's pages starts this many milliseconds late. */
  'restore-copy-delay-ms': 'delays each restore window before its bytes are copied into pages',
  /** A registration's pages start being populated this many milliseconds late (it is answered at once). */
  'pages-populate-hold-ms': 'holds back the populate of each page registration',
} as const;

export type FaultPoint = keyof typeof FAULT_POINTS;

export type FaultPlan = Partial<Record<FaultPoint, number>>;

/** The largest hold a plan may ask for: a fault must end, so nothing waits forever. */
export const MAX_FAULT_MS = 60_000;

let plan: FaultPlan | null = null;
/** How many times each point fired: the gate runner reads them through `orbitkv manager status`-like logs. */
const fired = new Map<FaultPoint, number>();

/**
 * Parses `--faults` (`ssd-read-hold-ms=1500,restore-copy-delay-ms=800`): the plan, or the
 * offending item with why it is refused.
 */
export function parseFaultPlan(text: string): FaultPlan | { problem: string; item: string } {
  const out: FaultPlan = {};
  const items = text.split(',').map((s) => s.trim()).filter((s) => s.length > 0);
  if (items.length === 0) return { problem: `no fault named; known: ${Object.keys(FAULT_POINTS).join(', ')}`, item: text };
  for (const item of items) {
    const m = /^([a-z0-9-]+)=([0-9]{1,6})$/.exec(item);
    if (!m) return { problem: 'expected NAME=MILLISECONDS', item };
    const name = m[1]!;
    if (!Object.hasOwn(FAULT_POINTS, name)) return { problem: `unknown fault; known: ${Object.keys(FAULT_POINTS).join(', ')}`, item };
    const ms = Number(m[2]);
    if (ms > MAX_FAULT_MS) return { problem: `longer than ${MAX_FAULT_MS} ms`, item };
    out[name as FaultPoint] = ms;
  }
  return out;
}

/** Turns fault injection on for this process. Only `orbitkv serve --faults` calls it. */
export function enableFaults(next: FaultPlan): void {
  if (plan !== null) throw new Error('fault injection is already enabled in this process');
  plan = { ...next };
}

/** The plan in force, or null when fault injection is off (the default). */
export function activeFaults(): Readonly<FaultPlan> | null {
  return plan;
}

/** How often each point fired since start. */
export function faultCounts(): Record<string, number> {
  return Object.fromEntries(fired);
}

/**
 * The injection point `point`: null when no fault is planned there (the site goes on exactly as
 * without the call: `await null` or `?? direct()`), else a promise settled after the planned
 * milliseconds. Sites wait on it where the held operation would otherwise continue.
 */
export function faultPoint(point: FaultPoint): Promise<void> | null {
  const ms = plan?.[point];
  if (ms === undefined) return null;
  fired.set(point, (fired.get(point) ?? 0) + 1);
  return new Promise((resolve) => setTimeout(resolve, ms));
}
