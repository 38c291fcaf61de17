export { createLogger, type LogFields, type LogLevel, type Logger } from './logger.js';
