/** `orbitkv doctor` as one bundled file for the GPU host (the CLI's command discovery reads a folder). */
import { command } from '../../engine/cli/commands/doctor.js';
import { processIo } from '../../engine/cli/io.js';

process.exitCode = await command.run(process.argv.slice(2), processIo());
