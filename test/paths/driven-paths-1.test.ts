/** Driven paths, shard 1 of 4 (driven-suite.ts): a file per shard, so workers share the plan. */
import { drivenShard } from './driven-suite.js';

drivenShard(0);
