// highlight.js's common grammars (about 35 languages) in a lowlight instance. Its own module,
// imported by name, so the bundle keeps only these: importing lowlight's namespace at run time
// would carry all 190 grammars (1.1 MB) into the chunk loaded on the first fence.
import { common, createLowlight } from 'lowlight';

export function makeLowlight() {
  return createLowlight(common);
}
