/**
 * A test-only Manager entry: `orbitkv serve` with one lifecycle broken on purpose (named by
 * $OKV_BREAK), so a spec can show the gate that qualifies that lifecycle fails. Each break
 * patches the running Manager's code the way a regression would change it; nothing here is
 * reachable from the product.
 */
import { existsSync, readdirSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { runCli } from '../../engine/cli/main.js';
import { RankAgreement } from '../../engine/runtime/lifecycles/rank-agreement.js';
import { PageFile } from '../../engine/runtime/pages/page-file.js';
import { CacheService } from '../../engine/runtime/service/cache-service.js';
import { WorkerTickets } from '../../engine/runtime/service/ticket-runner.js';
import { Session } from '../../engine/runtime/session/session.js';
import { SsdTier } from '../../engine/runtime/tiers/ssd/ssd-tier.js';

type Any = any; // eslint-disable-line @typescript-eslint/no-explicit-any

export const BREAKS: Record<string, () => void> = {
  /** A rank's lookup resolves on its own report (boundary 0) instead of waiting for the others: pending reported as miss. */
  'pending-as-miss': () => {
    const report = RankAgreement.prototype.report;
    RankAgreement.prototype.report = function (this: Any, request: string, rank: number, matched: number) {
      const g = this.groups.get(request);
      if (g && g.reports.size + 1 < g.worldSize) g.members.get(rank)?.agreed(0);
      return report.call(this, request, rank, matched);
    };
  },
  /** Each rank is told its own match: the ranks do not agree on one boundary. */
  'ranks-disagree': () => {
    RankAgreement.prototype.report = function (this: Any, request: string, rank: number, matched: number) {
      this.groups.get(request)?.members.get(rank)?.agreed(matched);
    };
  },
  /** The lookup deadline is ignored: a pending ticket never times out. */
  'no-timeout': () => {
    const lookup = CacheService.prototype.lookup;
    CacheService.prototype.lookup = function (this: Any, session: Any, req: Any, early?: Any) {
      return lookup.call(this, session, { ...req, deadlineMs: 2 ** 30 }, early);
    } as Any;
  },
  /** CANCEL is acknowledged but never reaches the ticket. */
  'cancel-ignored': () => {
    CacheService.prototype.cancel = function (this: Any, session: Any, id: number) {
      return this.owned(session, id).state;
    };
  },
  /** A ready result's lease never expires. */
  'no-expiry': () => {
    const lookup = CacheService.prototype.lookup;
    CacheService.prototype.lookup = function (this: Any, session: Any, req: Any, early?: Any) {
      // The lease every in-process ticket actor is made with.
      this.runner.leaseMs = 2 ** 30;
      return lookup.call(this, session, req, early);
    } as Any;
    // The lease the ticket worker's actors are made with (given to the worker as it starts).
    const start = (WorkerTickets.prototype as Any).start;
    (WorkerTickets.prototype as Any).start = function (this: Any) {
      this.leaseMs = 2 ** 30;
      return start.call(this);
    };
  },
  /** A closing session forgets its tickets instead of cancelling them: their leases stay. */
  'abort-keeps-leases': () => {
    const close = Session.prototype.close;
    Session.prototype.close = function (this: Any) {
      this.tickets.clear();
      return close.call(this);
    };
  },
  /** A closing session unmaps its pages before its I/O has drained: release before drain. */
  'release-before-drain': () => {
    const close = Session.prototype.close;
    Session.prototype.close = function (this: Any) {
      this.pages?.close();
      this.pages = { close: () => undefined, readPage: () => Promise.reject(new Error('closed')), writePage: () => Promise.resolve(), writePages: () => Promise.resolve(), setFlag: () => Promise.resolve(), covers: () => false, pages: 0 };
      return close.call(this);
    };
  },
  /** A dead engine's pages are never unmapped. */
  'pages-never-unmapped': () => {
    PageFile.prototype.close = function () {};
  },
  /** The completion flag is set before the bytes land (a forward can read a partial page). */
  'flag-before-bytes': () => {
    PageFile.prototype.writePages = function (this: Any, indices: readonly number[], from: readonly Buffer[]) {
      const pb = this.spec.pageBytes;
      indices.forEach((index, k) => {
        const copy = Buffer.from(from[k]!);
        for (let l = 0; l < this.spec.layers; l++) this.view[this.flagAt(l, index)] = 1;
        setTimeout(() => {
          for (let l = 0; l < this.spec.layers; l++) copy.copy(this.view, this.at(l, index), l * pb, (l + 1) * pb);
        }, 300);
      });
      return Promise.resolve();
    };
  },
  /** SSD reads skip the checksum: a torn entry is served. */
  'torn-served': () => {
    const read = SsdTier.prototype.read;
    SsdTier.prototype.read = async function (this: Any, slot: number, into: Buffer, _crc: number, length: number) {
      await read.call(this, slot, into, 0, length).catch(() => undefined);
      return true;
    };
  },
};

/** Recovery that starts cold: the SSD index is dropped at start (the durable index is not durable). */
function forgetIndex(argv: string[]): void {
  const dir = argv[argv.indexOf('--ssd') + 1];
  if (argv.includes('--ssd') && dir && existsSync(dir)) for (const f of readdirSync(dir)) if (f.startsWith('index')) rmSync(join(dir, f), { force: true });
}

const name = process.env['OKV_BREAK'] ?? '';
const argv = process.argv.slice(2);
if (name === 'forget-index') forgetIndex(argv);
else if (!Object.hasOwn(BREAKS, name)) throw new Error(`unknown OKV_BREAK '${name}'`);
else BREAKS[name]!();
process.exitCode = await runCli(argv);
