/**
 * The store contract against the Firestore emulator; skipped unless FIRESTORE_EMULATOR_HOST is set.
 * CI passes it as TEST_FIRESTORE_EMULATOR_HOST, so only this test process talks to the emulator.
 */
import { firestoreStore } from '../../../functions/src/adapters/firestore/firestoreStore.ts';
import { storeContract } from '../storeContract.ts';
import type { OpenOptions } from '../storeContract.ts';

const emulator = process.env.FIRESTORE_EMULATOR_HOST || process.env.TEST_FIRESTORE_EMULATOR_HOST;
if (emulator) process.env.FIRESTORE_EMULATOR_HOST = emulator;

async function open(opts: OpenOptions = {}) {
  const { getApps, initializeApp } = await import('firebase-admin/app');
  const { getFirestore } = await import('firebase-admin/firestore');
  if (getApps().length === 0) initializeApp({ projectId: 'demo-bfo' });
  return firestoreStore(getFirestore(), opts);
}

storeContract('firestore store (emulator)', open, { skip: emulator ? false : 'FIRESTORE_EMULATOR_HOST is not set' });
