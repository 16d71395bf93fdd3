/**
 * `npm run test:slowest [count]`: the slowest test files of the last vitest run, and the
 * slowest tests in them, read from the JSON report every run writes
 * (node_modules/.cache/vitest-results.json). A file's time is its wall time in its worker,
 * so on a loaded machine it includes the wait for a core: compare files of one run.
 */
import { readFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import { REPO_ROOT } from './cli.js';

interface Report {
  startTime: number;
  testResults: Array<{
    name: string;
    startTime: number;
    endTime: number;
    assertionResults: Array<{ title: string; duration?: number | null }>;
  }>;
}

const REPORT = join(REPO_ROOT, 'node_modules/.cache/vitest-results.json');
const count = Number(process.argv[2] ?? 15);
const report = JSON.parse(readFileSync(REPORT, 'utf8')) as Report;
const files = report.testResults
  .map((file) => ({ ...file, seconds: (file.endTime - file.startTime) / 1000 }))
  .sort((a, b) => b.seconds - a.seconds);
const total = files.reduce((sum, file) => sum + file.seconds, 0);
const wall = (Math.max(...files.map((f) => f.endTime)) - report.startTime) / 1000;
console.log(
  `${files.length} files, ${total.toFixed(0)} s of file time in ${wall.toFixed(0)} s (report of ${new Date(report.startTime).toISOString()})`,
);
for (const file of files.slice(0, count)) {
  const slowest = [...file.assertionResults].sort((a, b) => (b.duration ?? 0) - (a.duration ?? 0));
  const top = slowest[0];
  const detail = top
    ? `  slowest test ${((top.duration ?? 0) / 1000).toFixed(1)} s: ${top.title.slice(0, 70)}`
    : '';
  console.log(
    `${file.seconds.toFixed(1).padStart(6)} s  ${String(file.assertionResults.length).padStart(4)} tests  ${relative(REPO_ROOT, file.name)}${detail ? `\n${' '.repeat(22)}${detail.trim()}` : ''}`,
  );
}
