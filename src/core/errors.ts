// Stable machine codes for every tool failure, so callers (the model, the UI, scripts) branch on
// the code and never parse the message. The message says what went wrong and what to do next.

export const ERROR_CODES = [
  // arguments and lookup
  'bad_args', // arguments missing, unknown, or of the wrong type
  'unknown_tool', // no tool of that name
  // confinement and policy
  'escape', // the path leaves the allowed root (.., absolute elsewhere, symlink out, dangling link)
  'bad_path', // NUL/control characters, empty, leading ~, a URI
  'denied_path', // matches tools_policies _denied_path_substrings
  'quarantined', // matches the credential quarantine
  'approval_required', // needs a human answer and nobody can give one here
  'policy_refused', // the shell command policy refused the line
  'envelope_denied', // the session envelope denied the call
  'rejected', // a human rejected the call
  'capability_missing', // the ACP client lacks fs/* or terminal/*
  'client_refused', // the ACP client answered its fs/* or terminal/* request with an error (its user or settings refused)
  'sandbox_unavailable', // shell.sandbox = "required" and no OS sandbox works here, or it failed to start a command
  // file state
  'not_found',
  'is_directory',
  'not_directory',
  'not_regular', // a FIFO, socket or device: only regular files are read or written
  'binary',
  'too_large',
  // read-before-write contract
  'not_read', // never read in this session
  'range_only', // only a range was read, write_file needs a full read
  'stale', // changed since the session read it
  // mutations
  'not_unique',
  'no_match',
  'count_mismatch',
  // missions (docs/missions.md)
  'conflict', // the record is already finished, the ask already answered: the first verdict stands
  'fleet_full', // fleet_max_parallel units are open already
  // stores
  'damaged', // a stored record does not parse or is not its shape: the message names the file and what to do
  // running
  'timeout',
  'cancelled',
  'io_error',
  'internal',
] as const;

export type ErrorCode = (typeof ERROR_CODES)[number];

export class ToolError extends Error {
  readonly code: ErrorCode;
  readonly details?: Record<string, unknown>;

  constructor(code: ErrorCode, message: string, details?: Record<string, unknown>) {
    super(message);
    this.name = 'ToolError';
    this.code = code;
    this.details = details;
  }

  toJSON(): { code: ErrorCode; error: string; details?: Record<string, unknown> } {
    return this.details ? { code: this.code, error: this.message, details: this.details } : { code: this.code, error: this.message };
  }
}

export function isToolError(err: unknown): err is ToolError {
  return err instanceof ToolError;
}

/** Any thrown value as a ToolError: OS errors get their nearest code, the rest `internal`. */
export function toToolError(err: unknown): ToolError {
  if (err instanceof ToolError) return err;
  const e = err as NodeJS.ErrnoException;
  const msg = e instanceof Error ? e.message : String(err);
  switch (e?.code) {
    case 'ENOENT':
      return new ToolError('not_found', msg);
    case 'EISDIR':
      return new ToolError('is_directory', msg);
    case 'ENOTDIR':
      return new ToolError('not_directory', msg);
    case 'ELOOP':
      return new ToolError('escape', `${msg} (a symlink where none is allowed)`);
    case 'EACCES':
    case 'EPERM':
    case 'EIO':
    case 'ENOSPC':
    case 'EEXIST':
      return new ToolError('io_error', msg);
    default:
      return new ToolError('internal', msg);
  }
}
