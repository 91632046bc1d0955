// @iarna/toml's string parser alone: its index also loads the stream and async parsers (and
// node:stream), which a config read never uses. Typed here, since the package types only its index.
declare module '@iarna/toml/parse-string.js' {
  import type { JsonMap } from '@iarna/toml';
  const parseString: (text: string) => JsonMap;
  export default parseString;
}
