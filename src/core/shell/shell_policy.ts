// tools_policies.local_shell as it travels in chains and agents.toml (string values, comma lists)
// turned into a ShellPolicy, plus the shipped default lists.
import path from 'node:path';
import { ToolError } from '../errors.ts';
export { withoutShellOnlyKeys } from '../contract/policy_flags.ts';
import type { ShellPolicy } from './checker.ts';

/** The toolset's name, also its one tool's: here, in the module the toolset's entry already imports. */
export const LOCAL_SHELL = 'local_shell';

export const SHELL_POLICY_KEYS = ['_allowed_commands', '_denied_commands', '_allowed_dir'] as const;

/**
 * Common dev tools: an allowlist to start from for a person who wants `_allowed_commands` as a
 * hard gate (docs/local-shell.md). Not shipped: a shipped allowlist narrower than the envelope's
 * own lists refused what the envelope would have asked about (`pytest`, `uv`, `yarn`).
 */
export const DEFAULT_ALLOWED_COMMANDS = (
  'ls,cat,head,tail,wc,sort,uniq,cut,tr,diff,echo,printf,pwd,which,find,grep,sed,awk,stat,file,basename,dirname,' +
  'realpath,du,date,mktemp,mkdir,touch,cp,mv,rm,ln,chmod,tar,gzip,gunzip,zip,unzip,patch,git,go,gofmt,python3,node,' +
  'npm,npx,deno,make,cargo,jq'
).split(',');

/**
 * The deny list the default chains ship: privilege escalation, raw disks and file systems, kernel
 * and system state. These never run, whatever an envelope or a session allow says.
 */
export const DEFAULT_DENIED_COMMANDS = (
  'sudo,su,doas,pkexec,run0,sudoedit,runuser,chroot,nsenter,' +
  'dd,mkfs,mkfs.ext2,mkfs.ext3,mkfs.ext4,mkfs.xfs,mkfs.btrfs,mkfs.vfat,mkfs.fat,mke2fs,mkswap,swapon,swapoff,' +
  'fdisk,sfdisk,cfdisk,gdisk,sgdisk,parted,wipefs,blkdiscard,losetup,cryptsetup,hdparm,shred,mount,umount,' +
  'chown,systemctl,reboot,shutdown,halt,poweroff,init,telinit,kexec,insmod,rmmod,modprobe,' +
  'useradd,usermod,userdel,groupadd,groupdel,passwd,chpasswd,visudo,iptables,nft'
).split(',');

/**
 * What the default chains ship: the deny list and no allowlist, so every other program reaches
 * the envelope, which allows it, asks a person or denies it. A `_allowed_commands` a person
 * writes is a hard gate on top (docs/local-shell.md).
 */
export const SHIPPED_SHELL_POLICY: Readonly<Record<string, string>> = Object.freeze({
  _denied_commands: DEFAULT_DENIED_COMMANDS.join(','),
});

/** The starting allowlist with the deny list, as a chain carries them: a hard gate for tests and examples, not shipped. */
export const DEFAULT_SHELL_POLICY: Record<string, string> = {
  _allowed_commands: DEFAULT_ALLOWED_COMMANDS.join(','),
  _denied_commands: DEFAULT_DENIED_COMMANDS.join(','),
};

/** `"a, b,,c"` → `['a','b','c']` */
export function splitList(value: string): string[] {
  return value
    .split(',')
    .map((s) => s.trim())
    .filter((s) => s !== '');
}

/**
 * Parses `tools_policies.local_shell`. Returns undefined when no key is set (no policy: the line
 * goes to the platform shell). A key that is present but empty still makes the policy active:
 * `_allowed_commands = ""` allows no program at all, it does not mean "anything".
 * A relative `_allowed_dir` is taken from `root` (the session root).
 */
export function parseShellPolicy(values: Record<string, unknown> | undefined, root: string): ShellPolicy | undefined {
  if (!values) return undefined;
  const unknown = Object.keys(values).filter((k) => !(SHELL_POLICY_KEYS as readonly string[]).includes(k));
  if (unknown.length) {
    throw new ToolError('bad_args', `tools_policies.local_shell has unknown key${unknown.length > 1 ? 's' : ''} ${unknown.join(', ')}; the keys are ${SHELL_POLICY_KEYS.join(', ')}.`);
  }
  const str = (k: string): string | undefined => {
    const v = values[k];
    if (v === undefined || v === null) return undefined;
    if (Array.isArray(v)) return v.map(String).join(',');
    if (typeof v !== 'string') throw new ToolError('bad_args', `tools_policies.local_shell.${k} must be a string (a comma list), got ${typeof v}.`);
    return v;
  };
  const allowed = str('_allowed_commands');
  const denied = str('_denied_commands');
  const dir = str('_allowed_dir');
  if (allowed === undefined && denied === undefined && dir === undefined) return undefined;
  const policy: ShellPolicy = {};
  if (allowed !== undefined) policy.allowedCommands = splitList(allowed);
  if (denied !== undefined) policy.deniedCommands = splitList(denied);
  if (dir !== undefined && dir.trim() !== '') policy.allowedDir = path.resolve(root, dir.trim());
  return policy;
}

/**
 * The local_shell policy for a flat key=value set that serves every toolset (`cxl tool --policy`):
 * its local_shell keys over the shipped policy, with `_allowed_dir` defaulting to the root (`.`).
 */
export function shellPolicyFromFlat(flat: Readonly<Record<string, string>>): Record<string, string> {
  const out: Record<string, string> = { ...SHIPPED_SHELL_POLICY, _allowed_dir: '.' };
  for (const k of SHELL_POLICY_KEYS) if (flat[k] !== undefined) out[k] = flat[k];
  return out;
}

/**
 * Why the command policy refuses every line that starts with `words` (a prefix_allowlist entry):
 * its program is denied, or not on the allowlist (with that subcommand). Undefined when such a
 * line may pass. By name only: where the program resolves on PATH is the checker's, per call.
 */
export function policyRefusesPrefix(words: readonly string[], policy: ShellPolicy): string | undefined {
  const program = words[0];
  const base = path.basename(program).toLowerCase();
  if ((policy.deniedCommands ?? []).some((d) => path.basename(d).toLowerCase() === base)) return `\`${program}\` is on _denied_commands`;
  const allowed = policy.allowedCommands;
  if (!allowed) return undefined;
  const entries = allowed.map((e) => e.trim().split(/\s+/));
  if (entries.some((e) => e.length === 1 && (e[0] === program || (path.isAbsolute(e[0]) && path.basename(e[0]) === program)))) return undefined;
  const subs = entries.filter((e) => e.length > 1 && e[0] === program);
  if (subs.some((e) => e.slice(1).every((w, i) => words[i + 1] === w))) return undefined;
  return subs.length ? `\`${program}\` is on _allowed_commands only as ${subs.map((e) => `\`${e.join(' ')}\``).join(', ')}` : `\`${program}\` is not on _allowed_commands`;
}

/**
 * The refusal of a line the command policy refused, as the gate and the tool throw it. What only
 * needed a human who is not there is `approval_required`, as for the file tools.
 */
export function policyRefusal(v: { reason: string; rule: string; construct: string; position: number; step: number; argRule?: unknown }): ToolError {
  const code = v.rule === 'needs-approval' ? 'approval_required' : 'policy_refused';
  const tail = code === 'approval_required' ? ' Do without it, or rerun with approval (--yes).' : '';
  return new ToolError(code, `Refused by the command policy: ${v.reason}${tail}`, {
    rule: v.rule,
    construct: v.construct,
    position: v.position,
    step: v.step,
    ...(v.argRule ? { argRule: v.argRule } : {}),
  });
}
