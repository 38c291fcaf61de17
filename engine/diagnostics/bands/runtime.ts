import { def } from '../definition.js';

/**
 * 7xxx the runtime (the Manager). 70xx: `orbitkv serve` and the commands that talk to it
 * (flags, socket, tiers); 71xx: what a client is told when the Manager refuses its
 * connection or a request (sent in REFUSED and ERROR frames).
 */
export const RUNTIME_DIAGNOSTICS = {
  // 70xx: serving
  badSize: def({ code: 'OKV7001', severity: 'error', rule: 'bad-size', message: (flag: string, text: string) => `${flag} '${text}' is not a size`, hint: () => 'write a byte count with an optional unit: 1048576, 64k, 512MiB, 8gb' }),
  blockSizeUnaligned: def({ code: 'OKV7002', severity: 'error', rule: 'block-size-unaligned', message: (bytes: number, alignment: number) => `--block-size ${bytes} is not a positive multiple of ${alignment} bytes`, hint: (_b: number, alignment: number) => `O_DIRECT slot I/O needs ${alignment}-byte multiples; round the block size up` }),
  tierTooSmall: def({ code: 'OKV7003', severity: 'error', rule: 'tier-too-small', message: (tier: string, bytes: number, block: number) => `the ${tier} tier (${bytes} bytes) holds no ${block}-byte block`, hint: () => 'give the tier at least one block, or a smaller --block-size' }),
  socketInUse: def({ code: 'OKV7004', severity: 'error', rule: 'socket-in-use', message: (path: string, pid: string) => `another Manager (pid ${pid}) is serving on ${path}`, hint: () => 'stop it first (SIGTERM drains it), or pass --socket PATH for a second Manager' }),
  socketFolderUnsafe: def({ code: 'OKV7005', severity: 'error', rule: 'socket-folder-unsafe', message: (folder: string, detail: string) => `the socket folder ${folder} is not private to this user (${detail})`, hint: () => 'use a folder owned by this user with mode 0700, or let serve create one' }),
  ssdUnusable: def({ code: 'OKV7006', severity: 'error', rule: 'ssd-unusable', message: (dir: string, reason: string) => `the SSD tier folder ${dir} cannot be used: ${reason}`, hint: () => 'check the folder exists, is writable and has room for --ssd-size (orbitkv doctor --data DIR)' }),
  ssdIndexCorrupt: def({ code: 'OKV7007', severity: 'error', rule: 'ssd-index-corrupt', message: (file: string, reason: string) => `the SSD tier index ${file} is corrupt: ${reason}`, hint: () => 'a checkpoint is written whole and renamed, so this is damage, not a crash; move the folder aside to start cold' }),
  registryUnloadable: def({ code: 'OKV7008', severity: 'error', rule: 'registry-unloadable', message: (dir: string, errors: number) => `the registry at ${dir} has ${errors} error(s); the Manager serves only a valid registry`, hint: (dir: string) => `run \`orbitkv validate --registry ${dir}\`` }),
  badListenAddress: def({ code: 'OKV7009', severity: 'error', rule: 'bad-listen-address', message: (text: string) => `--metrics '${text}' is not HOST:PORT`, hint: () => 'for example --metrics 127.0.0.1:9464' }),
  managerUnreachable: def({ code: 'OKV7010', severity: 'error', rule: 'manager-unreachable', message: (path: string, reason: string) => `no Manager answers on ${path} (${reason})`, hint: () => 'start one with `orbitkv serve`, or pass --socket PATH' }),
  socketPathTooLong: def({ code: 'OKV7011', severity: 'error', rule: 'socket-path-too-long', message: (path: string, limit: number) => `the socket path ${path} is longer than the ${limit} bytes a Unix socket address holds`, hint: () => 'pass a shorter --socket PATH' }),
  ssdSizeMissing: def({ code: 'OKV7012', severity: 'error', rule: 'ssd-size-missing', message: () => '--ssd DIR needs --ssd-size SIZE (the tier is preallocated)', hint: () => 'for example --ssd /nvme/orbitkv --ssd-size 64gb' }),

  // 71xx: refusals sent to clients
  protocolMismatch: def({ code: 'OKV7101', severity: 'error', rule: 'protocol-mismatch', message: (client: number, server: number) => `the client speaks protocol version ${client}; this Manager speaks version ${server}`, hint: () => 'install the adapter package generated for this Manager version' }),
  malformedProfile: def({ code: 'OKV7102', severity: 'error', rule: 'malformed-profile', message: (problem: string) => `the handshake profile is malformed: ${problem}`, hint: () => 'the profile is {engine, version, env, config}' }),
  rejectedProfile: def({ code: 'OKV7103', severity: 'error', rule: 'rejected-profile', message: (summary: string) => `the engine profile is rejected: ${summary}`, hint: () => 'each rejection names its contract and what to run instead' }),
  frameFault: def({ code: 'OKV7104', severity: 'error', rule: 'frame-fault', message: (kind: string, detail: string) => `the byte stream is not a frame stream (${kind}: ${detail}); this connection is closed`, hint: () => 'every frame starts with the 24-byte header: magic OKVM, version, opcode, request id, length' }),
  badRequest: def({ code: 'OKV7105', severity: 'error', rule: 'bad-request', message: (opcode: string, problem: string) => `${opcode}: ${problem}` }),
  handshakeFirst: def({ code: 'OKV7106', severity: 'error', rule: 'handshake-first', message: (opcode: string) => `${opcode} before the handshake; the first frame must be HELLO`, hint: () => 'send HELLO {protocol, profile} and wait for WELCOME' }),
  requestRefused: def({ code: 'OKV7107', severity: 'error', rule: 'request-refused', message: (reason: string, detail: string) => `refused (${reason}): ${detail}` }),
  pagesRefused: def({ code: 'OKV7108', severity: 'error', rule: 'pages-refused', message: (problem: string, detail: string) => `the page registration is refused (${problem}): ${detail}`, hint: () => 'register an owner-only (mode 0600) file of this user, sized pages × pageBytes then one flag byte per page' }),
  unknownOpcode: def({ code: 'OKV7109', severity: 'error', rule: 'unknown-opcode', message: (opcode: number) => `unknown opcode ${opcode}` }),
  requestFailed: def({ code: 'OKV7110', severity: 'error', rule: 'request-failed', message: (opcode: string, detail: string) => `${opcode}: the Manager failed serving this request (${detail}); this connection is closed, other clients are served`, hint: () => 'reconnect; the Manager log has the failure (event request-failed), report it with that line' }),
  // A start fault, numbered in 71xx because today's new runtime codes take OKV7110-OKV7149.
  metricsUnavailable: def({ code: 'OKV7111', severity: 'error', rule: 'metrics-unavailable', message: (address: string, reason: string) => `--metrics ${address} cannot be served (${reason}); the Manager did not start`, hint: () => 'pick a free port, or stop what holds this one (ss -ltnp)' }),
  // 72xx: qualification gates (\`orbitkv gate run\`) and the fault injection they start the Manager with
  faultPlanInvalid: def({ code: 'OKV7201', severity: 'error', rule: 'fault-plan-invalid', message: (item: string, problem: string) => `--faults '${item}': ${problem}`, hint: () => 'faults are for qualification runs only: NAME=MILLISECONDS, comma-separated (ssd-read-hold-ms, restore-copy-delay-ms)' }),
  gateRunUnknown: def({ code: 'OKV7202', severity: 'error', rule: 'gate-run-unknown', message: (id: string) => `no contract '${id}' in the registry`, hint: () => 'name a gate id (orbitkv status --kind gate lists them), or pass --all' }),
  gateRunNotAGate: def({ code: 'OKV7203', severity: 'error', rule: 'gate-run-not-a-gate', message: (id: string, kind: string) => `'${id}' is a ${kind} contract, not a gate`, hint: () => 'gate run runs gate contracts; orbitkv explain ID shows which gates a contract needs' }),
  gateRunWorkspace: def({ code: 'OKV7204', severity: 'error', rule: 'gate-run-workspace', message: (detail: string) => `the adapters under test could not be prepared: ${detail}`, hint: () => 'run `orbitkv generate --wheel` to see the generator\'s findings' }),
  gateRunPython: def({ code: 'OKV7205', severity: 'error', rule: 'gate-run-python', message: (python: string, detail: string) => `the engine stand-in needs ${python} (3.8 or later): ${detail}`, hint: () => 'install python3 (apt-get install -y python3), or set ORBITKV_PYTHON to an interpreter' }),
  gateCellFailed: def({ code: 'OKV7206', severity: 'error', rule: 'gate-cell-failed', message: (gate: string, cell: string, what: string) => `${gate} [${cell}] failed: ${what}`, hint: () => 'the check that failed names what the lifecycle did; rerun one gate with `orbitkv gate run ID --format json` for every check' }),
} as const;
