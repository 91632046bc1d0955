// zod compiles a parser for each object schema on its first parse (new Function): 1-2 ms a schema,
// ~10 ms of the UI's start for the messages it parses then. Without it a streamed update parses
// ~1.2 µs slower (40,000 chunks: +50 ms over a whole session). Called before the protocol's
// modules build their schemas (the setting is read as each one is built). A module of its own so
// the bundle keeps only zod's `config` for it, not all of zod/v4/core.
import { config } from 'zod/v4/core';

export function parseWithoutCodegen(): void {
  config({ jitless: true });
}
