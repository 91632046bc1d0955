// The class of a path that passed confinement (paths.ts), as every tool that reads workspace
// files asks it: by name, and for a file with more than one link by identity too, since a
// second name of a quarantined or read-approve file is that file. The file tools, jq_query's
// document, native-go's sources and the client's fs/* server all ask here.
import type { ConfinedPath } from '../paths.ts';
import { defaultIdentityIndex, shownIdentity, type IdentityIndex } from './identity.ts';
import type { PathClass, PathMatcher } from './matcher.ts';

/** The class of a confined path; `alias` names the protected file a hard link is another name of. */
export function classifyConfined(c: ConfinedPath, root: string, matcher: PathMatcher, identity: IdentityIndex = defaultIdentityIndex): { cls: PathClass; alias?: string } {
  const cls = matcher.classify(c.lexical, c.real, c.requestedRel, c.rel);
  if (cls === 'quarantined' || c.links === undefined || c.links <= 1) return { cls };
  const hit = identity.lookup({ dev: c.dev!, ino: c.ino!, nlink: c.links, isFile: () => true }, root);
  if (!hit) return { cls };
  const alias = shownIdentity(hit.path, root, identity.home);
  return { cls: hit.tier === 'quarantine' ? 'quarantined' : 'read_approve', alias };
}
