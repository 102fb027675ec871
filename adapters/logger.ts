/**
 * One pino logger for the process; components take child loggers. Redaction is configured
 * here once so no caller can forget it. Redaction paths are constants, never user input.
 * @module
 */
import { pino, type Logger, type DestinationStream } from 'pino';

export type { Logger } from 'pino';

/** Paths that may carry a credential anywhere in a log object. */
export const REDACT_PATHS = [
  'authorization',
  'Authorization',
  'x-api-key',
  'X-API-KEY',
  'token',
  'apiKey',
  'api_key',
  '*.authorization',
  '*.Authorization',
  '*["x-api-key"]',
  '*["X-API-KEY"]',
  '*.token',
  '*.apiKey',
  '*.api_key',
  'headers.authorization',
  'headers["x-api-key"]',
  'req.headers.authorization',
  'req.headers["x-api-key"]',
  'config.a2aToken',
  'config.apiKey',
];

export interface LoggerOptions {
  level?: string;
  destination?: DestinationStream;
}

/** Creates the root logger. Logs go to stderr by default so stdout stays machine-readable. */
export function createLogger(opts: LoggerOptions = {}): Logger {
  const level = opts.level ?? process.env.LOG_LEVEL ?? 'info';
  return pino(
    { level, base: { service: 'argus-supervisor' }, redact: { paths: REDACT_PATHS, censor: '[REDACTED]' } },
    opts.destination ?? pino.destination(2),
  );
}

/** A logger that drops everything; for library callers and tests that do not care. */
export function silentLogger(): Logger {
  return pino({ level: 'silent' });
}
