// Reasoning models served without a separate reasoning field (qwen3 on llama.cpp, vLLM without a
// reasoning parser, older Ollama) put their thinking inline as <think>…</think>. This splits a
// stream of text chunks into text and reasoning, with tags that may straddle chunk boundaries.

const OPEN = '<think>';
const CLOSE = '</think>';

export class ThinkSplitter {
  private inThink = false;
  private held = '';

  /** Feeds one chunk; returns the pieces it completes, in order. */
  push(chunk: string): Array<{ type: 'text' | 'reasoning'; text: string }> {
    const out: Array<{ type: 'text' | 'reasoning'; text: string }> = [];
    let s = this.held + chunk;
    this.held = '';
    for (;;) {
      const tag = this.inThink ? CLOSE : OPEN;
      const i = s.indexOf(tag);
      if (i >= 0) {
        if (i > 0) out.push({ type: this.inThink ? 'reasoning' : 'text', text: s.slice(0, i) });
        s = s.slice(i + tag.length);
        this.inThink = !this.inThink;
        continue;
      }
      // keep a possible partial tag at the end for the next chunk
      let keep = 0;
      for (let k = Math.min(tag.length - 1, s.length); k > 0; k--) {
        if (tag.startsWith(s.slice(s.length - k))) {
          keep = k;
          break;
        }
      }
      const emit = s.slice(0, s.length - keep);
      if (emit) out.push({ type: this.inThink ? 'reasoning' : 'text', text: emit });
      this.held = s.slice(s.length - keep);
      return out;
    }
  }

  /** What is left at the end of the stream. */
  end(): Array<{ type: 'text' | 'reasoning'; text: string }> {
    const rest = this.held;
    this.held = '';
    return rest ? [{ type: this.inThink ? 'reasoning' : 'text', text: rest }] : [];
  }
}
