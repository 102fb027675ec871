/**
 * `argus-supervisor chart --format svg|mermaid|json [--out FILE]`: the campaign statechart, as
 * the page shows it, rendered from the machine definition (services/chart). Written to stdout,
 * or to FILE (replaced atomically: a reader never sees half a chart). `docs/statechart.svg` and
 * `docs/statechart.mmd` are made with it, and a test fails when they are stale.
 *
 * A failure is one line `code: sentence` on stderr and exit 2; stdout then stays empty.
 * @module
 */
import { rename, rm, writeFile } from 'node:fs/promises';
import type { Command } from 'commander';
import { chartJson, chartMermaid, chartModel, renderChart, renderOverview } from '../../services/chart/index.js';

export const CHART_FORMATS = ['svg', 'overview', 'mermaid', 'json'] as const;
export type ChartFormat = (typeof CHART_FORMATS)[number];

export interface ChartInput {
  format: string;
  out?: string;
}

export interface ChartOutput {
  exitCode: 0 | 2;
  stdout: string;
  stderr: string;
}

/** The chart's text in one format. */
export async function chartText(format: ChartFormat): Promise<string> {
  // Always a fresh layout: this is what writes docs/statechart.svg.
  if (format === 'svg') return (await renderChart()).svg;
  // The operator overview (docs/statechart-overview.svg), also always laid out fresh.
  if (format === 'overview') return (await renderOverview()).svg;
  const model = chartModel();
  return format === 'mermaid' ? chartMermaid(model) : chartJson(model);
}

const isFormat = (value: string): value is ChartFormat => (CHART_FORMATS as readonly string[]).includes(value);

/** Runs the command in-process; the CLI action only prints what this returns. */
export async function runChart(input: ChartInput): Promise<ChartOutput> {
  const failed = (code: string, message: string): ChartOutput => ({ exitCode: 2, stdout: '', stderr: `${code}: ${message}\n` });
  if (!isFormat(input.format)) return failed('chart_format_invalid', `--format must be one of ${CHART_FORMATS.join(', ')} (got ${JSON.stringify(input.format.slice(0, 40))})`);
  let text: string;
  try {
    text = await chartText(input.format);
  } catch (e) {
    return failed('chart_render_failed', (e instanceof Error ? e.message : String(e)).split('\n')[0]!.slice(0, 300));
  }
  if (input.out === undefined) return { exitCode: 0, stdout: text, stderr: '' };
  const temporary = `${input.out}.${process.pid}.tmp`;
  try {
    await writeFile(temporary, text, 'utf8');
    await rename(temporary, input.out);
  } catch (e) {
    await rm(temporary, { force: true }).catch(() => undefined);
    const errno = (e as NodeJS.ErrnoException).code ?? 'error';
    return failed('chart_write_failed', `${input.out} could not be written (${errno})`);
  }
  return { exitCode: 0, stdout: '', stderr: '' };
}

export function registerChart(program: Command): void {
  program
    .command('chart')
    .description('Write the campaign statechart, rendered from the machine definition: svg (the full chart), overview (the operator overview, in words), mermaid (stateDiagram-v2) or json (the model).')
    .option('--format <format>', `one of ${CHART_FORMATS.join(', ')}`, 'svg')
    .option('--out <file>', 'write to this file instead of stdout')
    .action(async (opts: { format: string; out?: string }) => {
      const out = await runChart(opts.out === undefined ? { format: opts.format } : { format: opts.format, out: opts.out });
      process.stdout.write(out.stdout);
      process.stderr.write(out.stderr);
      process.exitCode = out.exitCode;
    });
}
