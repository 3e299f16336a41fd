/**
 * Several patches of one message merged in order, as applying them one by one would leave the row:
 * a later field wins, and a field present as undefined is absent (it keeps the value, as an absent
 * field does in every driver's UPDATE). Both drivers merge a batch's patches per message before
 * writing: PostgreSQL because one UPDATE changes a row once, SQLite to fold them into an insert.
 */
export function mergeDefined<T extends object>(base: T, next: Partial<T>): T {
  const result = { ...base };
  for (const [key, value] of Object.entries(next)) {
    if (value !== undefined) (result as Record<string, unknown>)[key] = value;
  }
  return result;
}
