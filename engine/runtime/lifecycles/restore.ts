/**
 * The restore lifecycle: reading (SSD → DRAM where a block is not in DRAM) → copying (DRAM →
 * pages, one completion flag per page as it lands) → done | failed (per block, so the engine
 * recomputes those) | cancelled. Blocks move in windows, so a restore larger than DRAM streams
 * through it. A cancel while I/O is in flight goes through draining: the pages are reported
 * free only after every read and write into them has settled.
 */
import { assign, fromPromise, setup } from 'xstate';
import { faultPoint } from '../faults/index.js';

export type BlockResult = 'restored' | string;

/** One restore's I/O; `cancel` stops it between blocks. */
export interface RestoreJob {
  blocks: number;
  window: number;
  /** Brings blocks [from, to) into DRAM: a DRAM slot per block, or why it cannot be served. */
  read(from: number, to: number): Promise<(Buffer | string)[]>;
  /** Copies them into their pages and sets the pages' flags; gives the DRAM slots back. */
  copy(from: number, slots: (Buffer | string)[]): Promise<BlockResult[]>;
  cancel(): void;
}

export interface RestoreContext {
  job: RestoreJob;
  cursor: number;
  slots: (Buffer | string)[];
  results: BlockResult[];
  inflight: Promise<unknown> | null;
}

export const restoreMachine = setup({
    types: { context: {} as RestoreContext, input: {} as { job: RestoreJob }, events: {} as { type: 'CANCEL' } },
    actors: {
      io: fromPromise(async ({ input }: { input: { run: () => Promise<unknown> } }) => input.run()),
      drain: fromPromise(async ({ input }: { input: { inflight: Promise<unknown> | null } }) => {
        await input.inflight?.catch(() => undefined);
      }),
    },
    actions: {
      cancelJob: ({ context }) => context.job.cancel(),
    },
  }).createMachine({
    id: 'restore',
    context: ({ input }) => ({ job: input.job, cursor: 0, slots: [], results: [], inflight: null }),
    initial: 'reading',
    states: {
      reading: {
        entry: assign({ inflight: ({ context }) => context.job.read(context.cursor, Math.min(context.job.blocks, context.cursor + context.job.window)) }),
        invoke: {
          src: 'io',
          input: ({ context }) => ({ run: () => context.inflight! }),
          onDone: { target: 'copying', actions: assign({ slots: ({ event }) => event.output as (Buffer | string)[] }) },
          onError: { target: 'failed', actions: assign({ results: ({ context }) => Array.from({ length: context.job.blocks }, (_, i) => context.results[i] ?? 'io-error') }) },
        },
        on: { CANCEL: { target: 'draining', actions: 'cancelJob' } },
      },
      copying: {
        entry: assign({ inflight: ({ context }) => faultPoint('restore-copy-delay-ms')?.then(() => context.job.copy(context.cursor, context.slots)) ?? context.job.copy(context.cursor, context.slots) }),
        invoke: {
          src: 'io',
          input: ({ context }) => ({ run: () => context.inflight! }),
          onDone: {
            target: 'nextWindow',
            actions: assign({
              results: ({ context, event }) => [...context.results, ...(event.output as BlockResult[])],
              cursor: ({ context }) => context.cursor + context.job.window,
              slots: () => [],
            }),
          },
          onError: { target: 'failed', actions: assign({ results: ({ context }) => Array.from({ length: context.job.blocks }, (_, i) => context.results[i] ?? 'io-error') }) },
        },
        on: { CANCEL: { target: 'draining', actions: 'cancelJob' } },
      },
      nextWindow: {
        always: [
          { guard: ({ context }) => context.cursor < context.job.blocks, target: 'reading' },
          { guard: ({ context }) => context.results.every((r) => r === 'restored'), target: 'done' },
          { target: 'failed' },
        ],
      },
      draining: {
        invoke: { src: 'drain', input: ({ context }) => ({ inflight: context.inflight }), onDone: 'cancelled' },
      },
      done: { type: 'final' },
      failed: { type: 'final' },
      cancelled: { type: 'final' },
    },
  });
