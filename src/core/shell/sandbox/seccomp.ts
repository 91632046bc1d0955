// The seccomp filter every bubblewrap command runs under. No host unix socket of any type is
// reachable: creating a unix-domain socket fails (EPERM), so a command cannot talk to an
// ssh-agent, gpg-agent, the D-Bus session bus, docker's socket or an X server, whether the socket
// is a file anywhere on the machine or an abstract name (a read-only bind does not stop
// connect(), and abstract names have no file to hide). socketpair() stays allowed for the
// connected types only, stream and seqpacket (Node's and Python's child-process pipes): such a
// pair reaches nothing (connect and sendto answer EISCONN). A datagram pair (SOCK_DGRAM, and
// SOCK_RAW, which unix sockets treat as datagram) is unconnected, and its connect() or sendto()
// reaches any datagram socket of the host by path (journald's): refused. io_uring is refused too,
// since IORING_OP_SOCKET creates sockets without the socket() call the filter reads. So are the
// kernel keyring's calls (add_key, request_key, keyctl): the keys of the user's session and user
// keyrings are no business of a command. Chosen over a network namespace with a proxy (see
// docs/local-shell.md): one filter covers every path and abstract name, and leaves the network
// and the host's local services as they were.
//
// The program is classic BPF (struct sock_filter, 8 bytes an instruction, host byte order) fed
// to bwrap's --seccomp FD through a pipe cxl fills from memory for each start (launcher.ts): no
// file holds it, so no command can change what the next one runs under (a file under $TMPDIR,
// inside the workspace, was rewritten by one allowed command before).
import process from 'node:process';

// seccomp_data: int nr; u32 arch; u64 instruction_pointer; u64 args[6]
const OFF_NR = 0;
const OFF_ARCH = 4;
const OFF_ARG0 = 16;
/** the low 32 bits of args[1] (little-endian): socketpair's type */
const OFF_ARG1 = 24;

const LD_W_ABS = 0x20; // BPF_LD | BPF_W | BPF_ABS
const JEQ_K = 0x15; // BPF_JMP | BPF_JEQ | BPF_K
const JGE_K = 0x35; // BPF_JMP | BPF_JGE | BPF_K
const RET_K = 0x06; // BPF_RET | BPF_K
const AND_K = 0x54; // BPF_ALU | BPF_AND | BPF_K

const RET_ALLOW = 0x7fff0000;
const RET_ERRNO = 0x00050000;
const EPERM = 1;
const ENOSYS = 38;
const AF_UNIX = 1;
/** socket types whose pair is connected at birth (the flags SOCK_NONBLOCK and SOCK_CLOEXEC masked off) */
const SOCK_STREAM = 1;
const SOCK_SEQPACKET = 5;
const SOCK_TYPE_MASK = 0xf;

/** The syscalls the filter reads on one ABI. */
interface Abi {
  /** AUDIT_ARCH_* */
  arch: number;
  socket: number;
  socketpair: number;
  /** add_key, request_key, keyctl */
  keys: readonly number[];
  /** the multiplexer whose arguments live in memory, where a filter cannot read them: refused whole */
  socketcall?: number;
  /** io_uring_setup, io_uring_enter, io_uring_register */
  ioUring: readonly number[];
  /** syscall numbers at or above this are another ABI sharing the arch (x32): refused */
  foreignFrom?: number;
}

interface ArchTable {
  native: Abi;
  /** the 32-bit ABI the kernel also runs on this architecture */
  compat?: Abi;
}

const IO_URING = [425, 426, 427];

/** Per Node's process.arch: the little-endian architectures cxl's sandbox supports. */
const ARCHES: Record<string, ArchTable> = {
  x64: {
    native: { arch: 0xc000003e, socket: 41, socketpair: 53, keys: [248, 249, 250], ioUring: IO_URING, foreignFrom: 0x40000000 },
    compat: { arch: 0x40000003, socket: 359, socketpair: 360, keys: [286, 287, 288], socketcall: 102, ioUring: IO_URING },
  },
  arm64: {
    native: { arch: 0xc00000b7, socket: 198, socketpair: 199, keys: [217, 218, 219], ioUring: IO_URING },
    compat: { arch: 0x40000028, socket: 281, socketpair: 288, keys: [309, 310, 311], socketcall: 102, ioUring: IO_URING },
  },
  riscv64: { native: { arch: 0xc00000f3, socket: 198, socketpair: 199, keys: [217, 218, 219], ioUring: IO_URING } },
};

type Insn = { code: number; k: number; jt?: string; jf?: string } | { label: string };

/** A tiny assembler: jumps name labels, resolved to forward offsets. */
function assemble(src: Insn[]): Uint8Array {
  const at = new Map<string, number>();
  const code: Exclude<Insn, { label: string }>[] = [];
  for (const i of src) {
    if ('label' in i) at.set(i.label, code.length);
    else code.push(i);
  }
  const out = new Uint8Array(code.length * 8);
  const view = new DataView(out.buffer);
  const rel = (label: string | undefined, pc: number): number => {
    if (label === undefined) return 0;
    const target = at.get(label);
    if (target === undefined || target <= pc || target - pc - 1 > 255) throw new Error(`seccomp: bad jump to ${label}`);
    return target - pc - 1;
  };
  code.forEach((c, pc) => {
    view.setUint16(pc * 8, c.code, true);
    view.setUint8(pc * 8 + 2, rel(c.jt, pc));
    view.setUint8(pc * 8 + 3, rel(c.jf, pc));
    view.setUint32(pc * 8 + 4, c.k >>> 0, true);
  });
  return out;
}

function abiRules(abi: Abi, p: string): Insn[] {
  const out: Insn[] = [{ code: LD_W_ABS, k: OFF_NR }];
  if (abi.foreignFrom !== undefined) out.push({ code: JGE_K, k: abi.foreignFrom, jt: 'nosys' });
  out.push({ code: JEQ_K, k: abi.socket, jt: `${p}socket` });
  out.push({ code: JEQ_K, k: abi.socketpair, jt: `${p}pair` });
  if (abi.socketcall !== undefined) out.push({ code: JEQ_K, k: abi.socketcall, jt: 'eperm' });
  for (const n of abi.keys) out.push({ code: JEQ_K, k: n, jt: 'eperm' });
  for (const n of abi.ioUring) out.push({ code: JEQ_K, k: n, jt: 'nosys' });
  out.push({ code: RET_K, k: RET_ALLOW });
  out.push({ label: `${p}socket` }, { code: LD_W_ABS, k: OFF_ARG0 }, { code: JEQ_K, k: AF_UNIX, jt: 'eperm' }, { code: RET_K, k: RET_ALLOW });
  // socketpair(domain, type, …): only a pair connected at birth
  out.push({ label: `${p}pair` }, { code: LD_W_ABS, k: OFF_ARG1 }, { code: AND_K, k: SOCK_TYPE_MASK });
  out.push({ code: JEQ_K, k: SOCK_STREAM, jt: 'allow' }, { code: JEQ_K, k: SOCK_SEQPACKET, jt: 'allow' }, { code: RET_K, k: RET_ERRNO | EPERM });
  return out;
}

/** The filter for `arch` (Node's process.arch names), or why there is none. */
export function socketFilter(arch: string = process.arch): { program: Uint8Array } | { unsupported: string } {
  const t = ARCHES[arch];
  if (!t) return { unsupported: `the unix-socket filter has no syscall table for ${arch} (supported: ${Object.keys(ARCHES).join(', ')})` };
  const src: Insn[] = [{ code: LD_W_ABS, k: OFF_ARCH }, { code: JEQ_K, k: t.native.arch, jf: 'other' }, ...abiRules(t.native, 'n')];
  src.push({ label: 'other' });
  if (t.compat) src.push({ code: JEQ_K, k: t.compat.arch, jf: 'nosys' }, ...abiRules(t.compat, 'c'));
  // a syscall of an ABI this table does not know: refused rather than read with the wrong numbers
  src.push({ label: 'nosys' }, { code: RET_K, k: RET_ERRNO | ENOSYS }, { label: 'eperm' }, { code: RET_K, k: RET_ERRNO | EPERM }, { label: 'allow' }, { code: RET_K, k: RET_ALLOW });
  return { program: assemble(src) };
}

let built: { program: Uint8Array } | { unsupported: string } | undefined;

/** This machine's filter, built once per process (it is the same for every command). */
export function seccompProgram(): { program: Uint8Array } | { unsupported: string } {
  return (built ??= socketFilter());
}
