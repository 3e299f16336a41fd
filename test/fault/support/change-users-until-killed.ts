/**
 * Fault fixture (run as a child process by users-file.fault.test.ts): adds users u<n>, u<n+1>, … (n: the users already there) to a
 * users file one change at a time, forever, printing each index once its change was saved. The test
 * kills it with SIGKILL at a random instant and then reads the file.
 * Usage: node --import tsx change-users-until-killed.ts <users file>
 */
import { UserDirectory } from '../../../src/api/users.ts';

const [file] = process.argv.slice(2);
if (file === undefined) throw new Error('usage: change-users-until-killed.ts <users file>');
const users = await UserDirectory.open(file);
for (let i = users.list().length; ; i++) {
  await users.set(`u${i}`, `password-${i}`, 'viewer');
  await new Promise<void>((resolve, reject) => process.stdout.write(`${i}\n`, (error) => (error ? reject(error) : resolve())));
}
