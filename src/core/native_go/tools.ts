// The six native-go tools as the model sees them: read-only, type-checked answers about the Go
// module in the workspace (not build, test or format: those go through local_shell).
import type { JsonSchema, ToolKind } from '../tool.ts';

export interface GoToolSpec {
  name: string;
  kind: ToolKind;
  description: string;
  inputSchema: JsonSchema;
}

const DIR = { type: 'string', description: 'Directory inside the target module, relative to the workspace root (default: the workspace root)' };
const SYMBOL = { type: 'string', description: '"pkg.Ident", "pkg.Type.Method", "Type.Method" or a bare "Ident"; pkg is a package name, an import-path suffix or a full import path' };
const obj = (properties: Record<string, unknown>, required: string[] = []): JsonSchema => ({ type: 'object', properties: { ...properties, dir: DIR }, required, additionalProperties: false });

export const GO_TOOLS: readonly GoToolSpec[] = Object.freeze([
  { name: 'go_symbols', kind: 'search', description: 'Outline a Go package or file: its declarations with kind, type and location, exported first.', inputSchema: obj({ target: { type: 'string', description: 'A package (import path, suffix or name) or a workspace-relative .go file (default: the package at dir)' }, max: { type: 'integer', description: 'Most symbols (default 200, at most 1000)' } }) },
  { name: 'go_definition', kind: 'search', description: 'Where a Go symbol is declared: file:line:col and the declaring line.', inputSchema: obj({ symbol: SYMBOL }, ['symbol']) },
  { name: 'go_references', kind: 'search', description: 'Every use of a Go symbol in the module, resolved by type identity, grouped by file.', inputSchema: obj({ symbol: SYMBOL, max: { type: 'integer', description: 'Most locations (default 50, at most 200)' } }, ['symbol']) },
  { name: 'go_describe', kind: 'read', description: 'A Go symbol: its kind, type or signature, doc comment, and for a type its fields and methods.', inputSchema: obj({ symbol: SYMBOL }, ['symbol']) },
  { name: 'go_implementations', kind: 'search', description: 'For an interface, the module\'s types that implement it; for a type, the module\'s interfaces it implements.', inputSchema: obj({ symbol: SYMBOL }, ['symbol']) },
  {
    name: 'go_diagnostics',
    kind: 'read',
    description: 'Type errors and go vet findings: for files changed since the last call, one package, or all. Advisory, not a build.',
    inputSchema: obj({
      scope: { type: 'string', enum: ['changed', 'package', 'all'], description: '"changed" (default), "package" (with target) or "all"' },
      target: { type: 'string', description: 'For scope "package": a package (import path, suffix or name) or a .go file' },
      passes: { type: ['string', 'array'], items: { type: 'string' }, description: 'vet passes: printf, unusedresult, unreachable, nilfunc (default), shadow, or "all"' },
      max: { type: 'integer', description: 'Most diagnostics (default 100, at most 500)' },
    }),
  },
]);
