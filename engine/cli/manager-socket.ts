/**
 * The Manager socket a command talks to: `--socket PATH` when given, else the one rule
 * (runtime/server/socket-path.ts) applied to the product of the registry the command serves,
 * so `serve`, `manager status`, `requests`, `doctor` and the generated adapters agree.
 */
import { resolve } from 'node:path';
import type { CliIo } from './io.js';

export async function managerSocket(io: CliIo, socket: string | undefined, registryDir: string | undefined): Promise<{ path: string; serve: string; socketEnv: string }> {
  const { defaultSocketPath, managerEndpoint } = await import('../runtime/index.js');
  // An explicit socket needs no registry (the hint names the tool's own serve command).
  if (socket !== undefined) return { path: resolve(io.cwd, socket), serve: 'serve --socket PATH', socketEnv: '--socket' };
  const { loadRegistryParallel, productOf, resolveRegistryDir } = await import('../registry/index.js');
  const { registry } = await loadRegistryParallel(resolveRegistryDir(io.cwd, registryDir));
  const endpoint = managerEndpoint(productOf(registry));
  return { path: defaultSocketPath(io.env, endpoint), serve: endpoint.serve, socketEnv: endpoint.socketEnv };
}
