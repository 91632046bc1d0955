// What `cxl config --check` warns about though the file is valid: an envelope's prefix_allowlist
// entry (a line to run unasked) that the chain's command policy refuses outright. The two lists
// contradicting each other is how `pytest` came to be allowed unasked by an envelope and refused
// by the shipped allowlist: the entry can never run, and nothing said so.
import { loadChain, taskPolicies } from './chain.ts';
import type { EffectiveConfig } from './load.ts';
import { parseShellPolicy, policyRefusesPrefix } from '../core/shell/shell_policy.ts';

/** One sentence per contradicting entry, naming the envelope, the entry and the policy's reason. */
export function prefixAllowlistWarnings(cfg: EffectiveConfig, root: string): string[] {
  const { chain, label } = loadChain(cfg.data, cfg.sources);
  const out: string[] = [];
  for (const task of chain.tasks) {
    const { policies } = taskPolicies(task, cfg.data, cfg.sources, label);
    const policy = parseShellPolicy(policies.local_shell, root);
    if (!policy) continue;
    for (const name of Object.keys(cfg.envelopes).sort()) {
      const entries = cfg.envelope(name).prefixes?.list ?? [];
      for (const words of entries) {
        const why = policyRefusesPrefix(words, policy);
        if (!why) continue;
        const origin = cfg.origin(name) === 'built-in' ? ' (shipped)' : '';
        out.push(`envelope \`${name}\`${origin} lists \`${words.join(' ')}\` in shell.prefix_allowlist (run unasked), but tools_policies.local_shell of task ${task.id} refuses it: ${why}. Allow it in _allowed_commands, or drop the entry.`);
      }
    }
  }
  return out;
}
