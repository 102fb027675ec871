/**
 * The overview's text sizes and label lines, apart from the layout so that drawing a stored
 * overview (overview-svg.ts) never loads elkjs.
 * @module
 */
import type { OverviewArrow } from './chart-overview.js';

export const OVERVIEW_FONT = {
  family: "system-ui, -apple-system, 'Segoe UI', Roboto, 'Noto Sans', 'DejaVu Sans', sans-serif",
  state: 15,
  hint: 12,
  lane: 13,
  arrow: 12,
  /** A proportional font: an upper bound of the average advance, so text never overflows its box. */
  advance: 0.6,
  lineHeight: 1.25,
} as const;

export const width = (chars: number, size: number) => Math.ceil(chars * size * OVERVIEW_FONT.advance);
export const lh = (size: number) => Math.ceil(size * OVERVIEW_FONT.lineHeight);

/** An arrow's label lines: its words, wrapped between words at 18 characters. */
export function arrowLabelLines(arrow: OverviewArrow, max = 22): string[] {
  const lines: string[] = [];
  for (const word of arrow.words.join(', ').split(' ')) {
    const last = lines.at(-1);
    if (last !== undefined && last.length + 1 + word.length <= max) lines[lines.length - 1] = `${last} ${word}`;
    else lines.push(word);
  }
  return lines;
}

