// Every benchmark prints its rows through `report`, one JSON line each on stdout; the runner
// (scripts/bench.mjs) turns them into the table. `ours` and `reference` share the unit.
import process from 'node:process';
import { performance } from 'node:perf_hooks';

export interface BenchRow {
  name: string;
  ours: number;
  reference: number;
  unit: string;
  /** what the reference is, e.g. "rg -F" */
  against: string;
  /** optional pass/fail target on the ratio ours/reference, or on ours when `absolute` */
  target?: string;
}

export function report(row: BenchRow): void {
  process.stdout.write(`BENCH ${JSON.stringify(row)}\n`);
}

/** Median wall time in ms of `runs` calls of `fn` after one warm-up. */
export async function timeMs(fn: () => unknown | Promise<unknown>, runs = 5): Promise<number> {
  await fn();
  const times: number[] = [];
  for (let i = 0; i < runs; i++) {
    const t0 = performance.now();
    await fn();
    times.push(performance.now() - t0);
  }
  times.sort((a, b) => a - b);
  return times[Math.floor(times.length / 2)];
}

/**
 * Medians in ms of `runs` alternating calls of `ours` and `ref`, after one warm-up each: run
 * alternately so a drift in the machine's load hits both alike.
 */
export async function pairMs(ours: () => unknown, ref: () => unknown, runs: number): Promise<[number, number]> {
  await ours();
  await ref();
  const a: number[] = [];
  const b: number[] = [];
  for (let i = 0; i < runs; i++) {
    let t = performance.now();
    await ours();
    a.push(performance.now() - t);
    t = performance.now();
    await ref();
    b.push(performance.now() - t);
  }
  const med = (x: number[]) => x.sort((p, q) => p - q)[Math.floor(x.length / 2)];
  return [med(a), med(b)];
}

export const median = (xs: readonly number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];
export const p95 = (xs: readonly number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length * 0.95)];
