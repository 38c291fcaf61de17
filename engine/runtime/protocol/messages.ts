/**
 * Request payloads (UTF-8 JSON, bounded by the frame limit) and their shape checks. A payload
 * that does not parse or has the wrong shape is answered with an ERROR reply naming the field;
 * the connection stays open (the framing was intact).
 */

import { jsonNestingDepth } from '../../json/index.js';

/** The cache namespace: blocks of incompatible caches never mix. */
export interface Namespace {
  model: string;
  layout: string;
  blockSize: number;
}

/** Ids of the Namespace objects a NamespaceMemo hands out (each is reused for as long as its connection's engine asks about it). */
const rememberedIds = new WeakMap<Namespace, string>();

const idOf = (ns: Namespace): string => JSON.stringify([ns.model, ns.layout, ns.blockSize]);

/** The id of a namespace: its model, layout and block size (one string; cache keys are derived from it). */
export const namespaceId = (ns: Namespace): string => rememberedIds.get(ns) ?? idOf(ns);

/** Computes `ns`'s id once, for an object that will be handed out again and again. */
export const rememberNamespaceId = (ns: Namespace): void => void rememberedIds.set(ns, idOf(ns));

export interface HelloRequest {
  protocol: number;
  profile: unknown;
  /** A name for logs and `manager status` (the engine's instance id). */
  client?: string;
}

export interface LookupRequest {
  namespace: Namespace;
  /** The request's chain of block hashes (hex or decimal strings, as the engine computes them); never changed once decoded (a connection's chain memo hands the same array out again). */
  hashes: readonly string[];
  /** The engine's request id: ranks of one request agree on one boundary. */
  request: string;
  rank: number;
  worldSize: number;
  /** How long the ticket may stay pending (ms). */
  deadlineMs: number;
}

export interface SaveRequest {
  namespace: Namespace;
  hashes: string[];
  /** Page index (in the registered pages) holding each block. */
  pages: number[];
  request?: string;
}

export interface RestoreRequest {
  /** A ready ticket whose leases the restore consumes. */
  ticket: number;
  /** Destination page of each block in [0, boundary). */
  pages: number[];
  /**
   * The grant from the ticket's LOOKUP_RESULT, when another session (another process of the
   * engine: vLLM's worker restoring its scheduler's lookup) opened the ticket.
   */
  grant?: string;
}

export interface TicketRequest {
  ticket: number;
}

export interface RegisterPagesRequest {
  /**
   * Bytes of one page of one layer. The pages are a sealed memfd the engine deposited on the fd
   * socket beforehand (see pages/page-file.ts for the layout); nothing names a path.
   */
  pageBytes: number;
  pages: number;
  /** Layers a block spans: layers x pageBytes is the Manager's block size; restores land per layer. */
  layers: number;
}

export interface RequestsRequest {
  request?: string;
  limit?: number;
}

type Check<T> = (value: unknown) => T | string;

const isObject = (v: unknown): v is Record<string, unknown> => v !== null && typeof v === 'object' && !Array.isArray(v);
const isCount = (v: unknown, max = Number.MAX_SAFE_INTEGER): v is number => Number.isSafeInteger(v) && (v as number) >= 0 && (v as number) <= max;
const HASH = /^[0-9A-Za-z_:+/=-]{1,128}$/;

function namespace(v: unknown): Namespace | string {
  if (!isObject(v)) return '"namespace" must be an object {model, layout, blockSize}';
  if (typeof v.model !== 'string' || v.model.length === 0 || v.model.length > 256) return '"namespace.model" must be a non-empty string (at most 256 characters)';
  if (typeof v.layout !== 'string' || v.layout.length === 0 || v.layout.length > 256) return '"namespace.layout" must be a non-empty string (at most 256 characters)';
  if (!isCount(v.blockSize) || v.blockSize === 0) return '"namespace.blockSize" must be a positive integer (tokens per block)';
  return { model: v.model, layout: v.layout, blockSize: v.blockSize };
}

function hashes(v: unknown, max: number): string[] | string {
  if (!Array.isArray(v) || v.length > max) return `"hashes" must be an array of at most ${max} block hashes`;
  for (const [i, h] of v.entries()) if (typeof h !== 'string' || !HASH.test(h)) return `"hashes[${i}]" must be a block hash string (1-128 characters of [0-9A-Za-z_:+/=-])`;
  return v as string[];
}

function pageList(v: unknown, name: string, length: number): number[] | string {
  if (!Array.isArray(v) || v.length !== length || !v.every((p) => isCount(p, 0xffff_ffff))) return `"${name}" must be an array of ${length} page indices`;
  return v as number[];
}

/** Shape checks per request kind; `maxBlocks` bounds every chain. */
export function checks(maxBlocks: number) {
  const lookup: Check<LookupRequest> = (v) => {
    if (!isObject(v)) return 'the payload must be a JSON object';
    const ns = namespace(v.namespace);
    if (typeof ns === 'string') return ns;
    const hs = hashes(v.hashes, maxBlocks);
    if (typeof hs === 'string') return hs;
    if (typeof v.request !== 'string' || v.request.length === 0 || v.request.length > 256) return '"request" must be a non-empty string (at most 256 characters)';
    if (!isCount(v.worldSize, 4096) || v.worldSize === 0) return '"worldSize" must be an integer in 1..4096';
    if (!isCount(v.rank) || v.rank >= v.worldSize) return '"rank" must be an integer below worldSize';
    if (!isCount(v.deadlineMs, 600_000)) return '"deadlineMs" must be an integer in 0..600000';
    return { namespace: ns, hashes: hs, request: v.request, rank: v.rank, worldSize: v.worldSize, deadlineMs: v.deadlineMs };
  };
  const save: Check<SaveRequest> = (v) => {
    if (!isObject(v)) return 'the payload must be a JSON object';
    const ns = namespace(v.namespace);
    if (typeof ns === 'string') return ns;
    const hs = hashes(v.hashes, maxBlocks);
    if (typeof hs === 'string') return hs;
    const pages = pageList(v.pages, 'pages', hs.length);
    if (typeof pages === 'string') return pages;
    if (v.request !== undefined && (typeof v.request !== 'string' || v.request.length > 256)) return '"request" must be a string (at most 256 characters)';
    return { namespace: ns, hashes: hs, pages, ...(typeof v.request === 'string' ? { request: v.request } : {}) };
  };
  const restore: Check<RestoreRequest> = (v) => {
    if (!isObject(v) || !isCount(v.ticket)) return '"ticket" must be a ticket id';
    if (!Array.isArray(v.pages) || v.pages.length > maxBlocks || !v.pages.every((p) => isCount(p, 0xffff_ffff))) return `"pages" must be an array of at most ${maxBlocks} page indices`;
    if (v.grant !== undefined && (typeof v.grant !== 'string' || !/^[0-9a-f]{32}$/.test(v.grant))) return '"grant" must be the 32 hex digits a LOOKUP_RESULT gave';
    return { ticket: v.ticket, pages: v.pages as number[], ...(typeof v.grant === 'string' ? { grant: v.grant } : {}) };
  };
  const ticket: Check<TicketRequest> = (v) => (isObject(v) && isCount(v.ticket) ? { ticket: v.ticket } : '"ticket" must be a ticket id');
  const registerPages: Check<RegisterPagesRequest> = (v) => {
    if (!isObject(v)) return 'the payload must be a JSON object';
    if (v.path !== undefined || v.flagsOffset !== undefined) return 'pages are a sealed memfd deposited on the fd socket; "path" and "flagsOffset" are not accepted';
    if (!isCount(v.pageBytes, 1 << 30) || v.pageBytes === 0) return '"pageBytes" must be a positive integer (at most 1 GiB)';
    if (!isCount(v.pages, 1 << 24) || v.pages === 0) return '"pages" must be a positive integer (at most 16777216)';
    if (!isCount(v.layers, 4096) || v.layers === 0) return '"layers" must be an integer in 1..4096';
    if (v.layers * v.pages * (v.pageBytes + 1) > 2 ** 40) return 'the registration is larger than 1 TiB';
    return { pageBytes: v.pageBytes, pages: v.pages, layers: v.layers };
  };
  const requests: Check<RequestsRequest> = (v) => {
    if (!isObject(v)) return 'the payload must be a JSON object';
    if (v.request !== undefined && typeof v.request !== 'string') return '"request" must be a string';
    if (v.limit !== undefined && !isCount(v.limit, 100_000)) return '"limit" must be an integer';
    return { ...(typeof v.request === 'string' ? { request: v.request } : {}), ...(typeof v.limit === 'number' ? { limit: v.limit } : {}) };
  };
  const hello: Check<HelloRequest> = (v) => {
    if (!isObject(v) || !Number.isSafeInteger(v.protocol)) return '"protocol" must be the client\'s protocol version';
    if (v.client !== undefined && (typeof v.client !== 'string' || v.client.length > 256)) return '"client" must be a string';
    return { protocol: v.protocol as number, profile: v.profile, ...(typeof v.client === 'string' ? { client: v.client } : {}) };
  };
  return { lookup, save, restore, ticket, registerPages, requests, hello };
}

/** Deepest array/object nesting a payload may have (no request needs more than a few levels). */
export const MAX_NESTING = 64;

/** The JSON in a payload, or why it is not JSON (or nests past MAX_NESTING). */
export function parsePayload(payload: Buffer): { value: unknown } | { problem: string } {
  if (payload.length === 0) return { value: {} };
  const text = payload.toString('utf8');
  if (jsonNestingDepth(text, MAX_NESTING) > MAX_NESTING) return { problem: `the payload nests deeper than ${MAX_NESTING} levels` };
  try {
    return { value: JSON.parse(text) as unknown };
  } catch {
    return { problem: 'the payload is not UTF-8 JSON' };
  }
}

export const jsonPayload = (value: unknown): Buffer => Buffer.from(JSON.stringify(value), 'utf8');
