/**
 * The save lifecycle: pages → DRAM (staged) → SSD (persisted) → committed in the index.
 * Each step is an invoked promise over the real I/O; a block already stored is deduplicated.
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
  /** Start of the window being staged or persisted. */
  cursor: number;
  staged: SaveOutcome[];
  persisted: (PersistOutcome | null)[];
  error: string | null;
}

export const saveMachine = setup({
    types: { context: {} as SaveContext, input: {} as SaveInput },
    actors: {
      stageWindow: fromPromise(async ({ input }: { input: { keys: string[]; from: number; stage: SaveInput['stage'] } }) => {
        // The window's copies run together; a lookup waits (pending) on any block still copying.
        return Promise.all(input.keys.map((k, i) => input.stage(k, input.from + i)));
      }),
      persistAll: fromPromise(async ({ input }: { input: { keys: string[]; persist: SaveInput['persist'] } }) => input.persist(input.keys)),
    },
  }).createMachine({
    id: 'save',
    context: ({ input }) => ({ ...input, cursor: 0, staged: [], persisted: [], error: null }),
    initial: 'staging',
    states: {
      staging: {
        invoke: {
          src: 'stageWindow',
          input: ({ context }) => ({ keys: context.keys.slice(context.cursor, context.cursor + context.window), from: context.cursor, stage: context.stage }),
          onDone: { target: 'persisting', actions: assign({ staged: ({ context, event }) => [...context.staged, ...event.output] }) },
          onError: { target: 'failed', actions: assign({ error: ({ event }) => String((event.error as Error)?.message ?? event.error) }) },
        },
      },
      persisting: {
        invoke: {
          src: 'persistAll',
          input: ({ context }) => ({
            keys: context.keys.slice(context.cursor, context.cursor + context.window).filter((_, i) => context.staged[context.cursor + i] === 'stored'),
            persist: context.persist,
          }),
          onDone: {
            target: 'nextWindow',
            actions: assign({
              persisted: ({ context, event }) => [
                ...context.persisted,
                ...context.keys.slice(context.cursor, context.cursor + context.window).map((k, i) => (context.staged[context.cursor + i] === 'stored' ? (event.output.get(k) ?? null) : null)),
              ],
              cursor: ({ context }) => context.cursor + context.window,
            }),
          },
          onError: { target: 'failed', actions: assign({ error: ({ event }) => String((event.error as Error)?.message ?? event.error) }) },
        },
      },
      nextWindow: { always: [{ guard: ({ context }) => context.cursor < context.keys.length, target: 'staging' }, { target: 'committed' }] },
      committed: { type: 'final' },
      failed: { type: 'final' },
    },
  });
