export * from './auth.contract.js';
export * from './option.contract.js';
export * from './setup.contract.js';
export * from './channel-types.js';
export * from './user.contract.js';
export * from './account.contract.js';
export * from './channel.contract.js';
