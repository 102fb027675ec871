/**
 * `.dockerignore` matching as Docker's builder does it (moby/patternmatcher): patterns are
 * cleaned paths relative to the context, `*` and `?` stay inside one path segment, `**` spans
 * segments, a pattern that matches a parent folder excludes everything below it, `!` re-includes,
 * and the last matching pattern decides.
 */
import path from 'node:path';

export interface IgnorePattern {
  exclusion: boolean;
  source: string;
  regex: RegExp;
}

const REGEX_SPECIAL = /[.+^${}()|[\]\\]/;

function patternRegex(pattern: string): RegExp {
  let out = '^';
  for (let i = 0; i < pattern.length; i++) {
    const ch = pattern[i]!;
    if (ch === '*') {
      if (pattern[i + 1] === '*') {
        i++;
        if (pattern[i + 1] === '/') i++;
        // "**" at the end matches the rest; "**/" matches any number of folders, none included.
        out += i + 1 >= pattern.length ? '.*' : '(?:.*/)?';
      } else out += '[^/]*';
    } else if (ch === '?') out += '[^/]';
    else if (ch === '\\' && i + 1 < pattern.length) out += `\\${pattern[++i]}`;
    else if (ch === '[') {
      const end = pattern.indexOf(']', i + 1);
      if (end === -1) out += '\\[';
      else {
        out += `[${pattern.slice(i + 1, end).replace(/^!/, '^')}]`;
        i = end;
      }
    } else out += REGEX_SPECIAL.test(ch) ? `\\${ch}` : ch;
  }
  return new RegExp(`${out}$`);
}

export function parseDockerignore(text: string): IgnorePattern[] {
  return text
    .split('\n')
    .map((line) => line.trim())
    .filter((line) => line !== '' && !line.startsWith('#'))
    .map((line) => {
      const exclusion = line.startsWith('!');
      const raw = exclusion ? line.slice(1).trim() : line;
      const cleaned = path.posix.normalize(raw).replace(/^\/+/, '').replace(/\/+$/, '');
      return { exclusion, source: line, regex: patternRegex(cleaned) };
    });
}

/** True when the context path `rel` (posix, relative) is left out of the build context. */
export function isExcluded(rel: string, patterns: IgnorePattern[]): boolean {
  const file = path.posix.normalize(rel).replace(/^\.\/|\/+$/g, '');
  const parents = file.split('/').slice(0, -1);
  let matched = false;
  for (const p of patterns) {
    // An inclusion only matters once excluded, an exclusion only while not yet excluded.
    if (p.exclusion !== matched) continue;
    let match = p.regex.test(file);
    for (let i = 1; !match && i <= parents.length; i++) match = p.regex.test(parents.slice(0, i).join('/'));
    if (match) matched = !p.exclusion;
  }
  return matched;
}
