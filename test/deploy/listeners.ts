/**
 * The listening sockets a process holds, read from /proc as the kernel reports them: the
 * process's socket inodes (/proc/<pid>/fd links `socket:[inode]`) matched against its network
 * namespace's tables: TCP in state 0A (LISTEN) in /proc/<pid>/net/tcp and tcp6, and Unix sockets
 * flagged __SO_ACCEPTCON (listen() was called) in /proc/<pid>/net/unix.
 */
import { readFileSync, readdirSync, readlinkSync } from 'node:fs';

export type Listener = { kind: 'tcp' | 'tcp6'; port: number; inode: string } | { kind: 'unix'; path: string; inode: string };

const TCP_LISTEN = '0A';
const SO_ACCEPTCON = 0x10000;

/** Inodes of every socket the process has open now. */
export function socketInodes(pid: number): Set<string> {
  const inodes = new Set<string>();
  for (const fd of readdirSync(`/proc/${pid}/fd`)) {
    try {
      const m = /^socket:\[(\d+)\]$/.exec(readlinkSync(`/proc/${pid}/fd/${fd}`));
      if (m) inodes.add(m[1]!);
    } catch {
      // closed between the listing and the readlink
    }
  }
  return inodes;
}

const rows = (file: string) =>
  readFileSync(file, 'utf8')
    .split('\n')
    .slice(1)
    .map((l) => l.trim().split(/\s+/))
    .filter((r) => r.length > 1);

export function listeningSockets(pid: number): Listener[] {
  const mine = socketInodes(pid);
  const out: Listener[] = [];
  for (const kind of ['tcp', 'tcp6'] as const) {
    // sl local_address rem_address st tx:rx tr:when retrnsmt uid timeout inode
    for (const r of rows(`/proc/${pid}/net/${kind}`)) {
      if (r[3] === TCP_LISTEN && mine.has(r[9]!)) out.push({ kind, port: parseInt(r[1]!.split(':')[1]!, 16), inode: r[9]! });
    }
  }
  // Num RefCount Protocol Flags Type St Inode [Path]
  for (const r of rows(`/proc/${pid}/net/unix`)) {
    if ((parseInt(r[3]!, 16) & SO_ACCEPTCON) !== 0 && mine.has(r[6]!)) out.push({ kind: 'unix', path: r[7] ?? '', inode: r[6]! });
  }
  return out;
}

/** The process's one listening socket; throws when it holds none or more than one. */
export function theOneListener(pid: number): Listener {
  const found = listeningSockets(pid);
  if (found.length !== 1) {
    const shown = found.map((l) => (l.kind === 'unix' ? `unix ${l.path}` : `${l.kind} port ${l.port}`)).join(', ');
    throw new Error(`expected exactly one listening socket in process ${pid}, found ${found.length}: ${shown || 'none'}`);
  }
  return found[0]!;
}
