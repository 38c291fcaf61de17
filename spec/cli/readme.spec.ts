import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { listCommands } from '../../engine/cli/main.js';

describe('README (documentation drift)', () => {
  const readme = readFileSync('README.md', 'utf8');
  const start = readme.indexOf('## CLI reference');
  const end = readme.indexOf('\n## ', start + 1);
  const reference = readme.slice(start, end < 0 ? undefined : end);

  it('documents every CLI command in its reference table, and no command that does not exist', async () => {
    const commands = (await listCommands()).map((c) => c.name).sort();
    const documented = [...reference.matchAll(/^\| `([a-z-]+)/gm)].map((m) => m[1]!).filter((n) => n !== 'command');
    assert.deepEqual([...new Set(documented)].sort(), commands);
  });

  it('names the test command that .ci/run runs, and the main-job command', () => {
    const ci = readFileSync('.ci/run', 'utf8');
    assert.match(ci, /^npm test$/m);
    assert.match(readme, /^npm test\b/m);
    assert.match(readme, /^npm start\b/m);
  });
});

describe('sources cited in code', () => {
  it('no code comment cites FACTS.md, a document that is not in the project', () => {
    const files = execFileSync('git', ['ls-files', '--', 'engine', 'generators', 'native', 'spec', 'bin'], { encoding: 'utf8' }).split('\n').filter((f) => /\.(ts|js|py|sh|cc|h)$/.test(f));
    assert.ok(files.length > 50);
    const citing = files.filter((f) => f !== 'spec/cli/readme.spec.ts' && readFileSync(f, 'utf8').includes('FACTS.md'));
    assert.deepEqual(citing, []);
  });
});
