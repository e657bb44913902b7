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
  | { status: 'signedIn'; auth: Auth; user: User; emulator: boolean };

const BUSINESS_KEY = 'businessId';

interface AuthValue {
  state: AuthState;
  businessId: string | null;
  setBusinessId(id: string | null): void;
  signOut(): Promise<void>;
}

const Ctx = createContext<AuthValue | null>(null);

let loading: Promise<{ auth: Auth; emulator: boolean } | { unavailable: string }> | undefined;
const loadAuth = () => (loading ??= load());
// Started as this module is evaluated, before React renders: the sign-in restore is the head of every screen's chain.
void loadAuth();

async function load(): Promise<{ auth: Auth; emulator: boolean } | { unavailable: string }> {
  let init: FirebaseInit;
  try {
    // index.html preloads this URL, so the answer is usually here before this code runs.
    const res = await fetch('/__/firebase/init.json');
    init = res.ok ? await res.json() : { unavailable: `/__/firebase/init.json answered ${res.status}` };
  } catch (e) {
    init = { unavailable: String(e) };
  }
  if (init.unavailable || !init.apiKey) return { unavailable: init.unavailable ?? 'no Firebase web config' };
  const app = initializeApp({ apiKey: init.apiKey, authDomain: init.authDomain, projectId: init.projectId, appId: init.appId });
  const auth = initializeAuth(app, { persistence: indexedDBLocalPersistence });
  if (init.authEmulator) connectAuthEmulator(auth, init.authEmulator, { disableWarnings: true });
  return { auth, emulator: Boolean(init.authEmulator) };
}

export function AuthProvider({ children, onSignedOut }: { children: ReactNode; onSignedOut(): void }) {
  const [state, setState] = useState<AuthState>({ status: 'loading' });
  // Which business a member of several works in: an id, not a secret.
  const [businessId, setBusinessIdState] = useState<string | null>(() => localStorage.getItem(BUSINESS_KEY));

  useEffect(() => {
    let unsubscribe = () => {};
    void loadAuth().then((r) => {
      if ('unavailable' in r) return setState({ status: 'unavailable', reason: r.unavailable });
      unsubscribe = onIdTokenChanged(r.auth, (user) => setState(user ? { status: 'signedIn', auth: r.auth, user, emulator: r.emulator } : { status: 'signedOut', auth: r.auth, emulator: r.emulator }));
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
    setSession(state.status === 'signedIn' ? { token: (force) => state.user.getIdToken(force), businessId: () => businessId, onUnauthenticated: () => {} } : null);
    return { state, businessId, setBusinessId, signOut };
  }, [state, businessId, onSignedOut]);

  return <Ctx.Provider value={value}>{children}</Ctx.Provider>;
}

export function useAuth(): AuthValue {
  const v = useContext(Ctx);
  if (!v) throw new Error('useAuth outside AuthProvider');
  return v;
}
