import { describeTwoInstancesOnRedis } from './multi-instance-ledger-suite.js';

// One file per database kind (see the suite): SQLite, MariaDB and PostgreSQL run in parallel vitest workers.
describeTwoInstancesOnRedis('sqlite');
