/**
 * The save lifecycle: pages → DRAM (staged) → SSD (persisted) → committed in the index.
 * Each step is an invoked promise over the real I/O; a block already stored is deduplicated.
 * Blocks move in windows, and the windows overlap: a window's blocks are written to SSD as
 * soon as they are staged (gathered per turn of the event loop, so writes keep the device
 * busy while the rest of the window is still copied in), and while one window is synced and
 * committed the next is staged and written (two windows in DRAM at most). One sync and one
 * index commit per window (group commit); a save is answered only once every window is
 * committed.
 */
import { assign, fromPromise, setup } from 'xstate';
import type { PersistOutcome, SaveOutcome, WriteBack } from '../catalog/index.js';

export interface SaveInput {
  keys: readonly string[];
  /** Blocks per window, so a save larger than DRAM streams through it. */
  window: number;
  stage: (key: string, index: number) => Promise<SaveOutcome>;
  /** Starts the SSD writes of staged blocks; settles (never rejects) once they have. */
  write: (keys: string[]) => Promise<WriteBack>;
  /** Syncs and commits write-backs (one sync, one index commit); never rejects. */
  commit: (writes: WriteBack[]) => Promise<Map<string, PersistOutcome>>;
}

export interface SaveContext extends SaveInput {
  /** Start of the window being committed (the one after it is being staged meanwhile). */
  cursor: number;
  staged: SaveOutcome[];
  persisted: (PersistOutcome | null)[];
  /** The write-backs of the window at `cursor`, started as its blocks were staged. */
  writes: Promise<WriteBack>[];
  error: string | null;
}

interface Staged {
  staged: SaveOutcome[];
  writes: Promise<WriteBack>[];
}

/**
 * Stages blocks [from, from + count) (indices into `input.keys`), starting the write-back of
 * those stored in each turn of the event loop together. If staging throws, the writes it
 * started are released (see `release`) and it rethrows.
 */
async function stageAndWrite(input: SaveInput, indices: readonly number[], writes: Promise<WriteBack>[] = []): Promise<Staged> {
  let gathered: string[] | null = null;
  const flush = (batch: string[]) => {
    if (gathered !== batch) return;
    gathered = null;
    writes.push(input.write(batch));
  };
  const stored = (key: string) => {
    if (!gathered) {
      const batch: string[] = [];
      gathered = batch;
      queueMicrotask(() => flush(batch));
    }
    gathered.push(key);
  };
  try {
    // The window's copies run together; a lookup waits (pending) on any block still copying.
    const staged = await Promise.all(indices.map((i) => input.stage(input.keys[i]!, i).then((o) => (o === 'stored' && stored(input.keys[i]!), o))));
    if (gathered) flush(gathered);
    return { staged, writes };
  } catch (error) {
    if (gathered) flush(gathered);
    release(input, writes);
    throw error;
  }
}

/**
 * Write-backs a failing save started still get committed (commit never rejects), so no pin,
 * slot or reservation stays taken; the save does not wait for them to answer its failure.
 */
const release = (input: SaveInput, writes: Promise<WriteBack>[]) => void Promise.all(writes).then((wbs) => input.commit(wbs));

const range = (from: number, to: number) => Array.from({ length: Math.max(0, to - from) }, (_, i) => from + i);
const reason = (error: unknown) => String((error as Error)?.message ?? error);

export const saveMachine = setup({
    types: { context: {} as SaveContext, input: {} as SaveInput },
    actors: {
      stageFirst: fromPromise(async ({ input }: { input: SaveContext }) => stageAndWrite(input, range(0, Math.min(input.keys.length, input.window)))),
      /** Commits the window at `cursor` while staging (and writing) the next; settles once both have. */
      commitAndStageNext: fromPromise(async ({ input }: { input: SaveContext }) => {
        const { cursor, window, keys } = input;
        const from = cursor + window;
        const committing = Promise.all(input.writes).then((wbs) => input.commit(wbs));
        const next = from < keys.length ? stageAndWrite(input, range(from, Math.min(keys.length, from + window))) : Promise.resolve<Staged>({ staged: [], writes: [] });
        const [persisted, nextStaged] = await Promise.allSettled([committing, next]);
        if (persisted.status === 'rejected') {
          if (nextStaged.status === 'fulfilled') release(input, nextStaged.value.writes);
          throw persisted.reason;
        }
        if (nextStaged.status === 'rejected') throw nextStaged.reason;
        // A block of the next window that found DRAM full while this window was still held for
        // its write-back tries again now that this window may leave DRAM: overlapping never
        // refuses a block that staging after the commit would have stored.
        const { staged, writes } = nextStaged.value;
        const retry = staged.flatMap((o, i) => (o === 'dram-full' ? [from + i] : []));
        if (retry.length > 0) {
          const again = await stageAndWrite(input, retry, writes);
          retry.forEach((index, j) => (staged[index - from] = again.staged[j]!));
        }
        return { persisted: persisted.value, staged, writes };
      }),
    },
  }).createMachine({
    id: 'save',
    context: ({ input }) => ({ ...input, cursor: 0, staged: [], persisted: [], writes: [], error: null }),
    initial: 'staging',
    states: {
      staging: {
        invoke: {
          src: 'stageFirst',
          input: ({ context }) => context,
          onDone: { target: 'persisting', actions: assign({ staged: ({ event }) => event.output.staged, writes: ({ event }) => event.output.writes }) },
          onError: { target: 'failed', actions: assign({ error: ({ event }) => reason(event.error) }) },
        },
      },
      persisting: {
        invoke: {
          src: 'commitAndStageNext',
          input: ({ context }) => context,
          onDone: {
            target: 'nextWindow',
            actions: assign(({ context, event }) => {
              const { cursor, window, keys } = context;
              const window_ = keys.slice(cursor, cursor + window).map((k, i) => (context.staged[cursor + i] === 'stored' ? (event.output.persisted.get(k) ?? null) : null));
              return { persisted: [...context.persisted, ...window_], staged: [...context.staged, ...event.output.staged], writes: event.output.writes, cursor: cursor + window };
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
