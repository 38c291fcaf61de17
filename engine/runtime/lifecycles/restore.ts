/**
 * The restore lifecycle: reading (SSD → DRAM where a block is not in DRAM) → copying (DRAM →
 * pages, one completion flag per page as it lands) → done | failed (per block, so the engine
 * recomputes those) | cancelled. Blocks move in windows, and the windows stream: a window is
 * copied as soon as it is read, and the next windows are read while earlier ones are copied,
 * up to `ahead` windows in DRAM at once, so the SSD queue stays full across window boundaries
 * and a restore larger than DRAM streams through it. A cancel while I/O is in flight goes
 * through draining: the pages are reported free only after every read and write into them has
 * settled.
 */
import { assign, fromPromise, setup } from 'xstate';
import { faultPoint } from '../faults/index.js';

export type BlockResult = 'restored' | string;

/** One restore's I/O; `cancel` stops it between blocks. */
export interface RestoreJob {
  blocks: number;
  /** Blocks per read and per copy. */
  window: number;
  /** Windows read and not yet copied at once (default 2: one copied while the next is read). */
  ahead?: number;
  /** Brings blocks [from, to) into DRAM: a DRAM slot per block, or why it cannot be served. */
  read(from: number, to: number): Promise<(Buffer | string)[]>;
  /** Copies them into their pages and sets the pages' flags; gives the DRAM slots back. */
  copy(from: number, slots: (Buffer | string)[]): Promise<BlockResult[]>;
  cancel(): void;
}

export interface RestoreContext {
  job: RestoreJob;
  /** The windows in flight after the first one was read (null while it is). */
  stream: RestoreStream | null;
  /** The first window, read into DRAM. */
  slots: (Buffer | string)[];
  results: BlockResult[];
  inflight: Promise<unknown> | null;
}

const windowEnd = (job: RestoreJob, from: number) => Math.min(job.blocks, from + job.window);
const ioError = ({ context }: { context: RestoreContext }) => Array.from({ length: context.job.blocks }, (_, i) => context.stream?.results[i] ?? context.results[i] ?? 'io-error');

/**
 * The windows after the first, streamed: each window's copy starts when its read settles, and a
 * new window is read whenever fewer than `ahead` windows are read and not yet copied. Settles
 * once every window has been copied, or, after a failure or a stop, once every read and copy
 * started has settled (rejecting with the first failure).
 */
export class RestoreStream {
  readonly results: BlockResult[];
  readonly done: Promise<BlockResult[]>;
  private next: number;
  private holding = 0;
  private running = 0;
  /** Windows reading again the blocks that found DRAM full: no window starts while one does. */
  private retrying = 0;
  /** Those windows, waiting for another window to end (one entry per retrying window at most). */
  private waitingForEnd: (() => void)[] = [];
  private stopped = false;
  private failure: { error: unknown } | null = null;
  /** Settles when every window before the latest one started has been copied. */
  private copiedBefore: Promise<void>;
  private settle!: { resolve: (r: BlockResult[]) => void; reject: (e: unknown) => void };

  constructor(private readonly job: RestoreJob, first: (Buffer | string)[]) {
    this.results = new Array<BlockResult>(job.blocks);
    this.next = windowEnd(job, 0);
    this.done = new Promise((resolve, reject) => (this.settle = { resolve, reject }));
    this.copiedBefore = Promise.resolve();
    this.start(0, Promise.resolve(first));
    this.pump();
  }

  /** Starts no more windows (the job is cancelled meanwhile); `done` settles once the running ones have. */
  stop(): void {
    this.stopped = true;
    this.finish();
  }

  private pump(): void {
    const ahead = Math.max(1, this.job.ahead ?? 2);
    while (!this.stopped && this.failure === null && this.retrying === 0 && this.next < this.job.blocks && this.holding < ahead) {
      const from = this.next;
      this.next = windowEnd(this.job, from);
      this.start(from, this.job.read(from, this.next));
    }
    this.finish();
  }

  private start(from: number, read: Promise<(Buffer | string)[]>): void {
    this.holding++;
    this.running++;
    const before = this.copiedBefore;
    const copied = read
      .then(async (slots): Promise<BlockResult[]> => {
        // Stopped (cancelled): a window read meanwhile is not copied; its blocks stay unreported.
        if (this.stopped) return [];
        // A block that found DRAM full while earlier windows still held their slots is read
        // again once they are copied and free: streaming never fails a block that reading
        // after those copies would have served.
        // No window starts meanwhile (one would take the slots freed for this one), and while
        // other windows still run, each end of one is another chance.
        if (slots.includes('dram-full')) {
          this.retrying++;
          try {
            await before;
            for (;;) {
              slots = await Promise.all(slots.map(async (r, i) => (r === 'dram-full' ? ((await this.job.read(from + i, from + i + 1))[0] ?? r) : r)));
              if (!slots.includes('dram-full') || this.running <= 1 || this.stopped) break;
              await new Promise<void>((resolve) => this.waitingForEnd.push(resolve));
            }
          } finally {
            this.retrying--;
          }
        }
        await faultPoint('restore-copy-delay-ms');
        if (this.stopped) return [];
        return this.job.copy(from, slots);
      })
      .then((copiedResults) => copiedResults.forEach((r, i) => (this.results[from + i] = r)));
    this.copiedBefore = Promise.all([before, copied.catch(() => undefined)]).then(() => undefined);
    copied.then(
      () => this.ended(),
      (error: unknown) => {
        this.failure ??= { error };
        this.ended();
      },
    );
  }

  private ended(): void {
    this.holding--;
    this.running--;
    const waiting = this.waitingForEnd;
    this.waitingForEnd = [];
    for (const resolve of waiting) resolve();
    this.pump();
  }

  private finish(): void {
    if (this.running > 0) return;
    if (this.failure) this.settle.reject(this.failure.error);
    else if (this.stopped || this.next >= this.job.blocks) this.settle.resolve(this.results);
  }
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
      cancelJob: ({ context }) => {
        context.job.cancel();
        context.stream?.stop();
      },
    },
  }).createMachine({
    id: 'restore',
    context: ({ input }) => ({ job: input.job, stream: null, slots: [], results: [], inflight: null }),
    initial: 'reading',
    states: {
      // The first window only; later windows are read while earlier ones are copied.
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
        entry: assign(({ context }) => {
          const stream = new RestoreStream(context.job, context.slots);
          return { stream, slots: [], inflight: stream.done };
        }),
        invoke: {
          src: 'io',
          input: ({ context }) => ({ run: () => context.inflight! }),
          onDone: [
            { guard: ({ event }) => (event.output as BlockResult[]).every((r) => r === 'restored'), target: 'done', actions: assign({ results: ({ event }) => [...(event.output as BlockResult[])] }) },
            { target: 'failed', actions: assign({ results: ({ event }) => [...(event.output as BlockResult[])] }) },
          ],
          onError: { target: 'failed', actions: assign({ results: ioError }) },
        },
        on: { CANCEL: { target: 'draining', actions: 'cancelJob' } },
      },
      draining: {
        invoke: {
          src: 'drain',
          input: ({ context }) => ({ inflight: context.inflight }),
          onDone: { target: 'cancelled', actions: assign({ results: ({ context }) => (context.stream ? [...context.stream.results] : context.results) }) },
        },
      },
      done: { type: 'final' },
      failed: { type: 'final' },
      cancelled: { type: 'final' },
    },
  });
