import { strict as assert } from 'node:assert';
import { once } from 'node:events';
import { createServer, type Server } from 'node:net';
import { join } from 'node:path';
import { ManagerClient, OPCODE } from '../../engine/runtime/index.js';
import type { RejectionChecks } from '../../engine/runtime/handshake/index.js';
import type { Logger } from '../../engine/runtime/log/index.js';
import type { RuntimeMetrics } from '../../engine/runtime/metrics/index.js';
import { serveConnection, type ConnectionContext } from '../../engine/runtime/server/connection.js';
import type { CacheService } from '../../engine/runtime/service/index.js';
import type { Session } from '../../engine/runtime/session/index.js';
import { NS, acceptedProfile, lookupBody, tempDir } from './support.js';

/**
 * A defect met while serving one request (an error that is not a refusal), thrown at once or
 * later, costs that connection only: the client gets OKV7110 for that request, the Manager logs
 * request-failed and closes the connection; another connection keeps being served. The service
 * is a stand-in whose lookup throws at once, whose save rejects later and whose echo path works.
 */
describe('runtime/server/connection: a defect serving one request', function () {
  // Without the defect handling the reply never comes: fail in seconds, not at the suite's timeout.
  this.timeout(10_000);
  const logged: Record<string, unknown>[] = [];
  let server: Server;
  let path: string;

  before(async () => {
    const logger = { debug: () => undefined, info: () => undefined, warn: () => undefined, error: (event: string, fields: Record<string, unknown>) => logged.push({ event, ...fields }) } as unknown as Logger;
    const checks: RejectionChecks = {
      evaluate: () => ({ engine: 'vllm', accepted: true, pin: null, rejections: [] }),
      profileProblem: () => undefined,
      describe: () => '',
    };
    const service = {
      cache: { blockBytes: 4096 },
      hasRoom: () => true,
      answered: () => false,
      lookup: () => {
        throw new TypeError('lookup defect');
      },
      save: () => new Promise((_, reject) => setTimeout(() => reject(new TypeError('save defect')), 5)),
    } as unknown as CacheService;
    const ctx: ConnectionContext = {
      service,
      checks,
      logger,
      metrics: { connectionsRefused: { inc: () => undefined } } as unknown as RuntimeMetrics,
      maxPayload: 64 * 1024,
      maxBlocks: 64,
      maxInFlight: 8,
      nextSession: (() => {
        let n = 1;
        return () => n++;
      })(),
      fdSocket: '/nonexistent',
      status: () => ({}),
      sessions: new Set<Session>(),
      handshakeMs: 10_000,
    };
    path = join(tempDir('defect'), 's.sock');
    server = createServer({ pauseOnConnect: true }, (socket) => void serveConnection(socket, ctx));
    server.listen(path);
    await once(server, 'listening');
  });
  after(() => server.close());

  const client = async () => {
    const c = await ManagerClient.connect(path);
    assert.equal((await c.hello(acceptedProfile(), { client: 'spec' })).opcode, OPCODE.welcome);
    return c;
  };

  for (const [when, ask, detail] of [
    ['at once (the binary lookup path)', (c: ManagerClient) => c.lookup(lookupBody(['a', 'b'])), 'TypeError: lookup defect'],
    ['later (a save whose promise rejects)', (c: ManagerClient) => c.request(OPCODE.save, { namespace: NS, hashes: ['a'], pages: [0] }), 'TypeError: save defect'],
  ] as const) {
    it(`${when}: that request gets OKV7110, the defect is logged and that connection closes; another connection is still served`, async () => {
      const other = await client();
      const c = await client();
      const before = logged.length;
      const reply = await ask(c);
      assert.equal(reply.opcode, OPCODE.error, JSON.stringify(reply.body));
      assert.equal(reply.body.code, 'OKV7110');
      assert.match(String(reply.body.message), new RegExp(detail));
      await c.whenClosed();
      const failure = logged.slice(before).find((l) => l['event'] === 'request-failed');
      assert.ok(failure, JSON.stringify(logged.slice(before)));
      assert.equal(failure['detail'], detail);
      const echoed = await other.request(OPCODE.echo, { still: 'served' });
      assert.equal(echoed.opcode, OPCODE.echoed);
      assert.deepEqual(echoed.body, { still: 'served' });
      await other.close();
    });
  }
});
