// One cap for every text a git tool returns: cut at the last whole line within the byte budget,
// with a line saying so and how to ask for less (the model can act on the hint).
const HINTS: Readonly<Record<string, string>> = {
  git_status: 'narrow the workspace or commit some of it',
  git_diff: 'pass path to diff one file or directory',
  git_log: 'ask for fewer commits with n, or pass path',
  git_show: 'show a narrower ref, or read files with read_file',
  git_blame: 'blame a smaller file, or read it with read_file_range',
  git_branch_list: 'delete branches you no longer need',
};

/** `text` within `max` bytes (cut at a line end, plus the note), and whether it was cut. */
export function capText(tool: string, text: string, max: number): { text: string; truncated: boolean } {
  if (Buffer.byteLength(text) <= max) return { text, truncated: false };
  let cut = Buffer.from(text).subarray(0, max).toString('utf8');
  if (cut.endsWith('\uFFFD')) cut = cut.slice(0, -1);
  const nl = cut.lastIndexOf('\n');
  if (nl > 0) cut = cut.slice(0, nl + 1);
  return { text: `${cut}... (${tool} truncated at ${max} bytes: ${HINTS[tool] ?? 'ask for less'})\n`, truncated: true };
}
