/**
 * Structured logs: one JSON object per line (time, level, event, fields) to a sink, so an
 * operator can grep and a collector can parse. No message text is built from user data
 * without being a field.
 */
export type LogLevel = 'debug' | 'info' | 'warn' | 'error';
export type LogFields = Record<string, unknown>;

export interface Logger {
  log(level: LogLevel, event: string, fields?: LogFields): void;
  info(event: string, fields?: LogFields): void;
  warn(event: string, fields?: LogFields): void;
  error(event: string, fields?: LogFields): void;
}

const ORDER: Record<LogLevel, number> = { debug: 0, info: 1, warn: 2, error: 3 };

export function createLogger(sink: (line: string) => void, minimum: LogLevel = 'info', clock: () => Date = () => new Date()): Logger {
  const log = (level: LogLevel, event: string, fields: LogFields = {}) => {
    if (ORDER[level] < ORDER[minimum]) return;
    sink(`${JSON.stringify({ time: clock().toISOString(), level, event, ...fields })}\n`);
  };
  return {
    log,
    info: (e, f) => log('info', e, f),
    warn: (e, f) => log('warn', e, f),
    error: (e, f) => log('error', e, f),
  };
}
