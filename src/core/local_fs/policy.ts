// tools_policies.local_fs (docs/local-fs.md, "tools_policies.local_fs"): string values parsed into typed limits. A bad value
// falls back to the default and is reported once as a warning, never silently.
import { DEFAULT_SKIP_DIRS } from '../paths.ts';

export { DEFAULT_SKIP_DIRS };

/** The values the default chains ship for local_fs (what `cxl tool` uses unless overridden). */
/** The toolset's name: here, in the module the toolset's entry already imports. */
export const LOCAL_FS = 'local_fs';

export const DEFAULT_CHAIN_LOCAL_FS: Readonly<Record<string, string>> = Object.freeze({
  _max_read_bytes: '1048576',
  _max_output_bytes: '32768',
  _denied_path_substrings: 'node_modules,.git/,dist/,/.next/,/out/,package-lock.json',
});

export interface FsPolicy {
  /** root override; undefined = the session cwd */
  allowedDir?: string;
  /** whole-file read limit in bytes; Infinity = unlimited */
  maxReadBytes: number;
  /** cap on what one call returns; Infinity = unlimited */
  maxOutputBytes: number;
  /** lower-cased substrings refused in root-relative paths */
  deniedPathSubstrings: string[];
  maxListDepth: number;
  /** grep match cap; undefined = 500 for a file, 100 for a tree */
  maxGrepMatches?: number;
  maxFindResults: number;
  /** bytes count_stats and grep read of one file (a larger one is refused, or skipped in a tree); Infinity = unlimited */
  maxScanFileBytes: number;
  /** bytes a grep over a tree reads in one call, all files together; Infinity = unlimited */
  maxScanCallBytes: number;
  /** directory names traversals skip */
  skipDirs: string[];
  /** offer the long tool descriptions */
  longDescriptions: boolean;
}

/** The keys this module understands, with their meaning (for docs and error messages). */
export const FS_POLICY_KEYS: Readonly<Record<string, string>> = Object.freeze({
  _allowed_dir: 'root of all paths (default: the session cwd)',
  _max_read_bytes: 'whole-file read limit in bytes, 0 or negative = unlimited (default 1048576)',
  _max_output_bytes: 'cap on one call\'s output in bytes, 0 = unlimited (default 32768)',
  _denied_path_substrings: 'comma list of refused path substrings (default: none; the default chains set some)',
  _max_list_depth: 'deepest list_dir recursion (default 6)',
  _max_grep_matches: 'grep match cap (default 500 for a file, 100 for a tree)',
  _max_find_results: 'find_files result cap (default 200)',
  _max_scan_file_bytes: 'bytes count_stats and grep read of one file, 0 = unlimited (default 268435456: 256 MiB)',
  _max_scan_call_bytes: 'bytes a grep over a directory reads in one call, 0 = unlimited (default 1073741824: 1 GiB)',
  _skip_dirs: `comma list of directory names traversals skip (default: ${DEFAULT_SKIP_DIRS.join(',')})`,
  _long_descriptions: 'true to give the model the long tool descriptions (default false)',
});

export const DEFAULT_FS_POLICY: Readonly<FsPolicy> = Object.freeze({
  maxReadBytes: 1_048_576,
  maxOutputBytes: 32_768,
  deniedPathSubstrings: [],
  maxListDepth: 6,
  maxFindResults: 200,
  maxScanFileBytes: 256 * 1024 * 1024,
  maxScanCallBytes: 1024 * 1024 * 1024,
  skipDirs: [...DEFAULT_SKIP_DIRS],
  longDescriptions: false,
});

const list = (v: string) => v.split(',').map((s) => s.trim()).filter((s) => s.length > 0);

/** Parses string-valued keys; unknown keys and bad values become warnings, defaults stand in. */
export function parseFsPolicy(raw: Readonly<Record<string, unknown>> | undefined): { policy: FsPolicy; warnings: string[] } {
  const policy: FsPolicy = { ...DEFAULT_FS_POLICY, deniedPathSubstrings: [], skipDirs: [...DEFAULT_SKIP_DIRS] };
  const warnings: string[] = [];
  for (const [key, value] of Object.entries(raw ?? {})) {
    if (value === undefined || value === null) continue;
    const v = String(value).trim();
    const warn = (what: string, fallback: unknown) =>
      warnings.push(`tools_policies.local_fs.${key} = ${JSON.stringify(String(value))} is ${what}; using ${fallback}.`);
    const int = (fallback: number, opts: { zeroUnlimited?: boolean; min?: number }): number => {
      if (!/^[+-]?\d+$/.test(v)) {
        warn('not an integer', fallback === Infinity ? 'unlimited' : fallback);
        return fallback;
      }
      const n = Number(v);
      if (opts.zeroUnlimited && n <= 0) return Infinity;
      if (n < (opts.min ?? 1)) {
        warn(`below ${opts.min ?? 1}`, fallback);
        return fallback;
      }
      return n;
    };
    switch (key) {
      case '_allowed_dir':
        if (v) policy.allowedDir = v;
        break;
      case '_max_read_bytes':
        policy.maxReadBytes = int(DEFAULT_FS_POLICY.maxReadBytes, { zeroUnlimited: true });
        break;
      case '_max_output_bytes':
        policy.maxOutputBytes = int(DEFAULT_FS_POLICY.maxOutputBytes, { zeroUnlimited: true });
        break;
      case '_denied_path_substrings':
        policy.deniedPathSubstrings = list(v).map((s) => s.toLowerCase());
        break;
      case '_max_list_depth':
        policy.maxListDepth = int(DEFAULT_FS_POLICY.maxListDepth, { min: 1 });
        break;
      case '_max_grep_matches':
        policy.maxGrepMatches = int(500, { min: 1 });
        break;
      case '_max_find_results':
        policy.maxFindResults = int(DEFAULT_FS_POLICY.maxFindResults, { min: 1 });
        break;
      case '_max_scan_file_bytes':
        policy.maxScanFileBytes = int(DEFAULT_FS_POLICY.maxScanFileBytes, { zeroUnlimited: true });
        break;
      case '_max_scan_call_bytes':
        policy.maxScanCallBytes = int(DEFAULT_FS_POLICY.maxScanCallBytes, { zeroUnlimited: true });
        break;
      case '_skip_dirs':
        policy.skipDirs = list(v);
        break;
      case '_long_descriptions':
        if (/^(true|1|yes|on)$/i.test(v)) policy.longDescriptions = true;
        else if (/^(false|0|no|off|)$/i.test(v)) policy.longDescriptions = false;
        else warn('not a boolean', false);
        break;
      default:
        warnings.push(`tools_policies.local_fs.${key} is not a known key (known: ${Object.keys(FS_POLICY_KEYS).join(', ')}); ignored.`);
    }
  }
  return { policy, warnings };
}

/** Whether a root-relative `/` path (or directory) contains a denied substring. */
export function deniedSubstring(policy: Pick<FsPolicy, 'deniedPathSubstrings'>, rel: string): string | undefined {
  if (policy.deniedPathSubstrings.length === 0) return undefined;
  // framed by slashes, so `.git/` also covers the directory `.git` and `/out/` a top-level `out`
  const framed = `/${rel === '.' ? '' : rel}/`.toLowerCase();
  return policy.deniedPathSubstrings.find((s) => framed.includes(s));
}
