/**
 * When a document is corrupt or of an unknown version, the store leaves its bytes exactly as
 * they are and writes one report beside them in `<root>/corrupt/<id>.json`: what is wrong,
 * when it was seen, and the size and sha256 of the offending bytes. The report is rewritten
 * only when those bytes change, so repeated loads do not churn the disk.
 * @module
 */
import { createHash } from 'node:crypto';
import * as fsp from 'node:fs/promises';
import path from 'node:path';
import { DurableJsonFile } from './durable-json-adapter.js';

export interface CorruptReport {
  campaignId: string;
  code: 'document_corrupt' | 'document_version_unknown' | 'machine_version_unknown';
  reason: string;
  detectedAt: string;
  documentPath: string;
  sizeBytes: number;
  sha256: string;
  /** For the operator: the original file is never modified or moved by the supervisor. */
  note: string;
}

export interface ReportInput {
  corruptDir: string;
  documentPath: string;
  campaignId: string;
  code: CorruptReport['code'];
  reason: string;
  now: Date;
}

/** Writes the report if none describes these bytes yet. Resolves to the report path when written. */
export async function reportCorruptDocument(input: ReportInput): Promise<string | null> {
  const bytes = await fsp.readFile(input.documentPath).catch(() => null);
  if (bytes === null) return null; // it vanished (operator removed it): nothing left to describe
  const sha256 = createHash('sha256').update(bytes).digest('hex');
  const reportPath = path.join(input.corruptDir, `${input.campaignId}.json`);
  const existing = await new DurableJsonFile<Partial<CorruptReport>>(reportPath).read().catch(() => null);
  if (existing?.sha256 === sha256 && existing.code === input.code) return null;
  const report: CorruptReport = {
    campaignId: input.campaignId,
    code: input.code,
    reason: input.reason,
    detectedAt: input.now.toISOString(),
    documentPath: input.documentPath,
    sizeBytes: bytes.length,
    sha256,
    note: 'The document was left untouched. The campaign stays out of service until an operator repairs or removes it.',
  };
  await new DurableJsonFile<CorruptReport>(reportPath, { mode: 0o600 }).write(report);
  return reportPath;
}
