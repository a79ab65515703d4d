export * from './attribution.js';
export * from './period.js';
export * from './report.js';
export * from './schema.js';
