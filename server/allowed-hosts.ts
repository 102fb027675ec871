/**
 * The allowed `Host` names: the DNS-rebinding lock. A page on `evil.example` whose name is
 * re-pointed at this machine is same-origin with whatever answers there, so the browser lets it
 * read the answers; only the `Host` header still says which name it asked for. So every request
 * (`/health`, the page and 404s included) must name this server by a name it knows:
 *
 * - a loopback TCP listener: `localhost`, `127.x.y.z` or `[::1]`, with the listener's port
 *   (no port means 80);
 * - any other TCP listener: the same loopback names with its port, and the entries of
 *   `ARGUS_SUPERVISOR_ALLOWED_HOSTS` (`name` matches any port, `name:port` only that one);
 * - a Unix socket (no browser reaches it): the loopback names with any port, and the entries.
 *
 * Anything else answers `421` with the code alone: nothing a rebinding page could learn.
 * @module
 */
import type { AddressInfo } from 'node:net';
import { isIP } from 'node:net';

export const HOST_NOT_ALLOWED = { ok: false, error: { code: 'host_not_allowed' } } as const;

/** `name` or `name:port`, `[v6]` or `[v6]:port`; lower case; null when not a Host value. */
export function parseHost(value: string): { name: string; port: number | null } | null {
  const m = /^(\[[0-9a-f:.]+\]|[a-z0-9.-]+)(?::(\d{1,5}))?$/.exec(value.toLowerCase());
  if (!m) return null;
  const port = m[2] === undefined ? null : Number(m[2]);
  if (port !== null && port > 65_535) return null;
  return { name: m[1]!, port };
}

/** The names that can only mean this machine: `localhost`, 127.0.0.0/8 and `[::1]`. */
function isLoopbackName(name: string): boolean {
  if (name === 'localhost' || name === '[::1]') return true;
  return isIP(name) === 4 && name.startsWith('127.');
}

const isLoopbackAddress = (address: string) => (isIP(address) === 4 ? address.startsWith('127.') : address === '::1' || /^::ffff:127\./.test(address));

/**
 * The check for one server. `listener` is read per request (the port is known only once it
 * listens; null before, e.g. under `inject`, when only loopback names pass).
 */
export function createHostCheck(allowedHosts: readonly string[], listener: () => AddressInfo | string | null): (host: string | undefined) => boolean {
  const allowed = allowedHosts.map((entry) => parseHost(entry)).filter((h): h is NonNullable<typeof h> => h !== null);
  return (host) => {
    if (host === undefined) return false;
    const asked = parseHost(host);
    if (!asked) return false;
    const where = listener();
    if (isLoopbackName(asked.name)) {
      if (where === null || typeof where === 'string') return true;
      return (asked.port ?? 80) === where.port;
    }
    if (where !== null && typeof where !== 'string' && isLoopbackAddress(where.address)) return false;
    return allowed.some((a) => a.name === asked.name && (a.port === null || a.port === (asked.port ?? 80)));
  };
}
