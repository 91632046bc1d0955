// Durations in config: "500ms", "30s", "5m", "1h", "1m30s", or a number of seconds.

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

/** "90000" ms → "1m30s", for display. */
export function formatDuration(ms: number): string {
  if (ms % 1000 !== 0) return `${ms}ms`;
  let s = ms / 1000;
  const h = Math.floor(s / 3600);
  s -= h * 3600;
  const m = Math.floor(s / 60);
  s -= m * 60;
  return `${h ? `${h}h` : ''}${m ? `${m}m` : ''}${s || (!h && !m) ? `${s}s` : ''}`;
}
