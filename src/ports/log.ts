/** The log the middle layer writes to (log.ts's redacting logger; Bolt's Logger fits too). */
export interface Log {
  debug(...message: unknown[]): void;
  info(...message: unknown[]): void;
  warn(...message: unknown[]): void;
  error(...message: unknown[]): void;
}
