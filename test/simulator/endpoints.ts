/** Where each dialect's JSON-RPC endpoint lives, and the A2A-Version header its clients send. */
import type { RunningSimulator, SimProtocol } from '../../simulator/index.js';

export const endpointOf = (sim: RunningSimulator): string => (sim.protocol === '0.2' ? `${sim.url}/` : `${sim.url}/jsonrpc`);

/** 1.0 clients must send A2A-Version; 0.3 and 0.2 clients send none. */
export const versionOf = (protocol: SimProtocol): string | null => (protocol === '1.0' ? '1.0' : null);
