/**
 * What every benchmark script shares to report: the median and percentiles, a Markdown table laid out as
 * Biome formats it, the machine line, and rewriting the script's own marked section of
 * bench/RESULTS.md (text outside the markers is left alone).
 */
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { cpus, loadavg } from 'node:os';

const RESULTS = new URL('../RESULTS.md', import.meta.url);

export function median(values: number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  const mid = Math.floor(sorted.length / 2);
  return sorted.length % 2 ? (sorted[mid] ?? 0) : ((sorted[mid - 1] ?? 0) + (sorted[mid] ?? 0)) / 2;
}

/** The value below which `p` percent of `values` fall (the nearest rank), 0 for none. */
export function percentile(values: number[], p: number): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))] ?? 0;
}

/** A Markdown table, padded as the repo's formatter (Biome) lays it out; numbers right-aligned. */
export function table(header: string[], rows: string[][]): string[] {
  const widths = header.map((h, i) => Math.max(h.length, ...rows.map((r) => (r[i] ?? '').length)));
  const line = (cells: string[]) =>
    `| ${cells.map((c, i) => (i === 0 ? c.padEnd(widths[i] ?? 0) : c.padStart(widths[i] ?? 0))).join(' | ')} |`;
  const rule = widths.map((w, i) => (i === 0 ? '-'.repeat(w) : `${'-'.repeat(w - 1)}:`));
  return [line(header), `| ${rule.join(' | ')} |`, ...rows.map(line)];
}

/** The load average now, to be passed to {@link machineLine} once the run is over. */
export function loadAtStart(): string[] {
  return loadavg().map((n) => n.toFixed(2));
}

/** "Machine: N cores (CPU), load average a / b / c at start; Node v, SQLite v; date." */
export function machineLine(load: string[]): string {
  const cpu = cpus()[0]?.model ?? 'unknown CPU';
  const sqlite = (process.versions as Record<string, string | undefined>).sqlite ?? 'unknown';
  return (
    `Machine: ${cpus().length} cores (${cpu}), load average ${load.join(' / ')} at start; ` +
    `Node ${process.version}, SQLite ${sqlite}; ${new Date().toISOString()}.`
  );
}

/** Replace (or append) the section between `<!-- name:start -->` and `<!-- name:end -->`. */
export function writeSection(name: string, lines: string[]): void {
  const start = `<!-- ${name}:start -->`;
  const end = `<!-- ${name}:end -->`;
  const section = [start, ...lines, end].join('\n');
  const header = '# Benchmarks\n\nEach script writes its own section below; rerun it to update.\n';
  const current = existsSync(RESULTS) ? readFileSync(RESULTS, 'utf8') : header;
  const from = current.indexOf(start);
  const to = current.indexOf(end);
  const next =
    from >= 0 && to > from
      ? `${current.slice(0, from)}${section}${current.slice(to + end.length)}`
      : `${current.trimEnd()}\n\n${section}\n`;
  writeFileSync(RESULTS, next);
}
