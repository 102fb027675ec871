/**
 * Where a store keeps things, all under one root (resolved through realpath once, so a
 * symlinked state root yields one canonical lock path per campaign):
 *
 *   <root>/campaigns/<id>.json    the document (the truth), replaced atomically
 *   <root>/events/<id>.jsonl      append-only diagnostic projection of public events
 *   <root>/locks/<id>.lock/       proper-lockfile lock directory while a writer holds it
 *   <root>/corrupt/<id>.json      report on a document that failed closed
 * @module
 */
import path from 'node:path';
import { documentFileName } from './campaign-id.js';

export interface StoreLayout {
  readonly root: string;
  readonly campaignsDir: string;
  readonly eventsDir: string;
  readonly locksDir: string;
  readonly corruptDir: string;
  documentPath(id: string): string;
  eventsPath(id: string): string;
  lockPath(id: string): string;
  corruptReportPath(id: string): string;
}

/** `realRoot` must already be a realpath. Ids must already be validated. */
export function storeLayout(realRoot: string): StoreLayout {
  const campaignsDir = path.join(realRoot, 'campaigns');
  const eventsDir = path.join(realRoot, 'events');
  const locksDir = path.join(realRoot, 'locks');
  const corruptDir = path.join(realRoot, 'corrupt');
  return {
    root: realRoot,
    campaignsDir,
    eventsDir,
    locksDir,
    corruptDir,
    documentPath: (id) => path.join(campaignsDir, documentFileName(id)),
    eventsPath: (id) => path.join(eventsDir, `${id}.jsonl`),
    lockPath: (id) => path.join(locksDir, `${id}.lock`),
    corruptReportPath: (id) => path.join(corruptDir, `${id}.json`),
  };
}
