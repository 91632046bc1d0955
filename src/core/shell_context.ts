// The text a model reads for the lines the person ran in their own shell (`!line`) since their
// last prompt: the client sends it with that prompt, and cxl's agent, which keeps the runs with
// the session, sends it itself when the prompt comes from a client that no longer has them (the
// session was resumed in a new UI). One wording for both.

/** Output handed to the agent for all pending runs together. */
export const CONTEXT_BYTES_TOTAL = 32 * 1024;

/**
 * The text block sent before the next prompt: what the person ran and saw (each run as the
 * client wrote it: `$ line`, output, `[exit N]`), newest last, within CONTEXT_BYTES_TOTAL (the
 * oldest runs left out first, and the text says so).
 */
export function shellContextText(runs: readonly string[]): string {
  const kept: string[] = [];
  let bytes = 0;
  for (let i = runs.length - 1; i >= 0; i--) {
    const n = Buffer.byteLength(runs[i]);
    if (bytes + n > CONTEXT_BYTES_TOTAL && kept.length > 0) break;
    kept.unshift(runs[i]);
    bytes += n;
  }
  const dropped = runs.length - kept.length;
  const head = `I ran ${kept.length === 1 ? 'this command' : 'these commands'} in my own shell (not tool calls of yours); the output is for you to see:`;
  return [head, ...(dropped ? [`[${dropped} earlier command${dropped === 1 ? '' : 's'} left out: too much output]`] : []), ...kept].join('\n\n');
}
