/**
 * Where the Manager is found: one rule, from the registry's product. The socket is
 * `<ENV>_MANAGER_SOCKET` when set, else `$XDG_RUNTIME_DIR/<prefix>/manager.sock`, else
 * `/tmp/<prefix>-$UID/manager.sock`; the fd socket and the lock sit beside it. `serve`, the CLI
 * commands that ask the Manager, and the generated Python client (which applies the same rule
 * to the same data, `_data.DATA["manager"]`) agree; a spec holds them to it for a second product.
 */
import { join } from 'node:path';

/** sun_path holds 108 bytes on Linux, including the terminating NUL. */
export const SOCKET_PATH_LIMIT = 107;

/** The product names the socket rule reads (a registry's `productOf`). */
export interface ProductNames {
  name: string;
  packagePrefix: string;
  envPrefix: string;
}

/** What a client needs to find and name the Manager: the data the adapters carry. */
export interface ManagerEndpoint {
  /** The product's display name (`OrbitKV`). */
  product: string;
  /** The environment variable that overrides the socket path (`ORBITKV_MANAGER_SOCKET`). */
  socketEnv: string;
  /** The folder name under $XDG_RUNTIME_DIR, and the prefix of the /tmp folder (`orbitkv`). */
  folder: string;
  /** The command that starts the Manager (`orbitkv serve`). */
  serve: string;
}

export function managerEndpoint(product: ProductNames): ManagerEndpoint {
  return { product: product.name, socketEnv: `${product.envPrefix}_MANAGER_SOCKET`, folder: product.packagePrefix, serve: `${product.packagePrefix} serve` };
}

/** The socket path under the rule; `uid` defaults to this process's. */
export function defaultSocketPath(env: NodeJS.ProcessEnv, endpoint: ManagerEndpoint, uid: number | string = process.getuid?.() ?? 'user'): string {
  const override = env[endpoint.socketEnv];
  if (override) return override;
  const runtime = env['XDG_RUNTIME_DIR'];
  if (runtime) return join(runtime, endpoint.folder, 'manager.sock');
  return join('/tmp', `${endpoint.folder}-${uid}`, 'manager.sock');
}

/** The socket an engine deposits its page memfd on (SCM_RIGHTS), beside the Manager's socket. */
export const fdSocketPath = (socketPath: string): string => `${socketPath}.fd`;

