import { type ParseArgsConfig, parseArgs } from 'node:util';
import { UsageError } from './io.js';

type Options = NonNullable<ParseArgsConfig['options']>;
const HELP = { help: { type: 'boolean', short: 'h' } } as const;

/**
 * Every command's argv parsing: strict options plus `-h/--help`; a malformed command line is a
 * `UsageError` pointing at the command's help (exit 2), never a stack trace.
 *
 * @example const { values } = parseCommandLine('status', argv, { at: { type: 'string' } });
 */
export function parseCommandLine<const O extends Options, const P extends boolean = false>(command: string, argv: string[], options: O, allowPositionals?: P) {
  try {
    return parseArgs({ args: argv, options: { ...options, ...HELP }, strict: true, allowPositionals: (allowPositionals ?? false) as P });
  } catch (error) {
    throw new UsageError((error as Error).message, `orbitkv ${command} --help`);
  }
}
