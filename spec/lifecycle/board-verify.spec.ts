import assert from 'node:assert/strict';
import { cli, digest, removeTemps, tempCopy } from './support.js';

/** Source-verification evidence shows on the board as a finding, and moves no state. */
describe('lifecycle board: source verification findings', () => {
  after(removeTemps);
  const PROFILE = JSON.stringify({ engines: { alpha: { version: '1.2.0', commit: '1'.repeat(40) } } });
  let t = 0;
  const at = () => `2026-12-02T10:${String(t++).padStart(2, '0')}:00Z`;
  const record = (dir: string, type: string, subject: string, result: string) =>
    cli(dir, 'evidence', 'add', type, '--subject', subject, '--actor', 'ci-verify', '--at', at(), '--profile', PROFILE, '--data', JSON.stringify({ result, files: { 'alpha/runner.py': digest('runner.py') } }));
  const row = async (dir: string, id: string) => {
    const r = await cli(dir, 'status', '--format', 'json', '--no-cache', '--at', '2026-12-03');
    return (JSON.parse(r.out) as { rows: { id: string; state: string; finding?: string; next: string }[] }).rows.find((x) => x.id === id)!;
  };

  it('a gap whose assertion no longer holds is a reopening candidate, still restricted', async () => {
    const dir = tempCopy();
    const before = await row(dir, 'gap.alpha.ordering');
    assert.equal(before.finding, undefined);
    const added = await record(dir, 'verify.assertion', 'gap.alpha.ordering', 'no-longer-holds');
    assert.equal(added.code, 0, added.err);
    const after = await row(dir, 'gap.alpha.ordering');
    assert.equal(after.state, before.state, 'a finding authorizes nothing');
    assert.match(after.finding ?? '', /reopening candidate/);
    assert.match(after.next, /reopening gates/);
  });

  it('a kept hook whose target went missing is flagged; a present target is not', async () => {
    const dir = tempCopy();
    assert.equal((await record(dir, 'verify.target', 'hook.alpha.capture', 'present')).code, 0);
    assert.equal((await row(dir, 'hook.alpha.capture')).finding, undefined);
    assert.equal((await record(dir, 'verify.target', 'hook.alpha.capture', 'missing')).code, 0);
    const flagged = await row(dir, 'hook.alpha.capture');
    assert.equal(flagged.state, 'kept');
    assert.match(flagged.finding ?? '', /target missing/);
    const text = await cli(dir, 'status', '--no-cache', '--at', '2026-12-03');
    assert.match(text.out, /finding: source verification 2026-12-02: hook target missing/);
  });
});
