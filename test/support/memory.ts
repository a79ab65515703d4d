import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';

/** A full garbage collection, so heap figures measure what is kept rather than what is not collected yet. */
export function collectGarbage(): void {
  setFlagsFromString('--expose_gc');
  (runInNewContext('gc') as () => void)();
}
