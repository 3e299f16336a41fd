/**
 * Test fixture (run as a child process by sqlite-store.test.ts): inserts messages through group
 * commit forever, keeping many in flight, and prints each id once its insert resolved. The test
 * kills it with SIGKILL and then checks that every printed id is in the database.
 * Usage: node --import tsx insert-until-killed.ts <db path> <full|normal>
 */
import { openSqliteStore } from '../sqlite-store.ts';

const [path, durability] = process.argv.slice(2);
if (path === undefined || (durability !== 'full' && durability !== 'normal')) {
  throw new Error('usage: insert-until-killed.ts <db path> <full|normal>');
}
const store = await openSqliteStore({ path, durability });
const inFlight = 64;
let sequence = 0;

async function writer(): Promise<void> {
  for (;;) {
    sequence += 1;
    const [id] = await store.messages.insert([
      {
        namespace: 'USER',
        sessionId: null,
        parentId: null,
        correspondingId: null,
        kind: 'request',
        source: 'Killer',
        target: 'Op',
        responseRequired: false,
        status: 'queued',
        priority: 0,
        description: `seq ${sequence}`,
        body: { classname: 'msg.Seq', encoding: 'json', data: JSON.stringify({ sequence }) },
      },
    ]);
    // The callback fires once the line is handed to the pipe: "printed" then means "acknowledged".
    await new Promise<void>((resolve, reject) => process.stdout.write(`${id}\n`, (error) => (error ? reject(error) : resolve())));
  }
}

await Promise.all(Array.from({ length: inFlight }, writer));
