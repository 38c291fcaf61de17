/**
 * The restore lifecycle: reading (SSD → DRAM where a block is not in DRAM) → copying (DRAM →
 * pages, one completion flag per page as it lands) → done | failed (per block, so the engine
 * recomputes those) | cancelled. Blocks move in windows, so a restore larger than DRAM streams
 * through it, and the windows overlap: the next is read from SSD while one is copied. A cancel while I/O is in flight goes through draining: the pages are reported
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
  /** Start of the window being copied (the one after it is being read meanwhile). */
  cursor: number;
  /** The window at `cursor`, read into DRAM. */
  slots: (Buffer | string)[];
  results: BlockResult[];
  inflight: Promise<unknown> | null;
}

const windowEnd = (job: RestoreJob, from: number) => Math.min(job.blocks, from + job.window);
const ioError = ({ context }: { context: RestoreContext }) => Array.from({ length: context.job.blocks }, (_, i) => context.results[i] ?? 'io-error');

/** Copies the window at `cursor` into pages while the next window is read; settles once both have. */
function copyAndReadNext(context: RestoreContext): Promise<{ copied: BlockResult[]; next: (Buffer | string)[] }> {
  const { job, cursor, slots } = context;
  const after = cursor + job.window;
  const next = after < job.blocks ? job.read(after, windowEnd(job, after)) : Promise.resolve([]);
  return Promise.allSettled([job.copy(cursor, slots), next]).then(async ([copied, read]) => {
    if (copied.status === 'rejected') throw copied.reason;
    if (read.status === 'rejected') throw read.reason;
    // A block of the next window that found DRAM full while this window still held its slots
    // is read again now they are free: overlapping never fails a block that reading after the
    // copy would have served.
    const again = read.value.includes('dram-full') ? await Promise.all(read.value.map(async (r, i) => (r === 'dram-full' ? ((await job.read(after + i, after + i + 1))[0] ?? r) : r))) : read.value;
    return { copied: copied.value, next: again };
  });
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
      // The first window only; later windows are read while the one before is copied.
      reading: {
        entry: assign({ inflight: ({ context }) => context.job.read(0, windowEnd(context.job, 0)) }),
        invoke: {
          src: 'io',
          input: ({ context }) => ({ run: () => context.inflight! }),
          onDone: { target: 'copying', actions: assign({ slots: ({ event }) => event.output as (Buffer | string)[] }) },
          onError: { target: 'failed', actions: assign({ results: ioError }) },
        },
        on: { CANCEL: { target: 'draining', actions: 'cancelJob' } },
      },
      copying: {
        entry: assign({ inflight: ({ context }) => faultPoint('restore-copy-delay-ms')?.then(() => copyAndReadNext(context)) ?? copyAndReadNext(context) }),
        invoke: {
          src: 'io',
          input: ({ context }) => ({ run: () => context.inflight! }),
          onDone: {
            target: 'nextWindow',
            actions: assign(({ context, event }) => {
              const out = event.output as Awaited<ReturnType<typeof copyAndReadNext>>;
              return { results: [...context.results, ...out.copied], cursor: context.cursor + context.job.window, slots: out.next };
            }),
          },
          onError: { target: 'failed', actions: assign({ results: ioError }) },
        },
        on: { CANCEL: { target: 'draining', actions: 'cancelJob' } },
      },
      nextWindow: {
        always: [
          { guard: ({ context }) => context.cursor < context.job.blocks, target: 'copying' },
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
