/**
 * Removal-gate tracking: the evidence ledger, the contract lifecycles (xstate machines), their
 * fold, the board every command renders and the cell matrix behind each state.
 *
 * Decisions worth knowing before changing anything here:
 * - Ledger: one file `<registry>/evidence/ledger.jsonl`; a line is the canonical JSON of the
 *   record (sorted keys) with `hash` appended last, `hash` = sha256 of that canonical body,
 *   `prev` = the previous record's `hash`. `ledger.head` anchors the last seq and hash, so
 *   records cut from the end are detected (it may trail by appends killed before moving it).
 *   Appends hold an O_EXCL lock file whose mtime is a lease (stale: lease ran out, garbage past a
 *   grace, or a dead pid of this pid namespace), stamp the time under the lock, write one line,
 *   fsync, move the head. Records past the unsigned history are signed (SSHSIG, ed25519) by keys
 *   listed in `evidence/allowed_signers`; every scan checks them (`ledger/trust.ts`).
 * - Lifecycles: one flat `setup()` machine per kind (hook, restriction = gap or rejection,
 *   gate, upstream). The fold delivers machine events the fold derived from records with the
 *   facts of that moment (current pins, who is an author); guards are pure over context and
 *   event. A hook that its contract declares removed starts removed; everything else starts
 *   from the ledger's first record.
 * - Independence: a key (or, unsigned, an actor name) becomes an author by recording pins,
 *   consumption, removals or support expansion; evidence signed by any other key is independent.
 * - Admission (`ledgerAdmission`) folds the records the locked scan verified, from the start:
 *   never a cached state.
 * - Profiles: a result counts while every engine in its profile is at its current pin; hook
 *   removal also needs equal before/after hashes in the ledger and the consuming adapter's hash.
 *   Hashes kept outside the ledger (the seed's transcribed passes) pass a gate, never a removal.
 * - Staleness is computed on the board (calendar days since the last recheck covering the
 *   contract, against `--at` or now), not stored as a state.
 * - The ledger is read in 1 MiB chunks through one buffer, each line hashed as bytes and parsed
 *   on its own, and streamed into the fold (`scanLedgerFile` → `LedgerFolder`): no command holds
 *   the ledger whole to show the board. A cold fold of 8 MiB or more checks the hashes on a worker
 *   thread meanwhile (`hash-check.ts`); a bad line found there makes the fold start over from an
 *   inline scan, which names the line.
 * - The fold runs a transition table compiled from each machine definition (specs prove it
 *   equals xstate `transition()`), in batches of records, two passes each: events queued per
 *   contract, then each contract's queue folded in one loop.
 * - The snapshot cache (`.orbitkv-cache/`, or `$ORBITKV_CACHE_DIR`) is keyed by the machine
 *   definitions' hash, the lifecycle code's hash, the registry's content and the trusted signers,
 *   sealed by an HMAC under a key of the cache folder, and resumed only when the ledger bytes
 *   before its position re-hash to the digest it was made from.
 *   It holds the fold and the board's clock-free row of each contract; records appended since are
 *   folded and only the rows of contracts they moved (and of those reading them) are rebuilt.
 */
export * from './ledger/index.js';
export * from './machines/index.js';
export * from './fold/index.js';
export * from './matrix/index.js';
export * from './board/index.js';
export * from './snapshot/index.js';
export { type LedgerSession, openSession, parseAt } from './session.js';
