// A call's file IO whose writes are recorded (a session's checkpoints, through the run context's
// `writes`): the content a write replaces is in hand already (its hash and bytes, from the read
// the read-before-write contract made), so the recorder keeps it while the write goes out.
import type { EffectRecorder } from '../contract/toolset.ts';
import type { ConfinedPath } from '../paths.ts';
import type { FileIO, FileSnapshot, LinesRead, ReadOptions, WriteGuard } from './file_io.ts';

export class RecordedIO implements FileIO {
  readonly kind: FileIO['kind'];

  constructor(
    private readonly inner: FileIO,
    private readonly recorder: Pick<EffectRecorder, 'write'>,
  ) {
    this.kind = inner.kind;
  }

  read(file: ConfinedPath, opts: ReadOptions): Promise<FileSnapshot> {
    return this.inner.read(file, opts);
  }

  readLines(file: ConfinedPath, start: number, end: number, maxLines: number): Promise<LinesRead | undefined> {
    return this.inner.readLines?.(file, start, end, maxLines) ?? Promise.resolve(undefined);
  }

  write(file: ConfinedPath, data: Buffer | readonly Buffer[], opts: WriteGuard): Promise<void> {
    const old = opts.expectSha256 === null ? null : { sha256: opts.expectSha256, ...(opts.expectBytes ? { bytes: opts.expectBytes } : {}) };
    return this.recorder.write(file.real, old, () => this.inner.write(file, data, opts));
  }
}
