/** Driven paths on PostgreSQL, shard 2 of 2 (driven-suite.ts): the paths on-postgres.ts selects, the file shards' checks, on the replica store. */
import { drivenShard } from './driven-suite.js';

drivenShard(1, 'postgres');
