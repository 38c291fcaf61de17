#!/usr/bin/env node
// The two commands' set-up (`npm start`, `npm test`): plain Node, no dependencies, so it runs on
// a fresh clone. It installs what is missing, then runs the command:
//   - the system packages the native addon and the stand-ins need (liburing-dev fio python3
//     python3-venv g++ make), with apt-get when run as root; otherwise it prints the exact
//     install line and stops (exit 1);
//   - `npm ci` when node_modules is absent or stale (package-lock.json newer than
//     node_modules/.package-lock.json), and the native addon when it is not built.
// usage: node bin/bootstrap.js start|test [args...]
import { spawnSync } from 'node:child_process';
import { existsSync, readFileSync, statSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = dirname(dirname(fileURLToPath(import.meta.url)));
const [what, ...rest] = process.argv.slice(2);
const RUN = {
  start: ['npm', ['run', '--silent', 'start:run', '--', ...rest]],
  test: ['npm', ['run', '--silent', 'test:run', '--', ...rest]],
};
if (!Object.hasOwn(RUN, what ?? '')) {
  process.stderr.write('usage: node bin/bootstrap.js start|test [args...]\n');
  process.exit(2);
}

const say = (text) => process.stderr.write(`bootstrap: ${text}\n`);
const run = (command, args, options = {}) => spawnSync(command, args, { cwd: root, stdio: 'inherit', ...options });
const has = (command) => spawnSync('sh', ['-c', `command -v ${command}`], { stdio: 'ignore' }).status === 0;
const quiet = (command, args) => spawnSync(command, args, { stdio: 'ignore' }).status === 0;

/** Each system package and how to tell it is there without asking a package manager. */
const SYSTEM = [
  ['liburing-dev', () => existsSync('/usr/include/liburing.h') || quiet('dpkg', ['-s', 'liburing-dev'])],
  ['fio', () => has('fio')],
  ['python3', () => has('python3')],
  ['python3-venv', () => has('python3') && quiet('python3', ['-c', 'import ensurepip, venv'])],
  ['g++', () => has('g++')],
  ['make', () => has('make')],
];

const missing = SYSTEM.filter(([, present]) => !present()).map(([name]) => name);
if (missing.length > 0) {
  const line = `apt-get update && apt-get install -y --no-install-recommends ${missing.join(' ')}`;
  const root_ = typeof process.getuid === 'function' && process.getuid() === 0;
  if (!root_ || !has('apt-get')) {
    say(`missing system packages: ${missing.join(' ')}. Install them, then run this again:\n\n  ${root_ ? '' : 'sudo '}${line}\n`);
    process.exit(1);
  }
  say(`installing ${missing.join(' ')}`);
  const env = { ...process.env, DEBIAN_FRONTEND: 'noninteractive' };
  if (run('sh', ['-c', line], { env }).status !== 0) {
    say(`\`${line}\` failed`);
    process.exit(1);
  }
}

const lock = join(root, 'package-lock.json');
const installed = join(root, 'node_modules', '.package-lock.json');
/**
 * npm ci is due when node_modules was never installed, or when package-lock.json is newer than
 * the install and names packages the install does not have (a checkout that only touched the
 * file's time installs nothing; optional platform packages npm skipped do not count).
 */
function lockDiffers() {
  try {
    const want = JSON.parse(readFileSync(lock, 'utf8')).packages ?? {};
    const have = JSON.parse(readFileSync(installed, 'utf8')).packages ?? {};
    for (const [path, p] of Object.entries(want)) {
      if (path === '') continue;
      const h = have[path];
      if (!h) {
        if (p.optional) continue;
        return true;
      }
      if (h.version !== p.version || (p.integrity && h.integrity !== p.integrity)) return true;
    }
    return Object.keys(have).some((path) => !Object.hasOwn(want, path));
  } catch {
    return true;
  }
}
const stale = !existsSync(installed) || (existsSync(lock) && statSync(lock).mtimeMs > statSync(installed).mtimeMs && lockDiffers());
if (stale) {
  say(existsSync(join(root, 'node_modules')) ? 'node_modules is older than package-lock.json: npm ci' : 'node_modules is missing: npm ci');
  if (run('npm', ['ci', '--no-audit', '--no-fund']).status !== 0) process.exit(1);
} else if (!existsSync(join(root, 'native', 'build', 'Release', 'orbitkv_native.node'))) {
  say('the native addon is not built: npm run install');
  if (run('npm', ['run', 'install']).status !== 0) process.exit(1);
}

const [command, args] = RUN[what];
const r = run(command, args);
process.exit(r.status ?? 1);
