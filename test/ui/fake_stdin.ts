// A TTY-like stdin for Ink: bytes written to it are read as keystrokes. Shared by the UI tests
// and the UI benchmark; it imports nothing from Ink, so the benchmark can load it before React.
import { EventEmitter } from 'node:events';

export class FakeStdin extends EventEmitter {
  isTTY = true;
  private queue: string[] = [];
  write(data: string) {
    this.queue.push(data);
    this.emit('readable');
  }
  read(): string | null {
    return this.queue.shift() ?? null;
  }
  setEncoding() {}
  setRawMode() {}
  resume() {}
  pause() {}
  ref() {}
  unref() {}
}
