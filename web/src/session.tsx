/**
 * The signed-in session: credentials kept in sessionStorage (gone when the tab closes), the user's
 * role (it decides which buttons exist) and the chosen namespace. When the server refuses the
 * credentials (401 from any call: password reset, user disabled or removed), the session ends at once
 * and the sign-in page says why; the page's route is kept, so signing in again returns to it.
 */
import { createContext, useCallback, useContext, useMemo, useState, type ReactNode } from 'react';
import type { ConveyorClient } from '../../src/client/api-client.ts';
import { portalRoutes, type ReplyOf } from '../../src/client/routes.ts';
import { portalClient, type Credentials } from './connection.ts';

export type WhoAmI = ReplyOf<typeof portalRoutes.whoami>;
export type Role = WhoAmI['role'];

const storageKey = 'conveyor.session';
/** Why the last session ended and where it was, for the sign-in page (kept across a reload). */
const endedKey = 'conveyor.session-ended';
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

/** A session the server ended: its reason and the route to come back to. */
export interface EndedSession {
  reason: string;
  route: string;
}

interface Stored {
  credentials: Credentials;
  who: WhoAmI;
  namespace: string;
}

function loadEnded(): EndedSession | null {
  try {
    const text = sessionStorage.getItem(endedKey);
    return text ? (JSON.parse(text) as EndedSession) : null;
  } catch {
    return null;
  }
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

export function SessionGate({
  signInPage,
  children,
}: {
  signInPage: (done: (stored: Stored) => void, ended: EndedSession | null) => ReactNode;
  children: ReactNode;
}) {
  const [stored, setStored] = useState<Stored | null>(load);
  const [ended, setEnded] = useState<EndedSession | null>(loadEnded);
  const save = useCallback((next: Stored | null) => {
    if (next) sessionStorage.setItem(storageKey, JSON.stringify(next));
    else sessionStorage.removeItem(storageKey);
    setStored(next);
  }, []);
  const signedIn = useCallback(
    (next: Stored) => {
      save(next);
      // Back where the session ended, even if the address changed meanwhile.
      if (ended && window.location.hash !== ended.route) window.location.hash = ended.route;
      sessionStorage.removeItem(endedKey);
      setEnded(null);
    },
    [save, ended],
  );
  const refused = useCallback(
    (reason: string) => {
      // Several calls in flight may all be refused: the first one ends the session, the others find it ended.
      if (sessionStorage.getItem(storageKey) === null) return;
      const end: EndedSession = { reason, route: window.location.hash || '#/productions' };
      sessionStorage.setItem(endedKey, JSON.stringify(end));
      setEnded(end);
      save(null);
    },
    [save],
  );
  const session = useMemo<Session | null>(() => {
    if (!stored) return null;
    return {
      api: portalClient(stored.credentials, stored.namespace, refused),
      who: stored.who,
      namespace: stored.namespace,
      setNamespace: (namespace) => save({ ...stored, namespace }),
      can: (needed) => roleOrder.indexOf(stored.who.role) >= roleOrder.indexOf(needed),
      signOut: () => save(null),
    };
  }, [stored, save, refused]);
  if (!session) return <>{signInPage(signedIn, ended)}</>;
  return <SessionContext.Provider value={session}>{children}</SessionContext.Provider>;
}
