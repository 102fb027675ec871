/**
 * Runs the stock @a2a-js/sdk server (bench/stock-sdk-server.ts) with N tasks in a process of its
 * own, so its CPU never counts against the sweep measured: `node stock-sdk-child.js N` prints
 * one JSON line `{ base, rpcUrl }` when ready and stops on SIGTERM.
 * @module
 */
import { startStockSdkServer } from './stock-sdk-server.js';

const count = Number(process.argv[2]);
if (!Number.isInteger(count) || count < 1 || count > 200_000) {
  process.stderr.write('usage: stock-sdk-child N (1..200000)\n');
  process.exit(2);
}
const server = await startStockSdkServer(count);
process.stdout.write(`${JSON.stringify({ base: server.base, rpcUrl: server.rpcUrl })}\n`);
process.once('SIGTERM', () => void server.close().then(() => process.exit(0)));
