/**
 * The binary LOOKUP (protocol 3): the request an engine sends at every scheduler step, in a fixed
 * little-endian layout instead of JSON, and its reply as a fixed struct. Both ends build them
 * with a few integer writes and one copy per string; nothing is parsed as text.
 *
 * Request (LOOKUP_BINARY payload):
 *   0  u32 deadlineMs      4  u32 namespace.blockSize
 *   8  u16 rank           10  u16 worldSize
 *  12  u16 count          14  u16 model bytes
 *  16  u16 layout bytes   18  u16 request bytes
 *  20  u32 chain bytes
 *  24  model, layout, request (UTF-8), then the chain (exactly its bytes, the payload's end): the `count` block hashes,
 *      each 1-128 bytes of [0-9A-Za-z_:+/=-], joined by single 0x0A bytes (the same strings a
 *      JSON LOOKUP or SAVE carries, so a block saved through JSON is found through a binary
 *      lookup; joined, both ends write and read the chain as one string, not one per hash).
 *
 * Reply (LOOKUP_BINARY_RESULT payload, LOOKUP_REPLY_BYTES):
 *   0  u8 state (LOOKUP_STATES index)   1  u8 flags (1: boundary present, 2: grant present)
 *   2  u16 zero                          4  u32 ticket low, 8 u32 ticket high
 *  12  u32 boundary  16 u32 matched  20 u32 DRAM hits  24 u32 SSD hits
 *  28  16 bytes grant (the 32 hex digits of a JSON reply's grant, as bytes)
 */
import { rememberNamespaceId, type LookupRequest, type Namespace } from './messages.js';

export const LOOKUP_HEAD_BYTES = 24;
export const LOOKUP_REPLY_BYTES = 44;
/** Bytes each of model, layout and request may take (the JSON form's 256 characters, as bytes). */
export const MAX_NAME_BYTES = 256;
export const MAX_HASH_BYTES = 128;

/** The reply's state byte names one of these (the ticket states, in a fixed order). */
export const LOOKUP_STATES = ['pending', 'ready', 'miss', 'timedOut', 'cancelled', 'released', 'expired', 'consumed', 'restoring', 'idle'] as const;
export type LookupStateName = (typeof LOOKUP_STATES)[number];
const STATE_CODE = new Map<string, number>(LOOKUP_STATES.map((s, i) => [s, i]));

const SEPARATOR = '\n';
const SEPARATOR_BYTE = 0x0a;

/** Bytes a block hash may hold ([0-9A-Za-z_:+/=-], as the JSON form's check). */
const HASH_BYTE = new Uint8Array(256);
for (const c of '0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz_:+/=-') HASH_BYTE[c.charCodeAt(0)] = 1;

export interface LookupReplyFields {
  ticket: number;
  state: string;
  boundary: number | null;
  matched: number;
  tiers: { dram: number; ssd: number };
  grant?: string;
}

/** A LookupRequest as a binary LOOKUP payload (clients; the specs). Throws RangeError past a bound. */
export function encodeLookupRequest(req: LookupRequest): Buffer {
  const model = Buffer.from(req.namespace.model, 'utf8');
  const layout = Buffer.from(req.namespace.layout, 'utf8');
  const request = Buffer.from(req.request, 'utf8');
  for (const [name, b] of [['model', model], ['layout', layout], ['request', request]] as const) {
    if (b.length === 0 || b.length > MAX_NAME_BYTES) throw new RangeError(`${name} must be 1..${MAX_NAME_BYTES} bytes, got ${b.length}`);
  }
  if (req.hashes.length > 0xffff) throw new RangeError(`at most 65535 hashes, got ${req.hashes.length}`);
  for (const h of req.hashes) {
    if (h.length === 0 || h.length > MAX_HASH_BYTES || h.includes(SEPARATOR)) throw new RangeError(`a block hash is 1..${MAX_HASH_BYTES} characters and no newline, got ${JSON.stringify(h.slice(0, 140))}`);
  }
  const chain = req.hashes.join(SEPARATOR);
  const out = Buffer.allocUnsafe(LOOKUP_HEAD_BYTES + model.length + layout.length + request.length + chain.length);
  out.writeUInt32LE(req.deadlineMs, 0);
  out.writeUInt32LE(req.namespace.blockSize, 4);
  out.writeUInt16LE(req.rank, 8);
  out.writeUInt16LE(req.worldSize, 10);
  out.writeUInt16LE(req.hashes.length, 12);
  out.writeUInt16LE(model.length, 14);
  out.writeUInt16LE(layout.length, 16);
  out.writeUInt16LE(request.length, 18);
  out.writeUInt32LE(chain.length, 20);
  let at = LOOKUP_HEAD_BYTES;
  at += model.copy(out, at);
  at += layout.copy(out, at);
  at += request.copy(out, at);
  // latin1: one byte per character; a character outside the hash alphabet is refused by the Manager.
  out.write(chain, at, chain.length, 'latin1');
  return out;
}

/** A chain whose hashes are all in the alphabet, joined by single newlines (lengths are checked after the split). */
const CHAIN = /^[0-9A-Za-z_:+/=-]+(?:\n[0-9A-Za-z_:+/=-]+)*$/;

/**
 * Whether `a` equals `b` from `from` on, over `a`'s length (the caller checked `b` holds that many).
 * A loop in JavaScript rather than Buffer.compare for a namespace's few bytes: at the rates an
 * engine asks, each lookup runs cold, and a call into Node's C++ costs more there than the bytes
 * it compares (a chain's kilobyte is still compared by Buffer.compare: in a loop it cost a warm
 * lookup a microsecond).
 */
function sameBytes(a: Uint8Array, b: Uint8Array, from: number): boolean {
  const n = a.length;
  for (let i = 0; i < n; i++) if (a[i] !== b[from + i]) return false;
  return true;
}

/**
 * The namespace of a connection's last binary LOOKUP, kept with its bytes: an engine asks about
 * one namespace at every scheduler step, so a request whose model, layout and block size are
 * the bytes of the last one gets the same Namespace object (no decode; the service's keys of it
 * are remembered by that object). One per connection, holding one namespace.
 */
export class NamespaceMemo {
  private bytes: Buffer | null = null;
  private modelBytes = 0;
  private blockSize = 0;
  private namespace: Namespace | null = null;

  /** The namespace of `p`'s names at [at, at + modelBytes + layoutBytes), decoded only when they changed. */
  take(p: Buffer, at: number, modelBytes: number, layoutBytes: number, blockSize: number): Namespace {
    const end = at + modelBytes + layoutBytes;
    const last = this.bytes;
    if (last !== null && this.blockSize === blockSize && last.length === end - at && this.modelBytes === modelBytes && sameBytes(last, p, at)) return this.namespace!;
    const namespace = { model: p.toString('utf8', at, at + modelBytes), layout: p.toString('utf8', at + modelBytes, end), blockSize };
    Object.freeze(namespace);
    rememberNamespaceId(namespace);
    this.bytes = Buffer.from(p.subarray(at, end));
    this.modelBytes = modelBytes;
    this.blockSize = blockSize;
    this.namespace = namespace;
    return namespace;
  }
}

/** The longest chain (bytes) a ChainMemo keeps; a longer one is decoded every time. */
export const CHAIN_MEMO_BYTES = 16 * 1024;

/**
 * The chain of a connection's last binary LOOKUP, kept with its bytes: an engine asks about a
 * request waiting to be scheduled at every scheduler step, so its chain comes again byte for
 * byte. A chain of the same bytes and count gets the same frozen array of the same strings: no
 * latin1 decode, no split, no new strings (whose hash codes V8 then computes again in the
 * service's key memo). One per connection, holding one chain of at most CHAIN_MEMO_BYTES.
 */
export class ChainMemo {
  private bytes: Buffer | null = null;
  private hashes: readonly string[] = [];

  /** The hashes of the chain at `p[from..]` if it is the remembered one, else null. */
  match(p: Buffer, from: number, count: number): readonly string[] | null {
    const last = this.bytes;
    if (last === null || this.hashes.length !== count || last.length !== p.length - from || last.compare(p, from) !== 0) return null;
    return this.hashes;
  }

  /** Remembers the chain at `p[from..]` (a copy of its bytes) as `hashes`, which it freezes. */
  remember(p: Buffer, from: number, hashes: string[]): readonly string[] {
    const frozen = Object.freeze(hashes);
    if (p.length - from > CHAIN_MEMO_BYTES) return frozen;
    this.bytes = Buffer.from(p.subarray(from));
    this.hashes = frozen;
    return frozen;
  }
}

/**
 * A binary LOOKUP payload as a LookupRequest, or the problem with it (the connection is then
 * closed: a binary request that does not parse leaves no trustworthy framing of its fields).
 * With `memo`, a namespace equal to the last one's is not decoded again (see NamespaceMemo), and
 * with `chains` nor is a chain equal to the last one's (see ChainMemo).
 */
export function decodeLookupRequest(p: Buffer, maxBlocks: number, memo?: NamespaceMemo, chains?: ChainMemo): LookupRequest | { problem: string } {
  if (p.length < LOOKUP_HEAD_BYTES) return { problem: `truncated: ${p.length} bytes, the fixed part is ${LOOKUP_HEAD_BYTES}` };
  const deadlineMs = p.readUInt32LE(0);
  const blockSize = p.readUInt32LE(4);
  const rank = p.readUInt16LE(8);
  const worldSize = p.readUInt16LE(10);
  const count = p.readUInt16LE(12);
  const modelBytes = p.readUInt16LE(14);
  const layoutBytes = p.readUInt16LE(16);
  const requestBytes = p.readUInt16LE(18);
  const chainBytes = p.readUInt32LE(20);
  if (deadlineMs > 600_000) return { problem: `deadlineMs ${deadlineMs} is not in 0..600000` };
  if (blockSize === 0) return { problem: 'namespace blockSize must be positive' };
  if (worldSize === 0 || worldSize > 4096) return { problem: `worldSize ${worldSize} is not in 1..4096` };
  if (rank >= worldSize) return { problem: `rank ${rank} is not below worldSize ${worldSize}` };
  if (count > maxBlocks) return { problem: `oversize: ${count} hashes, at most ${maxBlocks}` };
  for (const [name, n] of [['model', modelBytes], ['layout', layoutBytes], ['request', requestBytes]] as const) {
    if (n === 0 || n > MAX_NAME_BYTES) return { problem: `${name} is ${n} bytes, must be 1..${MAX_NAME_BYTES}` };
  }
  const at = LOOKUP_HEAD_BYTES;
  const names = at + modelBytes + layoutBytes;
  const strings = names + requestBytes;
  if (p.length < strings + chainBytes) return { problem: `truncated: ${p.length} bytes, the names and chain end at ${strings + chainBytes}` };
  if (p.length > strings + chainBytes) return { problem: `${p.length - strings - chainBytes} bytes after the chain` };
  const namespace = memo ? memo.take(p, at, modelBytes, layoutBytes, blockSize) : { model: p.toString('utf8', at, at + modelBytes), layout: p.toString('utf8', at + modelBytes, names), blockSize };
  const request = p.toString('utf8', names, strings);
  if (count === 0) return chainBytes === 0 ? { namespace, hashes: [], request, rank, worldSize, deadlineMs } : { problem: `a chain of ${chainBytes} bytes for no hashes` };
  const known = chains?.match(p, strings, count);
  if (known) return { namespace, hashes: known, request, rank, worldSize, deadlineMs };
  // The alphabet and the separators in one native pass (a byte outside ASCII is a character the
  // class refuses); the count and each hash's length after the split. The byte loop runs only
  // to name what is wrong with a chain that failed.
  const chain = p.toString('latin1', strings);
  if (!CHAIN.test(chain)) return chainProblem(p, strings) ?? { problem: 'the chain does not parse' };
  const hashes = chain.split(SEPARATOR);
  if (hashes.length !== count) return { problem: `the chain holds ${hashes.length} hashes, count says ${count}` };
  for (let i = 0; i < hashes.length; i++) {
    if (hashes[i]!.length > MAX_HASH_BYTES) return { problem: `hash ${i} is ${hashes[i]!.length} bytes, must be 1..${MAX_HASH_BYTES}` };
  }
  return { namespace, hashes: chains ? chains.remember(p, strings, hashes) : hashes, request, rank, worldSize, deadlineMs };
}

/** What is wrong with the chain at `p[from..]`, byte by byte (only for a chain the pattern refused). */
function chainProblem(p: Buffer, from: number): { problem: string } | null {
  let i = 0;
  let start = from;
  for (let j = from; j <= p.length; j++) {
    const b = j < p.length ? p[j]! : SEPARATOR_BYTE;
    if (b === SEPARATOR_BYTE) {
      const n = j - start;
      if (n === 0 || n > MAX_HASH_BYTES) return { problem: `hash ${i} is ${n} bytes, must be 1..${MAX_HASH_BYTES}` };
      i++;
      start = j + 1;
    } else if (HASH_BYTE[b] === 0) return { problem: `hash ${i} has byte 0x${b.toString(16)} outside [0-9A-Za-z_:+/=-]` };
  }
  return null;
}

/** Where the reply's 16 grant bytes start. */
export const LOOKUP_REPLY_GRANT_AT = 28;

/**
 * The reply struct written into `out` at `at` (the server writes it straight after a frame header).
 * `grant`: its 32 hex digits, or true when the caller has written its bytes at
 * `at + LOOKUP_REPLY_GRANT_AT` already (the server, from the grant's key), or none.
 */
export function writeLookupReply(out: Buffer, at: number, r: LookupReplyFields, grant: string | true | undefined = r.grant): void {
  const state = STATE_CODE.get(r.state);
  if (state === undefined) throw new Error(`no binary code for ticket state ${r.state}`);
  out[at] = state;
  out[at + 1] = (r.boundary !== null ? 1 : 0) | (grant !== undefined ? 2 : 0);
  out.writeUInt16LE(0, at + 2);
  out.writeUInt32LE(r.ticket % 0x1_0000_0000, at + 4);
  out.writeUInt32LE(Math.floor(r.ticket / 0x1_0000_0000), at + 8);
  out.writeUInt32LE(r.boundary ?? 0, at + 12);
  out.writeUInt32LE(r.matched, at + 16);
  out.writeUInt32LE(r.tiers.dram, at + 20);
  out.writeUInt32LE(r.tiers.ssd, at + 24);
  if (typeof grant === 'string') {
    if (out.write(grant, at + LOOKUP_REPLY_GRANT_AT, 16, 'hex') !== 16) throw new Error('a grant is 32 hex digits');
  } else if (grant === undefined) for (let i = at + LOOKUP_REPLY_GRANT_AT; i < at + LOOKUP_REPLY_BYTES; i++) out[i] = 0;
}

/** A LOOKUP_BINARY_RESULT payload as the fields a JSON LOOKUP_RESULT carries. */
export function decodeLookupReply(p: Buffer): LookupReplyFields | { problem: string } {
  if (p.length !== LOOKUP_REPLY_BYTES) return { problem: `a binary lookup reply is ${LOOKUP_REPLY_BYTES} bytes, got ${p.length}` };
  const state = LOOKUP_STATES[p[0]!];
  if (state === undefined) return { problem: `state code ${p[0]} is unknown` };
  const flags = p[1]!;
  return {
    ticket: p.readUInt32LE(8) * 0x1_0000_0000 + p.readUInt32LE(4),
    state,
    boundary: flags & 1 ? p.readUInt32LE(12) : null,
    matched: p.readUInt32LE(16),
    tiers: { dram: p.readUInt32LE(20), ssd: p.readUInt32LE(24) },
    ...(flags & 2 ? { grant: p.toString('hex', LOOKUP_REPLY_GRANT_AT, LOOKUP_REPLY_BYTES) } : {}),
  };
}
