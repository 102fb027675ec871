/**
 * The digest journaled with each mutation intent: sha256 over canonical JSON (object keys
 * sorted), so the same payload always yields the same digest regardless of key order.
 * @module
 */
import { createHash } from 'node:crypto';

export function digestPayload(payload: unknown): string {
  return createHash('sha256').update(canonicalJson(payload)).digest('hex');
}

export function canonicalJson(value: unknown): string {
  return JSON.stringify(value, (_key, v: unknown) => {
    if (v === null || typeof v !== 'object' || Array.isArray(v)) return v;
    const sorted: Record<string, unknown> = {};
    for (const key of Object.keys(v).sort()) sorted[key] = (v as Record<string, unknown>)[key];
    return sorted;
  }) ?? 'null';
}
