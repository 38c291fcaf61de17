import assert from 'node:assert/strict';
import { readFileSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import { loadRegistry } from '../../engine/registry/index.js';
import { decideHandshake, loadRejectionChecks } from '../../engine/runtime/handshake/index.js';
import { ManagerClient, OPCODE, PROTOCOL_VERSION, encodeFrame } from '../../engine/runtime/index.js';
import { REPO, acceptedProfile, startManager, type ManagerProcess } from './support.js';

interface VectorCase {
  name: string;
  profile: unknown;
  expected: { accepted: boolean; rejections: string[] };
}

const VECTORS = join(REPO, 'spec', 'vectors');

describe('runtime/handshake: the registry decides, with the shared vectors\' verdicts', function () {
  this.timeout(60_000);

  for (const [title, registryDir, files] of [
    ['embedded registry', join(REPO, 'contracts'), readdirSync(join(VECTORS, 'rejections')).filter((f) => f.endsWith('.json')).map((f) => join(VECTORS, 'rejections', f))],
    ['operator registry (a second product)', join(VECTORS, 'operators', 'registry'), [join(VECTORS, 'operators', 'cases.json')]],
  ] as const) {
    it(`${title}: every vector is accepted or refused as the vectors say, naming the same rejections`, async () => {
      const checks = await loadRejectionChecks(loadRegistry(registryDir).registry);
      let n = 0;
      for (const file of files) {
        for (const c of (JSON.parse(readFileSync(file, 'utf8')) as { cases: VectorCase[] }).cases) {
          const outcome = decideHandshake({ protocol: PROTOCOL_VERSION, profile: c.profile }, PROTOCOL_VERSION, PROTOCOL_VERSION, checks);
          assert.equal(outcome.accepted, c.expected.accepted, `${file}#${c.name}`);
          if (!outcome.accepted) {
            assert.equal(outcome.reason, 'rejected-profile');
            if (outcome.reason === 'rejected-profile') assert.deepEqual(outcome.verdict.rejections.map((r) => r.id), c.expected.rejections, `${file}#${c.name}`);
          }
          n++;
        }
      }
      assert.ok(n > 0);
    });
  }

  describe('over the socket', () => {
    let m: ManagerProcess;
    before(async () => {
      m = await startManager(['--dram', '256k', '--block-size', '64k']);
    });
    after(async () => {
      if (m.child.exitCode === null) await m.stop();
    });

    it('a rejected profile is refused with its rejection ids and contract messages, then closed', async () => {
      const file = join(VECTORS, 'rejections', 'vllm.v2-model-runner.json');
      const rejected = (JSON.parse(readFileSync(file, 'utf8')) as { cases: VectorCase[] }).cases.find((c) => !c.expected.accepted)!;
      const c = await ManagerClient.connect(m.socket);
      const r = await c.hello(rejected.profile, { client: 'engine-v2' });
      assert.equal(r.opcode, OPCODE.refused);
      assert.equal(r.body.code, 'OKV7103');
      assert.deepEqual(r.body.rejections, rejected.expected.rejections);
      assert.match(String(r.body.message), /rejection\.vllm\.v2-model-runner/);
      await c.whenClosed();
      const after = await c.request(OPCODE.echo, {});
      assert.equal(after.opcode, -1, 'nothing is served after a refusal');
      const op = await ManagerClient.connect(m.socket);
      await op.request(OPCODE.operator, {});
      const records = (await op.request(OPCODE.requests, { request: 'engine-v2' })).body.records as { state: string; firstMiss: { reason: string }; namespace: string }[];
      assert.equal(records[0]?.state, 'refused');
      assert.equal(records[0]?.firstMiss.reason, 'profile-rejected');
      assert.equal(records[0]?.namespace, rejected.expected.rejections.join(','));
      await op.close();
    });

    it('a protocol-version mismatch names both versions', async () => {
      const c = await ManagerClient.connect(m.socket);
      const r = await c.hello(acceptedProfile(), { protocol: PROTOCOL_VERSION + 6 });
      assert.equal(r.opcode, OPCODE.refused);
      assert.equal(r.body.code, 'OKV7101');
      assert.match(String(r.body.message), new RegExp(`version ${PROTOCOL_VERSION + 6}\\b.*version ${PROTOCOL_VERSION}\\b`));
      await c.whenClosed();
      const d = await ManagerClient.connect(m.socket);
      const v = await d.hello(acceptedProfile(), { frameVersion: 9 });
      assert.equal(v.body.code, 'OKV7101');
      assert.match(String(v.body.message), /version 9\b/);
    });

    it('a malformed profile and a request before the handshake are refused with their codes', async () => {
      const c = await ManagerClient.connect(m.socket);
      const r = await c.hello({ engine: 'vllm' });
      assert.equal(r.body.code, 'OKV7102');
      const d = await ManagerClient.connect(m.socket);
      const early = await d.request(OPCODE.lookup, {});
      assert.equal(early.opcode, OPCODE.refused);
      assert.equal(early.body.code, 'OKV7106');
      await d.whenClosed();
    });

    it('an accepted profile is welcomed with the block size and bounds', async () => {
      const c = await ManagerClient.connect(m.socket);
      const r = await c.hello(acceptedProfile());
      assert.equal(r.opcode, OPCODE.welcome);
      assert.equal(r.body.blockBytes, 65536);
      assert.equal(r.body.protocol, PROTOCOL_VERSION);
      c.raw(encodeFrame(OPCODE.echo, 77, Buffer.from('{"a":1}')));
      await c.close();
    });
  });
});
