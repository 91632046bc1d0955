// The envelope engine (docs/config.md, "Envelopes"), one module per stage: what an envelope is as written
// (envelope/spec.ts), resolving `extends` (resolve.ts), compiling for fast decisions
// (compile.ts), deciding one call (decide.ts), and a unit's ceiling (ceiling.ts). Callers import
// from here.
export * from './spec.ts';
export * from './resolve.ts';
export * from './compile.ts';
export * from './decide.ts';
export * from './meet.ts';
export * from './ceiling.ts';
