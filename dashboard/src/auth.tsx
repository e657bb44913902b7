import { createContext, useContext, useEffect, useMemo, useState, type ReactNode } from 'react';
import { initializeApp } from '@firebase/app';
import {
  connectAuthEmulator,
  indexedDBLocalPersistence,
  initializeAuth,
  onIdTokenChanged,
  signOut as fbSignOut,
  type Auth,
  type User,
} from '@firebase/auth';
import { setSession } from './api/client.ts';

/**
 * Firebase Auth: email link and Google. The web config comes from `/__/firebase/init.json`, which Firebase
 * Hosting serves for the project and `npm start` serves for the Auth emulator. The SDK keeps the refresh
 * token in IndexedDB (nothing in localStorage) and refreshes ID tokens itself.
 */
export interface FirebaseInit {
  apiKey?: string;
  authDomain?: string;
  projectId?: string;
  appId?: string;
  /** `npm start`: the Auth emulator's origin. */
  authEmulator?: string;
  /** Sign-in cannot work here, and why. */
  unavailable?: string;
}

export type AuthState =
  | { status: 'loading' }
  | { status: 'unavailable'; reason: string }
  | { status: 'signedOut'; auth: Auth; emulator: boolean }
  /** The SDK is still restoring last visit's session; its persisted ID token, still good, lets the screens start. */
  | { status: 'restoring'; auth: Auth; email: string; token: string; emulator: boolean }
  | { status: 'signedIn'; auth: Auth; user: User; emulator: boolean };

const BUSINESS_KEY = 'businessId';

interface AuthValue {
  state: AuthState;
  businessId: string | null;
  setBusinessId(id: string | null): void;
  signOut(): Promise<void>;
}

const Ctx = createContext<AuthValue | null>(null);

let loading: Promise<{ auth: Auth; emulator: boolean; peek: Promise<Peeked | null> } | { unavailable: string }> | undefined;
const loadAuth = () => (loading ??= load());
// Started as this module is evaluated, before React renders: the sign-in restore is the head of every screen's chain.
void loadAuth();

interface Peeked {
  token: string;
  email: string;
}

const DB = 'firebaseLocalStorageDb';
const STORE = 'firebaseLocalStorage';

/**
 * The ID token the SDK persisted on the last visit, read from the SDK's own IndexedDB store (where the refresh
 * token already lives; nothing is copied elsewhere). The SDK's restore asks Firebase Auth about the user
 * first (a round trip to accounts:lookup) before it hands out a token; this lets the first API calls run
 * beside that. Only a token good for five more minutes; anything unexpected (another SDK layout, no store) is null.
 */
function peekToken(apiKey: string): Promise<Peeked | null> {
  return new Promise((resolve) => {
    let req: IDBOpenDBRequest;
    try {
      req = indexedDB.open(DB);
    } catch {
      return resolve(null);
    }
    // No database yet: never create one here (the SDK creates its own, with its store).
    req.onupgradeneeded = () => req.transaction?.abort();
    req.onerror = () => resolve(null);
    req.onblocked = () => resolve(null);
    req.onsuccess = () => {
      const db = req.result;
      const done = (v: Peeked | null) => (db.close(), resolve(v));
      try {
        if (!db.objectStoreNames.contains(STORE)) return done(null);
        const get = db.transaction(STORE, 'readonly').objectStore(STORE).get(`firebase:authUser:${apiKey}:[DEFAULT]`);
        get.onerror = () => done(null);
        get.onsuccess = () => {
          const user = get.result?.value;
          const sts = user?.stsTokenManager;
          const ok = typeof sts?.accessToken === 'string' && typeof sts.expirationTime === 'number' && sts.expirationTime - Date.now() > 5 * 60_000 && typeof user.email === 'string';
          done(ok ? { token: sts.accessToken, email: user.email } : null);
        };
      } catch {
        done(null);
      }
    };
  });
}

async function load(): Promise<{ auth: Auth; emulator: boolean; peek: Promise<Peeked | null> } | { unavailable: string }> {
  let init: FirebaseInit;
  try {
    // index.html preloads this URL, so the answer is usually here before this code runs.
    const res = await fetch('/__/firebase/init.json');
    init = res.ok ? await res.json() : { unavailable: `/__/firebase/init.json answered ${res.status}` };
  } catch (e) {
    init = { unavailable: String(e) };
  }
  if (init.unavailable || !init.apiKey) return { unavailable: init.unavailable ?? 'no Firebase web config' };
  const peek = peekToken(init.apiKey);
  const app = initializeApp({ apiKey: init.apiKey, authDomain: init.authDomain, projectId: init.projectId, appId: init.appId });
  const auth = initializeAuth(app, { persistence: indexedDBLocalPersistence });
  if (init.authEmulator) connectAuthEmulator(auth, init.authEmulator, { disableWarnings: true });
  return { auth, emulator: Boolean(init.authEmulator), peek };
}

export function AuthProvider({ children, onSignedOut }: { children: ReactNode; onSignedOut(): void }) {
  const [state, setState] = useState<AuthState>({ status: 'loading' });
  // Which business a member of several works in: an id, not a secret.
  const [businessId, setBusinessIdState] = useState<string | null>(() => localStorage.getItem(BUSINESS_KEY));

  useEffect(() => {
    let unsubscribe = () => {};
    void loadAuth().then((r) => {
      if ('unavailable' in r) return setState({ status: 'unavailable', reason: r.unavailable });
      let settled = false;
      let restoring = false;
      void r.peek.then((p) => {
        if (!p || settled) return;
        restoring = true;
        setState({ status: 'restoring', auth: r.auth, email: p.email, token: p.token, emulator: r.emulator });
      });
      unsubscribe = onIdTokenChanged(r.auth, (user) => {
        settled = true;
        // The persisted session did not survive the restore: what was fetched with its token goes too.
        if (!user && restoring) onSignedOut();
        restoring = false;
        setState(user ? { status: 'signedIn', auth: r.auth, user, emulator: r.emulator } : { status: 'signedOut', auth: r.auth, emulator: r.emulator });
      });
    });
    return () => unsubscribe();
  }, []);

  const value = useMemo<AuthValue>(() => {
    const setBusinessId = (id: string | null) => {
      if (id) localStorage.setItem(BUSINESS_KEY, id);
      else localStorage.removeItem(BUSINESS_KEY);
      setBusinessIdState(id);
    };
    const signOut = async () => {
      setBusinessId(null);
      if (state.status === 'signedIn') await fbSignOut(state.auth);
      onSignedOut();
    };
    // The API client reads the session from here, set before any child's query runs.
    setSession(
      state.status === 'signedIn'
        ? { token: (force) => state.user.getIdToken(force), businessId: () => businessId, onUnauthenticated: () => {} }
        : state.status === 'restoring'
          ? {
              // A refused token waits for the SDK's own restore and asks it for a fresh one.
              token: async (force) => (force ? (await state.auth.authStateReady(), (await state.auth.currentUser?.getIdToken(true)) ?? null) : state.token),
              businessId: () => businessId,
              onUnauthenticated: () => {},
            }
          : null,
    );
    return { state, businessId, setBusinessId, signOut };
  }, [state, businessId, onSignedOut]);

  return <Ctx.Provider value={value}>{children}</Ctx.Provider>;
}

export function useAuth(): AuthValue {
  const v = useContext(Ctx);
  if (!v) throw new Error('useAuth outside AuthProvider');
  return v;
}
