import { parseCommandLine } from '../args.js';
import { type CliIo, type CommandModule, EXIT, UsageError } from '../io.js';

const USAGE = `usage: orbitkv start [--registry DIR] [--out DIR] [--jobs N] [--keep DIR]

The main job (\`npm start\`), on the embedded registry unless --registry says otherwise:
  1. validate  every contract; errors stop here
  2. generate  the adapter packages and wheels into --out (default build/adapters)
  3. ledger    verify the evidence ledger's hash chain
  4. gates     copy the registry into a temporary folder and run every CPU gate there
               (orbitkv gate run --all --record) against real Manager processes (DRAM tier, SSD
               tier in a temporary folder) and engine stand-ins on the generated client
  5. status    the board of that copy, and what the gate results moved
The registry itself is never written: the results are recorded in the copy only (--keep DIR keeps
the copy there, to inspect or to record from). Exit 0 when every step passed and every CPU gate
cell passed; 1 otherwise.
`;

export const command: CommandModule = {
  name: 'start',
  summary: 'the main job: validate, generate, run the CPU gates on a copy of the registry, print the board with what moved',
  async run(argv: string[], io: CliIo): Promise<number> {
    const { values } = parseCommandLine('start', argv, { registry: { type: 'string' }, out: { type: 'string' }, jobs: { type: 'string' }, keep: { type: 'string' } });
    if (values.help) {
      io.out(USAGE);
      return EXIT.ok;
    }
    const jobs = values.jobs === undefined ? 2 : Number(values.jobs);
    if (!Number.isInteger(jobs) || jobs < 1 || jobs > 16) throw new UsageError(`--jobs '${values.jobs}' is not 1..16`);
    const { runMainJob } = await import('../main-job.js');
    return runMainJob(io, { registry: values.registry, out: values.out, jobs, keep: values.keep });
  },
};
