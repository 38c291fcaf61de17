import { readdirSync, realpathSync } from 'node:fs';
import { dirname, extname, join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { UsageDiagnostic } from '../diagnostics/diagnostic.js';
import { type CliIo, type CommandModule, EXIT, UsageError, processIo } from './io.js';

/**
 * Commands are discovered: each file in `commands/` exports `command: CommandModule` (name,
 * summary, run). Command files keep heavy imports inside `run`, so listing them stays cheap
 * and `orbitkv validate` never loads tree-sitter, ts-morph or the native addon.
 */
export async function listCommands(): Promise<CommandModule[]> {
  const here = dirname(fileURLToPath(import.meta.url));
  const ext = extname(fileURLToPath(import.meta.url));
  const dir = join(here, 'commands');
  const files = readdirSync(dir).filter((f) => f.endsWith(ext) && !f.endsWith(`.d${ext}`)).sort();
  const modules: CommandModule[] = [];
  for (const file of files) {
    const loaded = (await import(pathToFileURL(join(dir, file)).href)) as { command?: CommandModule };
    if (!loaded.command) throw new Error(`engine/cli/commands/${file} does not export 'command'`);
    modules.push(loaded.command);
  }
  return modules;
}

function help(commands: CommandModule[]): string {
  const width = Math.max(8, ...commands.map((c) => c.name.length));
  const rows = commands.map((c) => `  ${c.name.padEnd(width)}  ${c.summary}`).join('\n');
  return `usage: orbitkv <command> [options]\n\ncommands:\n${rows}\n\nRun \`orbitkv <command> --help\` for a command's options.\n`;
}

/** Runs one command line; returns the exit code. Never throws at the user. */
export async function runCli(argv: string[], io: CliIo = processIo()): Promise<number> {
  const [name, ...rest] = argv;
  const commands = await listCommands();
  if (name === undefined || name === '--help' || name === '-h' || name === 'help') {
    io.out(help(commands));
    return name === undefined ? EXIT.usage : EXIT.ok;
  }
  const module = commands.find((c) => c.name === name);
  if (!module) {
    io.err(`orbitkv: unknown command '${name}'\n\n${help(commands)}`);
    return EXIT.usage;
  }
  try {
    return await module.run(rest, io);
  } catch (error) {
    if (error instanceof UsageDiagnostic) {
      const { formatDiagnostics } = await import('../diagnostics/index.js');
      io.err(formatDiagnostics([error.diagnostic], { format: 'text', root: io.cwd, cwd: io.cwd }));
      return EXIT.usage;
    }
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
