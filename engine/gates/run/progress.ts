/**
 * Progress of a gate run on a terminal: one line rewritten in place with the cells done of the
 * total, the cell(s) running now and the time elapsed. Quiet (writes nothing) when the stream is
 * not a terminal or the run is in CI, so logs and pipes get only the report.
 */
export interface ProgressStream {
  isTTY?: boolean;
  columns?: number;
  write(text: string): unknown;
}

export interface Progress {
  started(label: string): void;
  finished(label: string): void;
  /** Clears the line. */
  end(): void;
}

/** Whether progress shows: a terminal, and not CI (`CI` set to anything but `false`/`0`). */
export function progressEnabled(stream: ProgressStream, env: NodeJS.ProcessEnv): boolean {
  const ci = env['CI'];
  return stream.isTTY === true && (ci === undefined || ci === '' || ci === '0' || ci.toLowerCase() === 'false');
}

const QUIET: Progress = { started: () => undefined, finished: () => undefined, end: () => undefined };

export function createProgress(total: number, stream: ProgressStream, enabled: boolean, now: () => number = Date.now): Progress {
  if (!enabled) return QUIET;
  const begun = now();
  const running: string[] = [];
  let done = 0;
  let timer: NodeJS.Timeout | null = null;
  const draw = () => {
    const seconds = ((now() - begun) / 1000).toFixed(1);
    const line = `gate run: ${done}/${total} cells, ${seconds}s${running.length ? ` — ${running.join(', ')}` : ''}`;
    const width = Math.max(20, (stream.columns ?? 100) - 1);
    stream.write(`\r${line.length > width ? `${line.slice(0, width - 1)}…` : line}\x1b[K`);
  };
  return {
    started(label) {
      running.push(label);
      timer ??= setInterval(draw, 200);
      timer.unref();
      draw();
    },
    finished(label) {
      const i = running.indexOf(label);
      if (i >= 0) running.splice(i, 1);
      done++;
      draw();
    },
    end() {
      if (timer) clearInterval(timer);
      timer = null;
      stream.write('\r\x1b[K');
    },
  };
}
