/**
 * One logger for the bot and for Bolt (it implements Bolt's Logger interface), in two formats:
 * human-readable text (the default) or, with LOG_FORMAT=json, one JSON object per line written by
 * pino (time, level, msg, and the fields a call passes with `logFields`). Every line, in both
 * formats, passes through redaction of the secrets the process knows, so a token or the API key
 * secret can never reach a log, even through an error message a library built.
 */
import { inspect } from 'node:util';
import { LogLevel, type Logger } from '@slack/bolt';
import { pino } from 'pino';
import { SECRET_VIEW_CALLBACK } from './core/render/secrets.js';

/**
 * Secrets this long are replaced wherever they occur. Shorter ones (a Redis password of 4
 * characters) would also hit ordinary words, so they are replaced where they stand alone: not
 * next to a letter or digit, as in a URL, a quoted value or a `key=value` pair.
 */
const LONG_SECRET = 6;

const wholeWord = (secret: string): RegExp =>
  new RegExp(`(?<![\\p{L}\\p{N}])${secret.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}(?![\\p{L}\\p{N}])`, 'gu');

/** The password of any URL with credentials (redis://user:PASSWORD@host), whatever the secrets known. */
const URL_PASSWORD = /(\b[a-z][a-z0-9+.-]*:\/\/[^\s:/@'"]*:)[^\s/@'"]+@/gi;

const ORDER: Record<LogLevel, number> = { debug: 10, info: 20, warn: 30, error: 40 };

export type LogSink = (line: string) => void;
export type LogFormat = 'text' | 'json';

/** Structured context a log line may carry; names are fixed so log pipelines can index them. */
export interface LogFieldValues {
  changeRequestId?: string;
  userId?: string;
  serviceId?: string;
  channelId?: string;
  apiRequestId?: string;
  outcome?: string;
  command?: string;
  scheduleId?: string;
}

/** Fields passed among a log call's arguments: `logger.info('applied', logFields({ changeRequestId }))`. */
export class LogFields {
  constructor(readonly values: LogFieldValues) {}
}

export const logFields = (values: LogFieldValues): LogFields => new LogFields(values);

export interface BotLogger extends Logger {
  /** Adds values that must never be written (tokens, key secret, derived Basic credentials). */
  addSecrets(...secrets: Array<string | undefined>): void;
}

export interface LoggerOptions {
  level?: `${LogLevel}`;
  format?: LogFormat;
  sink?: LogSink;
  name?: string;
}

export function createLogger(options: LoggerOptions = {}): BotLogger {
  let level = (options.level ?? 'info') as LogLevel;
  let name = options.name ?? 'clickhouse-bot';
  const sink: LogSink = options.sink ?? ((line) => process.stderr.write(`${line}\n`));
  const secrets = new Set<string>();
  /** Secrets too short to replace wherever they occur ("abc" inside "abcde"): replaced as whole words. */
  const shortSecrets = new Map<string, RegExp>();

  const redact = (text: string): string => {
    // Slack's client logs request bodies at debug: the one that fills a Reveal window holds a secret.
    if (text.includes(SECRET_VIEW_CALLBACK)) return 'a line about a Reveal window, withheld: it may hold a secret';
    let out = text;
    for (const secret of secrets) out = out.split(secret).join('[redacted]');
    for (const pattern of shortSecrets.values()) out = out.replace(pattern, '[redacted]');
    return out
      .replace(/(authorization["']?\s*[:=]\s*["']?)(basic|bearer)\s+[^\s"',}\\]+/gi, '$1$2 [redacted]')
      .replace(URL_PASSWORD, '$1[redacted]@');
  };
  const json = options.format === 'json' ? jsonWriter((line) => sink(redact(line))) : undefined;

  const write = (at: LogLevel, parts: unknown[]) => {
    if (ORDER[at] < ORDER[level]) return;
    const fields: LogFieldValues = {};
    const message: string[] = [];
    for (const part of parts) {
      if (part instanceof LogFields) Object.assign(fields, part.values);
      else message.push(typeof part === 'string' ? part : inspect(part, { depth: 4, breakLength: Infinity }));
    }
    const text = message.join(' ');
    // Redacted before serializing too: JSON escaping would hide `"Authorization": "Bearer …"` from the pattern.
    if (json)
      json(
        at,
        name,
        redact(text),
        Object.fromEntries(Object.entries(fields).map(([key, value]) => [key, redact(String(value))])),
      );
    else sink(redact(`${new Date().toISOString()} ${at.toUpperCase()} [${name}] ${text}${textFields(fields)}`));
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
      for (const value of values) {
        if (!value) continue;
        // In JSON a secret with quotes or backslashes appears escaped.
        for (const form of new Set([value, JSON.stringify(value).slice(1, -1)])) {
          if (form.length >= LONG_SECRET) secrets.add(form);
          else shortSecrets.set(form, wholeWord(form));
        }
      }
    },
  };
}

/** ` key=value` pairs after a text line; values quoted when they hold spaces. */
function textFields(fields: LogFieldValues): string {
  return Object.entries(fields)
    .filter(([, value]) => value !== undefined)
    .map(([key, value]) => ` ${key}=${/[\s"=]/.test(String(value)) ? JSON.stringify(value) : String(value)}`)
    .join('');
}

/**
 * pino writes the JSON (escaping, one line per entry); the level filter stays ours, so Bolt's
 * setLevel/getLevel keep working, and every line still goes through the redacting sink.
 */
function jsonWriter(sink: LogSink) {
  const logger = pino(
    {
      level: 'debug',
      base: null,
      messageKey: 'msg',
      timestamp: pino.stdTimeFunctions.isoTime,
      formatters: { level: (label) => ({ level: label }) },
    },
    { write: (line: string) => sink(line.endsWith('\n') ? line.slice(0, -1) : line) },
  );
  return (at: LogLevel, name: string, msg: string, fields: LogFieldValues) => {
    logger[at]({ name, ...fields }, msg);
  };
}

/**
 * The logger for loops that run on their own (settling abandoned approvals, due reverts, schedule
 * sync): while `quiet()` holds (the store is down, and its outage is already logged once a
 * minute) their warnings and errors are dropped instead of repeating the store's failure every
 * few seconds. Lines at other times pass through.
 */
export function quietWhile<L extends Pick<Logger, 'debug' | 'info' | 'warn' | 'error'>>(
  logger: L,
  quiet: () => boolean,
): Pick<Logger, 'debug' | 'info' | 'warn' | 'error'> {
  return {
    debug: (...message: unknown[]) => logger.debug(...message),
    info: (...message: unknown[]) => logger.info(...message),
    warn: (...message: unknown[]) => (quiet() ? undefined : logger.warn(...message)),
    error: (...message: unknown[]) => (quiet() ? undefined : logger.error(...message)),
  };
}
