/**
 * One server per home: `<home>/server.pid` holds the pid of the server using it. A stale file (its
 * process is gone, e.g. after kill -9) is taken over.
 */
import { readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { ConveyorError } from '../core/errors.ts';
import { processExists } from '../core/process-exists.ts';

export function lockHome(home: string): () => void {
  const file = join(home, 'server.pid');
  for (let attempt = 0; attempt < 2; attempt++) {
    try {
      writeFileSync(file, String(process.pid), { flag: 'wx' });
      return () => {
        try {
          if (readFileSync(file, 'utf8') === String(process.pid)) rmSync(file);
        } catch {
          // already gone
        }
      };
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error;
      const pid = Number(readFileSync(file, 'utf8'));
      if (Number.isInteger(pid) && pid > 0 && pid !== process.pid && processExists(pid)) {
        throw new ConveyorError('ERR_HOME_LOCKED', `Another Conveyor server (pid ${pid}) already runs on home ${home}`, {
          hint: 'Stop it first, or use another home (--home or CONVEYOR_HOME)',
        });
      }
      rmSync(file, { force: true });
    }
  }
  throw new ConveyorError('ERR_HOME_LOCKED', `Cannot lock home ${home}`);
}
