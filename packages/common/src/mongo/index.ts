/** MongoDB adapters of the kernel; only processes that use MongoDB load this (and its driver). */
export * from './client';
export * from './monitor-watchdog';
export * from './outbox';
export * from './processed-events';
export * from './serialize-writes';
