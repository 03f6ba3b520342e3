export * from './auth.contract.js';
export * from './option.contract.js';
export * from './setup.contract.js';
