// The envelope engine (REFERENCE 7), one module per stage: what an envelope is as written
// (envelope/spec.ts), resolving `extends` (resolve.ts), compiling for fast decisions
// (compile.ts), and deciding one call (decide.ts). Callers import from here.
export * from './envelope/spec.ts';
export * from './envelope/resolve.ts';
export * from './envelope/compile.ts';
export * from './envelope/decide.ts';
