// What an agent wrote on stdout that is not an ACP message. The usual mistake behind "the agent
// exited with code 0" is a program that prints a banner or a log line on stdout (or is no ACP
// agent at all, `--agent 'echo hello'`): the SDK answers such a line with a parse error and
// nobody sees it. The first bytes of stdout are read as they come; later ones are not looked at.
/** How much of the start of stdout is read for lines that are not JSON. */
const WATCH_BYTES = 4096;
const MAX_LINES = 5;

export class StdoutNoise {
  readonly lines: string[] = [];
  #seen = 0;
  #partial = '';
  readonly #decoder = new TextDecoder();

  constructor(private readonly onLine: (line: string) => void = () => {}) {}

  /**
   * The agent's stdout for the SDK; its first bytes are also read here, as they come (not only
   * as the SDK reads them: a connection that fails at once reads nothing more).
   */
  watch(input: ReadableStream<Uint8Array>): ReadableStream<Uint8Array> {
    const [forSdk, mine] = input.tee();
    void this.#readStart(mine.getReader());
    return forSdk;
  }

  async #readStart(reader: ReadableStreamDefaultReader<Uint8Array>): Promise<void> {
    try {
      while (this.#seen < WATCH_BYTES) {
        const { value, done } = await reader.read();
        if (done) break;
        this.#read(value.subarray(0, WATCH_BYTES - this.#seen));
      }
      this.#line(this.#partial);
      this.#partial = '';
    } catch {
      // the stream failed: what was read is what there is
    } finally {
      // past the first bytes this branch lets go, so nothing queues for it
      void reader.cancel().catch(() => {});
    }
  }

  #read(bytes: Uint8Array): void {
    this.#seen += bytes.length;
    const parts = (this.#partial + this.#decoder.decode(bytes, { stream: true })).split('\n');
    this.#partial = this.#seen >= WATCH_BYTES ? '' : (parts.pop() ?? '');
    for (const p of parts) this.#line(p);
  }

  #line(raw: string): void {
    const line = raw.trim();
    if (line === '' || line.startsWith('{') || this.lines.length >= MAX_LINES) return;
    const shown = line.length > 200 ? `${line.slice(0, 200)}…` : line;
    this.lines.push(shown);
    this.onLine(shown);
  }
}

/** Why an agent that ended (or never answered) wrote text the protocol cannot read, for the message that reports it. */
export function noiseExplained(lines: readonly string[]): string | undefined {
  if (lines.length === 0) return undefined;
  const shown = lines.slice(0, 2).map((l) => `“${l}”`).join(', ');
  return `It wrote ${shown} on stdout, which is not ACP: an ACP agent writes only JSON-RPC messages there. The usual mistake is a banner or log line on stdout (send it to stderr), or a command that is not an ACP agent (some need a flag such as --acp or an \`acp\` subcommand).`;
}
