/**
 * argus-supervisor as a library: what a plugin host embeds.
 * @module
 */
export * from './adapters/a2a/control-contract.js';
export type { TaskSnapshot, NormalizedState } from './adapters/a2a/snapshot.js';
export type { RemoteError, RemoteErrorCode, SendOutcome } from './adapters/a2a/errors.js';
