/**
 * Where a store keeps things, all under one root (resolved through realpath once, so a
 * symlinked state root yields one canonical lock path per campaign):
 *
 *   <root>/campaigns/<id>.json    the document (the truth), replaced atomically
 *   <root>/events/<id>.jsonl      append-only diagnostic projection of public events
 *   <root>/locks/<id>.lock/       proper-lockfile lock directory while a writer holds it
 *   <root>/corrupt/<id>.json      report on a document that failed closed
 *
 * Everything under the root is operator state that may quote remote text: folders are 0700
 * and files 0600, including what an older version left 0755/0644 (fixed when the store opens).
 * @module
 */
import * as fsp from 'node:fs/promises';
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

export const PRIVATE_DIR_MODE = 0o700;
export const PRIVATE_FILE_MODE = 0o600;

/**
 * Creates the store's folders owner-only and tightens existing ones, and the diagnostic files
 * in them (`events/*.jsonl`, `corrupt/*`), which older versions wrote world-readable.
 */
export async function ensurePrivateLayout(layout: StoreLayout): Promise<void> {
  for (const dir of [layout.campaignsDir, layout.eventsDir, layout.locksDir, layout.corruptDir]) {
    await fsp.mkdir(dir, { recursive: true, mode: PRIVATE_DIR_MODE });
    await fsp.chmod(dir, PRIVATE_DIR_MODE);
  }
  for (const dir of [layout.eventsDir, layout.corruptDir]) {
    for (const entry of await fsp.readdir(dir, { withFileTypes: true })) {
      if (entry.isFile()) await fsp.chmod(path.join(dir, entry.name), PRIVATE_FILE_MODE);
    }
  }
}
