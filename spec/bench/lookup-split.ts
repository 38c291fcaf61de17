/**
 * `npx tsx spec/bench/lookup-split.ts [worker|main] [warm|cold]`: where a binary lookup's time goes
 * in the Manager before and after its reply, in this process (no socket): decoding the request
 * (with a connection's namespace and chain memos), the service up to the answer, the reply struct
 * with its grant, the ticket's filing after the reply, and the binary RELEASE. `cold` writes 64
 * MiB before each lookup (the caches and TLB then hold none of the lookup's code or data, an upper
 * bound on what an idle millisecond does on a host); `warm` runs them back to back. Prints each
 * part's p50 and mean in µs and the p50 and p90 of the three parts before the reply together.
 * Run it from another checkout (with ORBITKV_NATIVE_ADDON set) to compare builds: the reply is
 * written through TicketTable.writeGrant where the tree has it, else from the hex grant.
 * Measured with it: spec/bench/results/runtime-lookup-grant-bytes-h100-host.txt.
 */
import { createHash } from 'node:crypto';
import { BlockCache, namespaceId } from '../../engine/runtime/catalog/index.js';
import type { Logger } from '../../engine/runtime/log/index.js';
import { ChainMemo, HEADER_BYTES, LOOKUP_REPLY_BYTES, LOOKUP_REPLY_GRANT_AT, NamespaceMemo, decodeLookupRequest, encodeLookupRequest, writeFrameHeader, writeLookupReply, type LookupRequest } from '../../engine/runtime/protocol/index.js';
import { CacheService, type LookupReply } from '../../engine/runtime/service/index.js';
import { Session } from '../../engine/runtime/session/index.js';
import { DramArena } from '../../engine/runtime/tiers/index.js';

const where = process.argv[2] ?? 'worker';
const mode = process.argv[3] ?? 'warm';
if ((where !== 'worker' && where !== 'main') || (mode !== 'warm' && mode !== 'cold')) throw new Error('usage: lookup-split.ts [worker|main] [warm|cold]');
const cold = mode === 'cold';

const quiet = { debug: () => undefined, info: () => undefined, warn: () => undefined, error: () => undefined } as unknown as Logger;
const NS = { model: 'm', layout: 'l', blockSize: 16 };
// 16 block hashes as vLLM's connector sends them, and request ids as its OpenAI server makes them.
const chain = Array.from({ length: 16 }, (_, i) => createHash('sha256').update(`block ${i}`).digest('hex'));
const cache = new BlockCache(new DramArena(4096, 64), null);
for (const h of chain) await cache.stage(BlockCache.key(namespaceId(NS), h), async () => undefined);
const service = new CacheService(cache, { leaseMs: 60_000, maxTickets: 65_536, records: 4096, ticketActors: where }, null, quiet);
await service.ready;
const session = new Session(1, 'split', { engine: 'vllm', version: 'x' });
const namespaces = new NamespaceMemo();
const chains = new ChainMemo();
const payloads = Array.from({ length: 1000 }, (_, i) => encodeLookupRequest({ namespace: NS, hashes: chain, request: `chatcmpl-${createHash('md5').update(String(i)).digest('hex')}`, rank: 0, worldSize: 1, deadlineMs: 1000 }));
const thrash = new Float64Array(8 << 20);
const tickets = session.tickets as unknown as { writeGrant?: (id: number, out: Uint8Array, at: number, ahead: boolean) => boolean; grantAhead(id: number): string };

const parts = { decode: [] as number[], answer: [] as number[], reply: [] as number[], filing: [] as number[], release: [] as number[] };
const n = cold ? 3000 : 20_000;
for (let i = 0; i < n; i++) {
  if (cold) for (let j = 0; j < thrash.length; j += 8) thrash[j]! += 1;
  const t0 = process.hrtime.bigint();
  const req = decodeLookupRequest(payloads[i % payloads.length]!, 1024, namespaces, chains) as LookupRequest;
  const t1 = process.hrtime.bigint();
  let t2 = t1;
  let t3 = t1;
  let ticket = 0;
  const answered = service.lookup(session, req, (r: LookupReply) => {
    t2 = process.hrtime.bigint();
    const out = Buffer.allocUnsafe(HEADER_BYTES + LOOKUP_REPLY_BYTES);
    writeFrameHeader(out, 0x21, i + 1, LOOKUP_REPLY_BYTES);
    if (tickets.writeGrant) writeLookupReply(out, HEADER_BYTES, r, (r.state === 'ready' && tickets.writeGrant(r.ticket, out, HEADER_BYTES + LOOKUP_REPLY_GRANT_AT, true)) || undefined);
    else writeLookupReply(out, HEADER_BYTES, r, r.state === 'ready' ? tickets.grantAhead(r.ticket) : undefined);
    ticket = r.ticket;
    t3 = process.hrtime.bigint();
  });
  if (answered !== null) throw new Error('the lookup was not answered early (is the chain stored?)');
  const t4 = process.hrtime.bigint();
  service.release(session, ticket, false);
  const t5 = process.hrtime.bigint();
  if (i >= n / 10) {
    parts.decode.push(Number(t1 - t0));
    parts.answer.push(Number(t2 - t1));
    parts.reply.push(Number(t3 - t2));
    parts.filing.push(Number(t4 - t3));
    parts.release.push(Number(t5 - t4));
  }
  // The worker's reports are taken in between lookups, as the Manager's loop does.
  if (i % 16 === 0) await new Promise((r) => setImmediate(r));
}
const q = (xs: number[], f: number) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length * f)]! / 1000;
const mean = (xs: number[]) => xs.reduce((a, b) => a + b, 0) / xs.length / 1000;
const before = parts.decode.map((d, i) => d + parts.answer[i]! + parts.reply[i]!);
console.log(`${where} ${mode}: before the reply p50 ${q(before, 0.5).toFixed(2)} µs, p90 ${q(before, 0.9).toFixed(2)}`);
for (const [name, xs] of Object.entries(parts)) console.log(`  ${name.padEnd(8)} p50 ${q(xs, 0.5).toFixed(2)} µs, mean ${mean(xs).toFixed(2)}`);
await session.close();
await service.close();
