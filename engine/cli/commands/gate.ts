import { parseCommandLine } from '../args.js';
import { type CliIo, type CommandModule, EXIT, UsageError } from '../io.js';

const USAGE = `usage: orbitkv gate run ID...|--all [--record] [--format text|json] [--registry DIR] [--jobs N] [--actor NAME]

Runs qualification gates: every gate whose scenario needs only a CPU runs, cell by cell, against
real Manager processes (a temporary socket, a DRAM tier and an SSD tier in a temporary folder)
and engine stand-in processes (Python, driving the client of the adapter packages generated
from the registry into a temporary folder). GPU, real-engine and external gates are listed as
skipped, never as passed.
  --all          every gate of the registry
  --record       append one gate.result per cell that ran, bound to the adapter manifest's hash,
                 with the sha256 of the contracts, the manifest and the native addon taken before
                 and after (refused, nothing appended, if they changed during the run)
  --format F     text (default) or json
  --registry DIR registry folder (default ./contracts, else the embedded one)
  --jobs N       gates run at once (default 2)
  --actor NAME   who records (default $ORBITKV_ACTOR, else $USER)
Progress (cells done of total, current cell, elapsed) shows on a terminal, not in CI.
Exit status: 0 every cell that ran passed; 1 a cell failed or nothing could run; 2 usage.
`;

export const command: CommandModule = {
  name: 'gate',
  summary: 'run the CPU qualification gates against a real Manager and engine stand-ins; --record appends the results',
  async run(argv: string[], io: CliIo): Promise<number> {
    const { values, positionals } = parseCommandLine('gate', argv, {
      all: { type: 'boolean' },
      record: { type: 'boolean' },
      format: { type: 'string' },
      registry: { type: 'string' },
      jobs: { type: 'string' },
      actor: { type: 'string' },
    }, true);
    if (values.help) {
      io.out(USAGE);
      return EXIT.ok;
    }
    const [action, ...ids] = positionals;
    if (action !== 'run') throw new UsageError(action === undefined ? 'missing action' : `unknown action '${action}'`, 'use `orbitkv gate run ID|--all`');
    if (values.all && ids.length > 0) throw new UsageError('pass gate ids or --all, not both');
    if (!values.all && ids.length === 0) throw new UsageError('name the gates to run', 'orbitkv gate run gate.runtime.lookup-states, or --all');
    const format = values.format ?? 'text';
    if (format !== 'text' && format !== 'json') throw new UsageError(`unknown format '${format}'`, 'use --format text|json');
    const jobs = values.jobs === undefined ? 2 : Number(values.jobs);
    if (!Number.isInteger(jobs) || jobs < 1 || jobs > 16) throw new UsageError(`--jobs '${values.jobs}' is not 1..16`);
    const actor = values.actor ?? io.env['ORBITKV_ACTOR'] ?? io.env['USER'] ?? 'orbitkv-gate-run';
    const { runGateCommand } = await import('../gate-run.js');
    return runGateCommand(io, { ids: values.all ? 'all' : ids, record: values.record === true, format, registry: values.registry, jobs, actor });
  },
};
