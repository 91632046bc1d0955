// What stops a run with no client from outside (`cxl run`, `cxl mission fire`, `cxl -p`): its
// --timeout, and SIGINT, SIGTERM, SIGHUP. Each aborts the run's signal; the exit code then says
// which (124, 130, 143, 129) instead of the run's own, and the record and the output say why.
import { EXIT } from '../agent/units/events.ts';
import { onTerminate, signalExitCode } from '../core/platform/runtime.ts';

export interface RunStop {
  signal: AbortSignal;
  /** why it was stopped, for the record (`--timeout 10m`, `SIGTERM`); undefined while it was not */
  because(): string | undefined;
  /** the exit code: the run's own, unless it was stopped from outside */
  code(own: number): number;
  /** the line that says it was stopped, for stderr */
  said(): string | undefined;
  dispose(): void;
}

export function runStop(timeoutMs: number, timeoutText?: string): RunStop {
  const ctrl = new AbortController();
  let why: 'timeout' | NodeJS.Signals | undefined;
  const timer = timeoutMs > 0 ? setTimeout(() => ((why = 'timeout'), ctrl.abort()), timeoutMs) : undefined;
  const off = onTerminate((signal) => {
    why = signal;
    ctrl.abort();
  });
  return {
    signal: ctrl.signal,
    because: () => (why === 'timeout' ? `--timeout ${timeoutText}` : why),
    code: (own) => (why === 'timeout' ? EXIT.timeout : why ? signalExitCode(why) : own),
    said: () => (why === 'timeout' ? `stopped after the --timeout of ${timeoutText}.` : why ? `stopped by ${why}.` : undefined),
    dispose() {
      if (timer) clearTimeout(timer);
      off();
    },
  };
}
