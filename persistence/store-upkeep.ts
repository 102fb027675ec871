/**
 * The store's upkeep, apart from its reads and writes: lock folders a dead owner left, temp files
 * a killed write left, and the report of a document that failed closed (written once, beside
 * the store, never over the document).
 * @module
 */
import * as fsp from 'node:fs/promises';
import path from 'node:path';
import { reportCorruptDocument } from './corrupt-report.js';
import { isTempFileName } from './durable-json-adapter.js';
import type { FailClosedCode } from './read-document.js';
import { describeError } from './store-errors.js';
import type { StoreLayout } from './store-layout.js';

/** A temp file this old is a killed write's, never one in progress. */
const ORPHAN_TEMP_AGE_MS = 10 * 60 * 1000;

/** Removes every campaign lock folder (only safe under the owner lock: see `soleOwner`). */
export async function clearDeadOwnersLocks(locksDir: string): Promise<void> {
  for (const name of await fsp.readdir(locksDir)) {
    if (name.endsWith('.lock')) await fsp.rm(path.join(locksDir, name), { recursive: true, force: true });
  }
}

/** Removes temp files a killed write left behind (older than ORPHAN_TEMP_AGE_MS). */
export async function sweepOrphanTempFiles(campaignsDir: string): Promise<void> {
  const cutoff = Date.now() - ORPHAN_TEMP_AGE_MS;
  for (const name of await fsp.readdir(campaignsDir)) {
    if (!isTempFileName(name)) continue;
    const full = path.join(campaignsDir, name);
    const stat = await fsp.stat(full).catch(() => null);
    if (stat && stat.mtimeMs < cutoff) await fsp.unlink(full).catch(() => undefined);
  }
}

interface ReportLogger {
  error(obj: object, msg: string): void;
}

/** Reports a document that failed closed (once per reason); a report that cannot be written is logged. */
export async function reportFailClosed(r: { layout: StoreLayout; id: string; code: FailClosedCode; reason: string; now: Date; logger?: ReportLogger | undefined }): Promise<void> {
  const { layout, id, code, reason } = r;
  try {
    const written = await reportCorruptDocument({ corruptDir: layout.corruptDir, documentPath: layout.documentPath(id), campaignId: id, code, reason, now: r.now });
    if (written) r.logger?.error({ campaignId: id, code, reason, report: written }, 'campaign document failed closed');
  } catch (error) {
    r.logger?.error({ campaignId: id, code, reason: describeError(error) }, 'could not write corrupt-document report');
  }
}
