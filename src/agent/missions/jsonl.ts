// A mission's plan revisions and reports, as files of JSON lines (core/platform/jsonl_file.ts):
// each line is written whole and flushed before the record that counts it is replaced, a torn last
// line is skipped on read and ended before the next append, a bad line is skipped and named.
import { appendJsonLines, readJsonLines, type Invalid } from '../../core/platform/jsonl_file.ts';

/** Appends one JSON line to `file` (created 0600), durable when this returns. Call under the file's lock. */
export function appendLine(file: string, value: unknown): number {
  return appendJsonLines(file, [value]);
}

/**
 * Every whole line of `file` that parses and passes `invalid`, in order (none when it does not
 * exist). A line that does not is skipped and handed to `skipped` with its number.
 */
export function readLines<T>(file: string, invalid?: Invalid, skipped?: (line: number, why: string) => void): T[] {
  return readJsonLines<T>(file, { invalid, skipped });
}
