export { RelayModule } from './relay.module.js';
