import pino, { type Logger } from 'pino';

export function createLogger(level: string): Logger {
  return pino({ level, base: { service: 'graph-metadata-service' }, timestamp: pino.stdTimeFunctions.isoTime });
}
