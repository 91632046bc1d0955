// Where checkpoints hear of changes: the file tools' IO (every local_fs write passes through it,
// with the content it replaces in hand) and a toolset whose calls run commands or change the
// working tree otherwise (local_shell, native-git: the workspace is compared before and after
// each run that is not a read). Decorators only: the tools and the gate do not know.
import type { CallPlan, PlanContext, RunContext, Toolset } from '../../core/contract/toolset.ts';
import type { FileIO, FileSnapshot, LinesRead, ReadOptions, WriteGuard } from '../../core/local_fs/file_io.ts';
import type { ConfinedPath } from '../../core/paths.ts';
import type { SessionCheckpoints } from './recorder.ts';

/** A FileIO whose writes are checkpointed: the replaced content is kept while the write goes out. */
export class CheckpointedIO implements FileIO {
  readonly kind: FileIO['kind'];

  constructor(
    private readonly inner: FileIO,
    private readonly checkpoints: SessionCheckpoints,
  ) {
    this.kind = inner.kind;
  }

  read(file: ConfinedPath, opts: ReadOptions): Promise<FileSnapshot> {
    return this.inner.read(file, opts);
  }

  readLines(file: ConfinedPath, start: number, end: number, maxLines: number): Promise<LinesRead | undefined> {
    return this.inner.readLines?.(file, start, end, maxLines) ?? Promise.resolve(undefined);
  }

  async write(file: ConfinedPath, data: Buffer | readonly Buffer[], opts: WriteGuard): Promise<void> {
    const old = opts.expectSha256 === null ? null : { sha256: opts.expectSha256, ...(opts.expectBytes ? { bytes: opts.expectBytes } : {}) };
    // both at once: the old content is in memory, and the write is the slow part
    const keeping = this.checkpoints.beforeWrite(file.real, old);
    const writing = this.inner.write(file, data, opts);
    const [kept, wrote] = await Promise.allSettled([keeping, writing]);
    if (wrote.status === 'rejected') throw wrote.reason;
    // a checkpoint that could not be kept never fails the write; the record says it is lost
    this.checkpoints.afterWrite(file.real, kept.status === 'fulfilled' ? kept.value : { before: null, after: null, by: 'write', lost: String(kept.reason) });
  }
}

/**
 * A toolset whose calls may change any file (commands, native-git's checkout and restore): the
 * workspace is compared around each run that is not a read.
 */
export function checkpointedCommands(inner: Toolset, checkpoints: SessionCheckpoints): Toolset {
  const around = async <T>(run: () => Promise<T>): Promise<T> => {
    const before = await checkpoints.beforeCommand();
    try {
      return await run();
    } finally {
      checkpoints.afterCommand(before);
    }
  };
  const wrapped: Toolset = {
    name: inner.name,
    list: () => inner.list(),
    call: (tool, args, opts) => around(() => inner.call(tool, args, opts)),
  };
  if (inner.view) wrapped.view = (tool, args) => inner.view!(tool, args);
  if (inner.output) wrapped.output = (tool, result) => inner.output!(tool, result);
  if (inner.sandboxState) wrapped.sandboxState = (mode, network) => inner.sandboxState!(mode, network);
  if (inner.plan) {
    wrapped.plan = async (tool: string, args: Record<string, unknown>, ctx: PlanContext): Promise<CallPlan> => {
      const plan = await inner.plan!(tool, args, ctx);
      // a call on the files.read axis changes nothing: no comparison around it (native-git's reads)
      if (plan.facts.axis === 'files.read') return plan;
      return { ...plan, run: (rc: RunContext) => around(() => plan.run(rc)) };
    };
  }
  return wrapped;
}
