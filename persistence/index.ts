/**
 * The persistence layer's public face: the campaign document and its pure helpers, the
 * durable lowdb adapter, and the campaign store.
 * @module
 */
export * from './campaign-document.js';
export * from './campaign-id.js';
export * from './campaign-store.js';
export * from './decisions.js';
export * from './document-transition.js';
export { DurableJsonFile, parseJsonDocument, type DurableFs, type DurableJsonFileOptions } from './durable-json-adapter.js';
export * from './intent-journal.js';
export * from './outbox.js';
export * from './payload-digest.js';
export * from './remote-view.js';
export * from './state-history.js';
export * from './store-errors.js';
export type { StoreLayout } from './store-layout.js';
export { DEFAULT_LOCK_SETTINGS, MIN_LOCK_STALE_MS, type LockSettings } from './campaign-lock.js';
export * from './wake-requests.js';
export * from './ownership.js';
export { OWNER_STALE_MS, stateRootOwnership, type StateRootOwnershipOptions } from './owner-lock.js';
