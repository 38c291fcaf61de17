import { pathToFileURL } from 'node:url';
import { realpathSync } from 'node:fs';
import { type CliIo, type CommandModule, EXIT, UsageError, processIo } from './io.js';

/**
 * The command table. Each command lives in `commands/<name>.ts` and is imported only when
 * it runs, so `orbitkv validate` never loads tree-sitter, ts-morph or the native addon.
 */
export const COMMANDS: ReadonlyArray<{ name: string; summary: string; load: () => Promise<CommandModule> }> = [
  { name: 'check', summary: 'the main job: validate the registry, generate the adapters, print the removal-gate board', load: () => import('./commands/check.js') },
  { name: 'validate', summary: 'load and validate a registry; diagnostics with code, file:line:col, frame and hint', load: () => import('./commands/validate.js') },
  { name: 'fmt', summary: 'rewrite contracts in canonical key order and indentation, keeping comments (--check: report only)', load: () => import('./commands/fmt.js') },
  { name: 'new', summary: 'scaffold a valid contract of a kind: orbitkv new KIND ID', load: () => import('./commands/new.js') },
  { name: 'schema', summary: 'write or check the JSON Schema generated from the TypeScript model', load: () => import('./commands/schema.js') },
  { name: 'evidence', summary: 'append to, verify or repair the evidence ledger', load: () => import('./commands/evidence.js') },
  { name: 'status', summary: 'the removal-gate board: every contract, its state, since when, what blocks it', load: () => import('./commands/status.js') },
  { name: 'explain', summary: 'the evidence that moved a contract and its gate x profile matrix', load: () => import('./commands/explain.js') },
  { name: 'can-remove', summary: 'exit 0 when a hook may be removed, 1 with the blocking cells', load: () => import('./commands/can-remove.js') },
  { name: 'report', summary: 'write contracts/REGISTRY.md (--check: fail on drift)', load: () => import('./commands/report.js') },
  { name: 'generate', summary: 'emit the vLLM and SGLang adapter packages and the TypeScript rejection module', load: () => import('./commands/generate.js') },
  { name: 'package-check', summary: 'the packaging gate over a built wheel', load: () => import('./commands/package-check.js') },
  { name: 'verify', summary: 'check hook targets, interfaces and gap assertions against an engine checkout', load: () => import('./commands/verify.js') },
  { name: 'doctor', summary: 'what this machine allows: io_uring, O_DIRECT, memlock, CUDA driver', load: () => import('./commands/doctor.js') },
];

function help(): string {
  const width = Math.max(...COMMANDS.map((c) => c.name.length));
  const rows = COMMANDS.map((c) => `  ${c.name.padEnd(width)}  ${c.summary}`).join('\n');
  return `usage: orbitkv <command> [options]\n\ncommands:\n${rows}\n\nRun \`orbitkv <command> --help\` for a command's options.\n`;
}

/** Runs one command line; returns the exit code. Never throws at the user. */
export async function runCli(argv: string[], io: CliIo = processIo()): Promise<number> {
  const [name, ...rest] = argv;
  if (name === undefined || name === '--help' || name === '-h' || name === 'help') {
    io.out(help());
    return name === undefined ? EXIT.usage : EXIT.ok;
  }
  const command = COMMANDS.find((c) => c.name === name);
  if (!command) {
    io.err(`orbitkv: unknown command '${name}'\n\n${help()}`);
    return EXIT.usage;
  }
  let module: CommandModule;
  try {
    module = await command.load();
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    if (code === 'ERR_MODULE_NOT_FOUND' && String((error as Error).message).includes(`commands/${name}.`)) {
      io.err(`orbitkv: command '${name}' is not part of this build yet\n`);
      return EXIT.usage;
    }
    throw error;
  }
  try {
    return await module.run(rest, io);
  } catch (error) {
    if (error instanceof UsageError) {
      io.err(`orbitkv ${name}: ${error.message}\n${error.hint ? `hint: ${error.hint}\n` : ''}`);
      return EXIT.usage;
    }
    const code = (error as NodeJS.ErrnoException).code;
    if (typeof code === 'string' && /^E[A-Z]+$/.test(code)) {
      // An operating-system refusal the command did not anticipate: say what and where.
      io.err(`orbitkv ${name}: ${(error as Error).message}\n`);
      return EXIT.failed;
    }
    throw error;
  }
}

const invokedPath = process.argv[1] ? realpathSync(process.argv[1]) : '';
if (import.meta.url === pathToFileURL(invokedPath).href) {
  process.exitCode = await runCli(process.argv.slice(2));
}
