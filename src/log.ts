/**
 * One logger for the bot and for Bolt (it implements Bolt's Logger interface). Every line passes
 * through redaction of the secrets the process knows, so a token or the API key secret can never
 * reach a log, even through an error message a library built.
 */
import { inspect } from 'node:util';
import { LogLevel, type Logger } from '@slack/bolt';

const ORDER: Record<LogLevel, number> = { debug: 10, info: 20, warn: 30, error: 40 };

export type LogSink = (line: string) => void;

export interface BotLogger extends Logger {
  /** Adds values that must never be written (tokens, key secret, derived Basic credentials). */
  addSecrets(...secrets: Array<string | undefined>): void;
}

export function createLogger(options: { level?: `${LogLevel}`; sink?: LogSink; name?: string } = {}): BotLogger {
  let level = (options.level ?? 'info') as LogLevel;
  let name = options.name ?? 'clickhouse-bot';
  const sink: LogSink = options.sink ?? ((line) => process.stderr.write(`${line}\n`));
  const secrets = new Set<string>();

  const redact = (text: string): string => {
    let out = text;
    for (const secret of secrets) out = out.split(secret).join('[redacted]');
    return out.replace(/(authorization["']?\s*[:=]\s*["']?)(basic|bearer)\s+[^\s"',}]+/gi, '$1$2 [redacted]');
  };
  const write = (at: LogLevel, parts: unknown[]) => {
    if (ORDER[at] < ORDER[level]) return;
    const text = parts.map((p) => (typeof p === 'string' ? p : inspect(p, { depth: 4, breakLength: Infinity }))).join(' ');
    sink(redact(`${new Date().toISOString()} ${at.toUpperCase()} [${name}] ${text}`));
  };

  return {
    debug: (...msg: unknown[]) => write(LogLevel.DEBUG, msg),
    info: (...msg: unknown[]) => write(LogLevel.INFO, msg),
    warn: (...msg: unknown[]) => write(LogLevel.WARN, msg),
    error: (...msg: unknown[]) => write(LogLevel.ERROR, msg),
    setLevel: (next: LogLevel) => {
      level = next;
    },
    getLevel: () => level,
    setName: (next: string) => {
      name = next;
    },
    addSecrets: (...values: Array<string | undefined>) => {
      // Very short values would redact ordinary words; real secrets are long.
      for (const value of values) if (value && value.length >= 6) secrets.add(value);
    },
  };
}
