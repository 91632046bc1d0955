// A look at the raw JSON-RPC between the client and its agent. The SDK parses every answer with
// the stable schema and drops what it does not know; real agents send things that matter to the
// user outside it (a session's `models`, an `env_var` auth method's variable names). The tap keeps
// the latest raw answer per method, so those can be read; the SDK still sees every message as is.
import type * as acp from '@agentclientprotocol/sdk';

type Msg = { id?: string | number | null; method?: string; result?: unknown; error?: unknown };

export class WireTap {
  readonly #methods = new Map<string | number, string>();
  readonly #results = new Map<string, Record<string, unknown>>();

  wrap(stream: acp.Stream): acp.Stream {
    const out = new TransformStream<acp.AnyMessage, acp.AnyMessage>({
      transform: (m, c) => {
        const msg = m as Msg;
        if (msg.method && msg.id != null) this.#methods.set(msg.id, msg.method);
        c.enqueue(m);
      },
    });
    void out.readable.pipeTo(stream.writable).catch(() => {});
    const inbound = new TransformStream<acp.AnyMessage, acp.AnyMessage>({
      transform: (m, c) => {
        const msg = m as Msg;
        if (!msg.method && msg.id != null) {
          const method = this.#methods.get(msg.id);
          this.#methods.delete(msg.id);
          if (method && msg.result && typeof msg.result === 'object') this.#results.set(method, msg.result as Record<string, unknown>);
        }
        c.enqueue(m);
      },
    });
    return { writable: out.writable, readable: stream.readable.pipeThrough(inbound) };
  }

  /** The raw result of the latest answered request of `method` (read it right after awaiting the request). */
  result(method: string): Record<string, unknown> | undefined {
    return this.#results.get(method);
  }
}
