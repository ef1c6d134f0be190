export * from './pool';
export * from './metrics';
export * from './migrate';
export * from './outbox';
export * from './processed-events';
export * from './hot-vacuum';
