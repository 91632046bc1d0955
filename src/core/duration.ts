// Durations as people write them: "500ms", "30s", "5m", "1h", "1m30s", or a number of seconds.
// One reading for every place that takes one (agents.toml timeouts, local_shell's `timeout`).

const UNIT_MS: Record<string, number> = { ms: 1, s: 1000, m: 60_000, h: 3_600_000 };

/** Milliseconds, or undefined when the value is not a positive duration. */
export function parseDuration(v: string | number): number | undefined {
  if (typeof v === 'number') return Number.isFinite(v) && v > 0 ? Math.round(v * 1000) : undefined;
  const s = v.trim();
  if (/^\d+(?:\.\d+)?$/.test(s)) return parseDuration(Number(s));
  if (!/^(?:\d+(?:\.\d+)?(?:ms|s|m|h))+$/.test(s)) return undefined;
  let ms = 0;
  for (const m of s.matchAll(/(\d+(?:\.\d+)?)(ms|s|m|h)/g)) ms += Number(m[1]) * UNIT_MS[m[2]];
  return ms > 0 ? Math.round(ms) : undefined;
}
