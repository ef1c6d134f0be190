export * from './route';
export * from './schemas';
export * from './document';
export * from './platform';
