// The login picker, while the agent wants a login: 1-9 log in with that method (the client runs
// `authenticate`), Esc closes it (/login opens it again).
import { authRows } from '../auth_rows.ts';
import type { View } from './view.ts';

export const loginPickerView: View = {
  focus: 'auth',
  keys: {
    auth_pick: (ctx) => {
      const m = ctx.state.auth?.methods[Number(ctx.input) - 1];
      if (m) ctx.controller.login?.authenticate(m.id);
    },
    auth_dismiss: (ctx) => ctx.controller.login?.dismiss(),
  },
  panel: (s, _ui, width, room) => (s.auth ? authRows(s.auth, s.agent.name ?? s.agent.label, width, Math.max(6, room - 3)) : []),
};
