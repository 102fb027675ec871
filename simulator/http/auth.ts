/**
 * Bearer / X-API-KEY check for the A2A endpoints, the two header forms the host framework's
 * proxy accepts. The card stays public so discovery works before credentials are known.
 * @module
 */
import { createHash, timingSafeEqual } from 'node:crypto';
import type { RequestHandler } from 'express';
import type { StatsRecorder } from '../world/stats.js';

const digest = (value: string) => createHash('sha256').update(value).digest();

export function requireToken(token: string, stats: StatsRecorder): RequestHandler {
  const expected = digest(token);
  const matches = (candidate: string | undefined) => candidate !== undefined && timingSafeEqual(digest(candidate), expected);
  return (req, res, next) => {
    const bearer = /^Bearer\s+(.+)$/i.exec(req.get('authorization') ?? '')?.[1]?.trim();
    if (matches(bearer) || matches(req.get('x-api-key'))) {
      next();
      return;
    }
    stats.unauthorized++;
    res.status(401).set('WWW-Authenticate', 'Bearer').json({ error: 'unauthorized' });
  };
}
