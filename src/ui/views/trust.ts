// The trust prompt, while this folder's own configuration is held back: t trusts it (the client
// records it and opens a new session that applies it), n or Esc closes it (/trust opens it again).
import { trustRows } from '../trust_rows.ts';
import type { View } from './view.ts';

export const trustView: View = {
  focus: 'trust',
  keys: {
    trust_accept: (ctx) => ctx.controller.trust?.trust(),
    trust_dismiss: (ctx) => ctx.controller.trust?.dismiss(),
  },
  panel: (s, _ui, width, room) => (s.trust ? trustRows(s.trust, width, Math.max(6, room - 3)) : []),
};
