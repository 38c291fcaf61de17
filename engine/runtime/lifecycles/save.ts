/**
 * The save lifecycle: pages → DRAM (staged) → SSD (persisted) → committed in the index.
 * Each step is an invoked promise over the real I/O; a block already stored is deduplicated.
 * Blocks move in windows, and the windows overlap: while one window is written back to SSD the
 * next is staged from pages into DRAM (two windows in DRAM at most).
 */
import { assign, fromPromise, setup } from 'xstate';
import type { PersistOutcome, SaveOutcome } from '../catalog/index.js';

export interface SaveInput {
  keys: string[];
  /** Blocks staged before each write-back, so a save larger than DRAM streams through it. */
  window: number;
  stage: (key: string, index: number) => Promise<SaveOutcome>;
  persist: (keys: string[]) => Promise<Map<string, PersistOutcome>>;
}

export interface SaveContext extends SaveInput {
  /** Start of the window being persisted (the one after it is being staged meanwhile). */
  cursor: number;
  staged: SaveOutcome[];
  persisted: (PersistOutcome | null)[];
  error: string | null;
}

const stageWindow = (input: SaveInput, from: number): Promise<SaveOutcome[]> =>
  // The window's copies run together; a lookup waits (pending) on any block still copying.
  Promise.all(input.keys.slice(from, from + input.window).map((k, i) => input.stage(k, from + i)));

const reason = (error: unknown) => String((error as Error)?.message ?? error);

export const saveMachine = setup({
    types: { context: {} as SaveContext, input: {} as SaveInput },
    actors: {
      stageFirst: fromPromise(async ({ input }: { input: SaveContext }) => stageWindow(input, 0)),
      /** Persists the window at `cursor` while staging the next; settles once both have. */
      persistAndStageNext: fromPromise(async ({ input }: { input: SaveContext }) => {
        const { cursor, window, keys, staged } = input;
        const stored = keys.slice(cursor, cursor + window).filter((_, i) => staged[cursor + i] === 'stored');
        const next = cursor + window < keys.length ? stageWindow(input, cursor + window) : Promise.resolve([]);
        const [persisted, nextStaged] = await Promise.allSettled([input.persist(stored), next]);
        if (persisted.status === 'rejected') throw persisted.reason;
        if (nextStaged.status === 'rejected') throw nextStaged.reason;
        // A block of the next window that found DRAM full while this window was still held for
        // its write-back tries again now that this window may leave DRAM: overlapping never
        // refuses a block that staging after the write-back would have stored.
        const from = cursor + window;
        const again = nextStaged.value.includes('dram-full') ? await Promise.all(nextStaged.value.map((o, i) => (o === 'dram-full' ? input.stage(keys[from + i]!, from + i) : o))) : nextStaged.value;
        return { persisted: persisted.value, staged: again };
      }),
    },
  }).createMachine({
    id: 'save',
    context: ({ input }) => ({ ...input, cursor: 0, staged: [], persisted: [], error: null }),
    initial: 'staging',
    states: {
      staging: {
        invoke: {
          src: 'stageFirst',
          input: ({ context }) => context,
          onDone: { target: 'persisting', actions: assign({ staged: ({ event }) => event.output }) },
          onError: { target: 'failed', actions: assign({ error: ({ event }) => reason(event.error) }) },
        },
      },
      persisting: {
        invoke: {
          src: 'persistAndStageNext',
          input: ({ context }) => context,
          onDone: {
            target: 'nextWindow',
            actions: assign(({ context, event }) => {
              const { cursor, window, keys } = context;
              const window_ = keys.slice(cursor, cursor + window).map((k, i) => (context.staged[cursor + i] === 'stored' ? (event.output.persisted.get(k) ?? null) : null));
              return { persisted: [...context.persisted, ...window_], staged: [...context.staged, ...event.output.staged], cursor: cursor + window };
            }),
          },
          onError: { target: 'failed', actions: assign({ error: ({ event }) => reason(event.error) }) },
        },
      },
      nextWindow: { always: [{ guard: ({ context }) => context.cursor < context.keys.length, target: 'persisting' }, { target: 'committed' }] },
      committed: { type: 'final' },
      failed: { type: 'final' },
    },
  });
