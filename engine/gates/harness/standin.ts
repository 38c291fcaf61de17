/**
 * The TypeScript end of an engine stand-in process (`agent-py.ts`): starts `python3` on the
 * agent with the generated adapter packages on its path, sends commands and reads answers in
 * order, and can kill it like a crashed engine. Every answer carries the client's exception as
 * `{type, message, code}` when a call failed, so a scenario can judge it.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { createInterface } from 'node:readline';

export interface AgentError {
  type: string;
  message: string;
  code: string | null;
}

export class AgentCallError extends Error {
  constructor(readonly op: string, readonly error: AgentError) {
    super(`${op}: ${error.type}: ${error.message}`);
  }
}

export interface StandInOptions {
  python: string;
  agentPath: string;
  /** Import name of the adapter package whose `_client.py` it uses (`orbitkv_vllm`). */
  packageName: string;
  /** Folders put first on PYTHONPATH (the unpacked wheels, stub modules). */
  path: string[];
  env?: NodeJS.ProcessEnv;
  /** Longest a single command may take before the stand-in counts as hung. */
  commandTimeoutMs?: number;
}

type Answer = { ok: true; value: unknown } | { ok: false; error: AgentError };

export class StandIn {
  private readonly waiting: ((a: Answer) => void)[] = [];
  private readonly early: Answer[] = [];
  private stderr = '';
  readonly exited: Promise<number | null>;
  pid = 0;

  private constructor(private readonly child: ChildProcess, private readonly timeoutMs: number) {
    const lines = createInterface({ input: child.stdout! });
    lines.on('line', (line) => {
      let answer: Answer;
      try {
        answer = JSON.parse(line) as Answer;
      } catch {
        return;
      }
      const w = this.waiting.shift();
      if (w) w(answer);
      else this.early.push(answer);
    });
    child.stderr!.on('data', (d: Buffer) => {
      this.stderr = (this.stderr + d.toString('utf8')).slice(-16 * 1024);
    });
    this.exited = new Promise((resolve) => child.once('exit', (code) => {
      for (const w of this.waiting.splice(0)) w({ ok: false, error: { type: 'StandInExited', message: `the stand-in exited (${code}): ${this.stderr.slice(-1000)}`, code: null } });
      resolve(code);
    }));
  }

  static async start(o: StandInOptions): Promise<StandIn> {
    const env = { ...process.env, ...o.env, PYTHONPATH: [...o.path, process.env['PYTHONPATH'] ?? ''].filter(Boolean).join(':'), PYTHONDONTWRITEBYTECODE: '1', PYTHONUNBUFFERED: '1' };
    const child = spawn(o.python, [o.agentPath, o.packageName], { stdio: ['pipe', 'pipe', 'pipe'], env });
    const s = new StandIn(child, o.commandTimeoutMs ?? 20_000);
    const hello = await s.next();
    if (!hello.ok) throw new AgentCallError('start', hello.error);
    s.pid = (hello.value as { pid: number }).pid;
    return s;
  }

  private next(): Promise<Answer> {
    const ready = this.early.shift();
    if (ready) return Promise.resolve(ready);
    return new Promise((resolve) => {
      const timer = setTimeout(() => {
        const i = this.waiting.indexOf(done);
        if (i >= 0) this.waiting.splice(i, 1);
        resolve({ ok: false, error: { type: 'StandInHung', message: `no answer within ${this.timeoutMs} ms`, code: null } });
      }, this.timeoutMs);
      const done = (a: Answer) => {
        clearTimeout(timer);
        resolve(a);
      };
      this.waiting.push(done);
    });
  }

  /** Runs one command; resolves to its value or rejects with the client's exception. */
  async call<T = unknown>(op: string, args: Record<string, unknown> = {}): Promise<T> {
    const a = await this.attempt<T>(op, args);
    if ('error' in a) throw new AgentCallError(op, a.error);
    return a.value;
  }

  /** Runs one command; the value or the client's exception, never a rejection. */
  async attempt<T = unknown>(op: string, args: Record<string, unknown> = {}): Promise<{ value: T } | { error: AgentError }> {
    if (this.child.exitCode !== null || this.child.signalCode !== null) return { error: { type: 'StandInExited', message: 'the stand-in is not running', code: null } };
    const answer = this.next();
    this.child.stdin!.write(`${JSON.stringify({ op, args })}\n`);
    const a = await answer;
    return a.ok ? { value: a.value as T } : { error: a.error };
  }

  /** Kills it the way an engine dies (SIGKILL): no goodbye to the Manager. */
  async kill(): Promise<void> {
    if (this.child.exitCode === null && this.child.signalCode === null) this.child.kill('SIGKILL');
    await this.exited;
  }

  /** Ends it: closes its stdin and waits, killing it if it lingers. */
  async end(): Promise<void> {
    if (this.child.exitCode !== null || this.child.signalCode !== null) return;
    this.child.stdin!.end();
    const timer = setTimeout(() => this.child.kill('SIGKILL'), 5000);
    await this.exited;
    clearTimeout(timer);
  }

  tail(): string {
    return this.stderr.slice(-2000);
  }
}
