/**
 * The signed-in session: credentials kept in sessionStorage (gone when the tab closes), the user's
 * role (it decides which buttons exist) and the chosen namespace.
 */
import { createContext, useCallback, useContext, useMemo, useState, type ReactNode } from 'react';
import type { ConveyorClient } from '../../src/client/api-client.ts';
import { portalRoutes, type ReplyOf } from '../../src/client/routes.ts';
import { portalClient, type Credentials } from './connection.ts';

export type WhoAmI = ReplyOf<typeof portalRoutes.whoami>;
export type Role = WhoAmI['role'];

const storageKey = 'conveyor.session';
const roleOrder: Role[] = ['viewer', 'operator', 'admin'];

export interface Session {
  api: ConveyorClient;
  who: WhoAmI;
  namespace: string;
  setNamespace(namespace: string): void;
  /** Whether the user's role reaches `needed`. */
  can(needed: Role): boolean;
  signOut(): void;
}

interface Stored {
  credentials: Credentials;
  who: WhoAmI;
  namespace: string;
}

function load(): Stored | null {
  try {
    const text = sessionStorage.getItem(storageKey);
    return text ? (JSON.parse(text) as Stored) : null;
  } catch {
    return null;
  }
}

/** Checks the credentials against the server; the error's status is 401 when they are wrong. */
export async function signIn(credentials: Credentials): Promise<Stored> {
  const who = await portalClient(credentials, 'USER').call(portalRoutes.whoami);
  const namespace = who.namespaces.includes('USER') ? 'USER' : (who.namespaces[0] ?? 'USER');
  return { credentials, who, namespace };
}

const SessionContext = createContext<Session | null>(null);

export function useSession(): Session {
  const session = useContext(SessionContext);
  if (!session) throw new Error('useSession needs a signed-in SessionProvider');
  return session;
}

export function SessionGate({ signInPage, children }: { signInPage: (done: (stored: Stored) => void) => ReactNode; children: ReactNode }) {
  const [stored, setStored] = useState<Stored | null>(load);
  const save = useCallback((next: Stored | null) => {
    if (next) sessionStorage.setItem(storageKey, JSON.stringify(next));
    else sessionStorage.removeItem(storageKey);
    setStored(next);
  }, []);
  const session = useMemo<Session | null>(() => {
    if (!stored) return null;
    return {
      api: portalClient(stored.credentials, stored.namespace),
      who: stored.who,
      namespace: stored.namespace,
      setNamespace: (namespace) => save({ ...stored, namespace }),
      can: (needed) => roleOrder.indexOf(stored.who.role) >= roleOrder.indexOf(needed),
      signOut: () => save(null),
    };
  }, [stored, save]);
  if (!session) return <>{signInPage((next) => save(next))}</>;
  return <SessionContext.Provider value={session}>{children}</SessionContext.Provider>;
}
